"""The store and Redis that deploy/setup.sh runs ask every client for the passwords it generated.

Each test runs set-up on its own ports with its own var/ (never the shared store), then tries the way in as a
second local account and as the account of the benchmark clusters (both created when we are root).
"""

import pwd
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.deploy_services import APP_ROLE, OTHER_USER, ROOT, STORE_USER, Services, accounts, services

pytestmark = [pytest.mark.servers, pytest.mark.slow]
__all__ = ["services"]  # the fixture


def assert_only_the_password_lets_in(services: Services) -> None:
    for user in accounts():
        store = services.psql(user)
        broker = services.redis(user, "lpush", "celery", "injected")
        secret = services.as_user(user, ["cat", str(services.secrets / "store-password")])
        assert store.returncode != 0 and "password" in store.stderr, (user, store.stderr)
        assert broker.stdout.strip().startswith("NOAUTH"), (user, broker.stdout)
        assert secret.returncode != 0 and "Permission denied" in secret.stderr
    with_password = services.app_psql("SELECT current_user")
    pong = services.redis(STORE_USER, "ping", REDISCLI_AUTH=services.password("redis-password"))
    assert (with_password.returncode, with_password.stdout.strip()) == (0, APP_ROLE), with_password.stderr
    assert pong.stdout.strip() == "PONG"


def test_a_new_store_and_redis_ask_for_generated_passwords_kept_in_0600_files(services):
    services.setup()
    files = {path.name: path.stat() for path in services.secrets.iterdir()}
    directory = services.secrets.stat()
    hba = (services.var / "pg" / "pg_hba.conf").read_text()
    assert sorted(files) == ["admin-password", "redis-password", "store-password"]
    assert {stat.S_IMODE(info.st_mode) for info in files.values()} == {0o600}
    assert (stat.S_IMODE(directory.st_mode), pwd.getpwuid(directory.st_uid).pw_name) == (0o700, STORE_USER)
    assert len(services.password("store-password")) == 32 and "trust" not in hba
    assert_only_the_password_lets_in(services)


def test_the_settings_reach_them_with_the_passwords_from_the_files(services):
    services.setup()
    script = (
        "import django, redis; django.setup(); from django.conf import settings; from django.db import connection; "
        "client = redis.Redis.from_url(settings.REDIS_URL); "
        "cursor = connection.cursor(); "
        "print(cursor.execute('SHOW port').fetchone()[0], cursor.execute('SELECT current_user').fetchone()[0], "
        "client.config_get('port')['port'])"
    )
    env = {**services.env, "DJANGO_SETTINGS_MODULE": "benchdash.settings"}
    done = subprocess.run([".venv/bin/python", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
    assert (done.returncode, done.stdout.split()) == (
        0,
        [str(services.pg_port), APP_ROLE, str(services.redis_port)],
    ), done.stderr


def test_a_store_and_redis_an_earlier_set_up_left_open_are_given_passwords(services):
    """The set-up before this one: initdb -A trust, Redis with no password. Set-up closes the store as it starts
    it; the Redis it finds running (others may use it) only when asked: `deploy/setup.sh secure`."""
    data = services.var / "pg"
    data.mkdir()
    shutil.chown(data, STORE_USER)
    initdb = Path(sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))[-1])
    subprocess.run(
        ["runuser", "-u", STORE_USER, "--", str(initdb), "-D", str(data), "-U", "benchdash", "-A", "trust"],
        check=True,
        capture_output=True,
    )
    redis_dir = services.var / "redis"
    redis_dir.mkdir()
    subprocess.run(
        ["redis-server", "--port", str(services.redis_port), "--bind", "127.0.0.1", "--daemonize", "yes"]
        + ["--dir", str(redis_dir), "--save", ""],
        check=True,
        capture_output=True,
    )
    output = services.setup()
    still_open = services.redis(OTHER_USER, "ping").stdout.strip()
    # No password file yet: settings.py would give it to a Redis that refuses a client giving one.
    assert not (services.secrets / "redis-password").exists()
    secured = services.setup("secure")
    assert "trusted every local account" in output and "Redis on port" in output and still_open == "PONG"
    assert "answered without a password" in secured
    assert "trust" not in (data / "pg_hba.conf").read_text()
    assert_only_the_password_lets_in(services)
