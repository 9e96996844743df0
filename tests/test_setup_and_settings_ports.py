"""deploy/setup.sh and settings.py take the store's and the broker's ports from the same variables
(BENCHDASH_PG_PORT, BENCHDASH_REDIS_PORT): what set-up starts is what the settings connect to, unless
DATABASE_URL / REDIS_URL name another."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy_services import OWN_SETTINGS
from tests.settings_read import settings_read_under
from tests.sshd import free_port

ROOT = Path(__file__).resolve().parents[1]
SERVICE_VARIABLES = (*OWN_SETTINGS, "BENCHDASH_PG_PORT", "BENCHDASH_REDIS_PORT", "BENCHDASH_SECRETS_DIR")
# No password files there: the URLs carry none (tests/test_deploy_secrets.py tests them with).
NO_SECRETS = "/nonexistent/benchdash-secrets"
# What a process started with the environment sees: its settings' URLs and whether the store and Redis answer there.
PROBE = """
import json, django, redis
django.setup()
from django.conf import settings
from django.db import connection
answers = {}
if "connect" in __import__("sys").argv:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('port')")
        answers = {"store_port": int(cursor.fetchone()[0]), "redis": redis.Redis.from_url(settings.REDIS_URL).ping()}
print(json.dumps({"database": settings.DATABASE_URL, "redis_url": settings.REDIS_URL, **answers}))
"""


def clean_env(**variables: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in SERVICE_VARIABLES}
    # DEBUG on: these settings need no SECRET_KEY, whatever DEBUG's default
    return {
        **env,
        "DJANGO_SETTINGS_MODULE": "benchdash.settings",
        "DEBUG": "true",
        "BENCHDASH_SECRETS_DIR": NO_SECRETS,
        **variables,
    }


def settings_seen(env: dict[str, str], *args: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def urls_read(env: dict[str, str]) -> dict[str, str]:
    """The settings' two URLs under env, read in this process (tests/settings_read.py)."""
    read = settings_read_under(env)
    return {"database": read["DATABASE_URL"], "redis_url": read["REDIS_URL"]}


def test_the_defaults_are_the_ports_set_up_uses():
    seen = urls_read(clean_env())

    assert seen["database"] == "postgres://benchdash@127.0.0.1:54329/benchdash"
    assert seen["redis_url"] == "redis://127.0.0.1:63799/0"
    lib = (ROOT / "deploy/lib.sh").read_text()
    assert 'PG_PORT="${BENCHDASH_PG_PORT:-54329}"' in lib
    assert 'REDIS_PORT="${BENCHDASH_REDIS_PORT:-63799}"' in lib


def test_the_port_variables_move_both_urls():
    seen = urls_read(clean_env(BENCHDASH_PG_PORT="55432", BENCHDASH_REDIS_PORT="63800"))

    assert seen["database"] == "postgres://benchdash@127.0.0.1:55432/benchdash"
    assert seen["redis_url"] == "redis://127.0.0.1:63800/0"


def test_database_url_and_redis_url_win_over_the_ports():
    env = clean_env(
        BENCHDASH_PG_PORT="55432",
        BENCHDASH_REDIS_PORT="63800",
        DATABASE_URL="postgres://bd@db.example.org:5432/bd",
        REDIS_URL="redis://broker.example.org:6379/3",
    )

    seen = urls_read(env)

    assert (seen["database"], seen["redis_url"]) == (
        "postgres://bd@db.example.org:5432/bd",
        "redis://broker.example.org:6379/3",
    )


def test_a_port_that_is_not_a_number_stops_start_up_with_its_name():
    env = clean_env(BENCHDASH_PG_PORT="54 329")

    result = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True)

    assert result.returncode != 0
    assert "BENCHDASH_PG_PORT must be a whole number, not '54 329'" in result.stderr


@pytest.fixture
def set_up_on_own_ports() -> Iterator[tuple[Path, dict[str, str]]]:
    """deploy/ in a directory of its own and an environment with free ports for the store and Redis. The directory
    is one the unprivileged account PostgreSQL runs as can enter: set-up keeps the store's files under its var/.
    Stopping uses the same environment, so it stops these services, never the shared ones on the default ports."""
    root = Path(tempfile.mkdtemp(prefix="benchdash-setup-"))
    root.chmod(0o755)
    shutil.copytree(ROOT / "deploy", root / "deploy")
    env = clean_env(
        BENCHDASH_PG_PORT=str(free_port()),
        BENCHDASH_REDIS_PORT=str(free_port()),
        BENCHDASH_SECRETS_DIR=str(root / "var" / "secrets"),
    )
    yield root, env
    subprocess.run(["bash", str(root / "deploy/setup.sh"), "stop"], env=env, capture_output=True, timeout=120)
    shutil.rmtree(root)


@pytest.mark.servers
@pytest.mark.slow
def test_settings_connect_to_the_store_and_redis_that_set_up_started_on_other_ports(set_up_on_own_ports):
    root, env = set_up_on_own_ports
    pg_port, redis_port = env["BENCHDASH_PG_PORT"], env["BENCHDASH_REDIS_PORT"]

    setup = subprocess.run(
        ["bash", str(root / "deploy/setup.sh"), "services"], env=env, capture_output=True, text=True, timeout=180
    )
    assert setup.returncode == 0, setup.stdout + setup.stderr
    seen = settings_seen(env, "connect")

    assert f"starting PostgreSQL on 127.0.0.1:{pg_port}" in setup.stdout
    assert f"starting Redis on 127.0.0.1:{redis_port}" in setup.stdout
    assert seen["store_port"] == int(pg_port)
    assert seen["redis"] is True
    redis_password = (root / "var" / "secrets" / "redis-password").read_text()
    assert seen["redis_url"] == f"redis://:{redis_password}@127.0.0.1:{redis_port}/0"
