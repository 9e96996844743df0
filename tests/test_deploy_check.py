"""`manage.py check --deploy` with the documented production settings (deploy/production.env, what the systemd units
read) prints no warnings; runs in `make check` and `make test`."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCTION_ENV = ROOT / "deploy" / "production.env"


def production_settings() -> dict[str, str]:
    """deploy/production.env's settings, with a fresh SECRET_KEY where the file leaves it to be filled in."""
    values = {}
    for line in PRODUCTION_ENV.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    assert values["SECRET_KEY"] == "", "the documented file must not carry a real key"
    return {**values, "SECRET_KEY": secrets.token_urlsafe(50)}


def start_check_deploy(settings: dict[str, str]) -> subprocess.Popen:
    env = {**os.environ, **settings}
    argv = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"]
    return subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def checked() -> dict[str, subprocess.CompletedProcess]:
    """check --deploy with the documented settings, and without HTTPS, run at once: each is a Django start and its
    system checks (a second or two of CPU), and `make check` runs its tests one at a time."""
    started = {
        "documented": start_check_deploy(production_settings()),
        "without https": start_check_deploy({**production_settings(), "BENCHDASH_HTTPS": "false"}),
    }
    ended = {}
    for name, process in started.items():
        stdout, stderr = process.communicate(timeout=120)
        ended[name] = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    return ended


def test_the_documented_production_settings_pass_check_deploy_without_a_warning(checked):
    result = checked["documented"]

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."
    assert result.stderr == ""


def test_without_https_behind_the_proxy_check_deploy_names_what_is_missing(checked):
    result = checked["without https"]

    assert result.returncode == 1
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in result.stderr


def test_the_web_unit_and_make_run_serve_with_gunicorn_from_the_production_settings():
    unit = (ROOT / "deploy/systemd/benchdash-web.service").read_text()
    procfile = (ROOT / "deploy/Procfile").read_text()

    assert "EnvironmentFile=/etc/benchdash/env" in unit
    assert "ExecStart=/opt/benchdash/.venv/bin/gunicorn benchdash.wsgi" in unit
    assert "runserver" not in unit + procfile
    assert "web: deploy/as-run-user.sh .venv/bin/gunicorn benchdash.wsgi" in procfile
