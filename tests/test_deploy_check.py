"""`manage.py check --deploy` with the documented production settings (deploy/production.env, what the systemd units
read) prints no warnings; runs in `make check` and `make test`."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

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


def check_deploy(settings: dict[str, str]) -> subprocess.CompletedProcess:
    env = {**os.environ, **settings}
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_documented_production_settings_pass_check_deploy_without_a_warning():
    result = check_deploy(production_settings())

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."
    assert result.stderr == ""


def test_without_https_behind_the_proxy_check_deploy_names_what_is_missing():
    result = check_deploy({**production_settings(), "BENCHDASH_HTTPS": "false"})

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
