"""The store and Redis that deploy/setup.sh runs ask every client for the passwords it generated.

Each test runs set-up on its own ports with its own var/ (never the shared store), then tries the way in as a
second local account and as the account of the benchmark clusters (both created when we are root).
"""

import os
import pwd
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sshd import free_port

pytestmark = [pytest.mark.servers, pytest.mark.slow]
ROOT = Path(__file__).resolve().parent.parent
STORE_USER = "benchdash"
CLUSTER_USER = "benchdash-clusters"
OTHER_USER = "benchdash-other"


class Services:
    """deploy/setup.sh's store and Redis on free ports, with var/ in a directory of their own."""

    def __init__(self) -> None:
        self.var = Path(tempfile.mkdtemp(prefix="benchdash-deploy-"))
        self.var.chmod(0o755)  # the store's account enters it
        self.pg_port, self.redis_port = free_port(), free_port()
        self.env = {
            **{name: value for name, value in os.environ.items() if name not in ("DATABASE_URL", "REDIS_URL")},
            "BENCHDASH_VAR_DIR": str(self.var),
            "BENCHDASH_PG_PORT": str(self.pg_port),
            "BENCHDASH_REDIS_PORT": str(self.redis_port),
        }
        self.secrets = self.var / "secrets"

    def setup(self, step: str = "services") -> str:
        done = subprocess.run(["bash", "deploy/setup.sh", step], cwd=ROOT, env=self.env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr + done.stdout
        return done.stdout

    def password(self, name: str) -> str:
        return (self.secrets / name).read_text().strip()

    def as_user(self, user: str, argv: list[str], **env: str) -> subprocess.CompletedProcess:
        command = ["runuser", "-u", user, "--", "env", *(f"{key}={value}" for key, value in env.items()), *argv]
        return subprocess.run(command, capture_output=True, text=True, cwd="/")

    def psql(self, user: str, **env: str) -> subprocess.CompletedProcess:
        argv = ["psql", "-X", "-w", "-At", "-h", "127.0.0.1", "-p", str(self.pg_port), "-U", "benchdash", "-d"]
        return self.as_user(user, [*argv, "benchdash", "-c", "SELECT current_user"], PGPASSFILE="/dev/null", **env)

    def redis(self, user: str, *command: str, **env: str) -> subprocess.CompletedProcess:
        return self.as_user(user, ["redis-cli", "-p", str(self.redis_port), *command], **env)

    def stop(self) -> None:
        self.setup("stop")
        shutil.rmtree(self.var, ignore_errors=True)


def accounts() -> list[str]:
    """The second local account and the clusters' account; made here when set-up has not made them."""
    if os.geteuid() != 0:
        pytest.skip("trying other local accounts needs root")
    for user in (OTHER_USER, CLUSTER_USER):
        try:
            pwd.getpwnam(user)
        except KeyError:
            subprocess.run(["useradd", "--system", "--create-home", "--shell", "/bin/sh", user], check=True)
    return [OTHER_USER, CLUSTER_USER]


@pytest.fixture
def services() -> Iterator[Services]:
    accounts()
    running = Services()
    try:
        yield running
    finally:
        running.stop()


def assert_only_the_password_lets_in(services: Services) -> None:
    for user in accounts():
        store = services.psql(user)
        broker = services.redis(user, "lpush", "celery", "injected")
        secret = services.as_user(user, ["cat", str(services.secrets / "store-password")])
        assert store.returncode != 0 and "password" in store.stderr, (user, store.stderr)
        assert broker.stdout.strip().startswith("NOAUTH"), (user, broker.stdout)
        assert secret.returncode != 0 and "Permission denied" in secret.stderr
    with_password = services.psql(STORE_USER, PGPASSWORD=services.password("store-password"))
    pong = services.redis(STORE_USER, "ping", REDISCLI_AUTH=services.password("redis-password"))
    assert (with_password.returncode, with_password.stdout.strip()) == (0, "benchdash"), with_password.stderr
    assert pong.stdout.strip() == "PONG"


def test_a_new_store_and_redis_ask_for_generated_passwords_kept_in_0600_files(services):
    services.setup()
    files = {path.name: path.stat() for path in services.secrets.iterdir()}
    directory = services.secrets.stat()
    hba = (services.var / "pg" / "pg_hba.conf").read_text()
    assert sorted(files) == ["redis-password", "redis.conf", "store-password"]
    assert {stat.S_IMODE(info.st_mode) for info in files.values()} == {0o600}
    assert (stat.S_IMODE(directory.st_mode), pwd.getpwuid(directory.st_uid).pw_name) == (0o700, STORE_USER)
    assert len(services.password("store-password")) == 32 and "trust" not in hba
    assert_only_the_password_lets_in(services)


def test_the_settings_reach_them_with_the_passwords_from_the_files(services):
    services.setup()
    script = (
        "import django, redis; django.setup(); from django.conf import settings; from django.db import connection; "
        "client = redis.Redis.from_url(settings.REDIS_URL); "
        "print(connection.cursor().execute('SHOW port').fetchone()[0], client.config_get('port')['port'])"
    )
    env = {**services.env, "DJANGO_SETTINGS_MODULE": "benchdash.settings"}
    done = subprocess.run([".venv/bin/python", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
    assert (done.returncode, done.stdout.split()) == (0, [str(services.pg_port), str(services.redis_port)]), done.stderr


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
