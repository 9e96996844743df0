"""deploy/setup.sh's store and Redis on free ports with a var/ of their own (never the shared store): what the
tests of set-up (tests/test_deploy_*.py) run it on, as root, with the local accounts it needs."""

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.queue.support import process_alive, wait_for
from tests.sshd import free_port

ROOT = Path(__file__).resolve().parent.parent
STORE_USER = "benchdash"
CLUSTER_USER = "benchdash-clusters"
OTHER_USER = "benchdash-other"
APP_ROLE = "benchdash_app"
ADMIN_ROLE = "benchdash"
# What the tests' own processes are given (the test store and broker, a media folder of the pytest worker's own) and
# set-up must not take for its var/'s.
OWN_SETTINGS = ("DATABASE_URL", "REDIS_URL", "BENCHDASH_MEDIA_ROOT")


class Services:
    """deploy/setup.sh's store and Redis on free ports, with var/ in a directory of their own."""

    def __init__(self) -> None:
        self.var = Path(tempfile.mkdtemp(prefix="benchdash-deploy-"))
        self.var.chmod(0o755)  # the store's account enters it
        self.pg_port, self.redis_port = free_port(), free_port()
        self.env = {
            **{name: value for name, value in os.environ.items() if name not in OWN_SETTINGS},
            "BENCHDASH_VAR_DIR": str(self.var),
            "BENCHDASH_PG_PORT": str(self.pg_port),
            "BENCHDASH_REDIS_PORT": str(self.redis_port),
        }
        self.secrets = self.var / "secrets"
        # The Redis that set-up started, from its pid file while there is one: a test that puts a link in place of
        # var/redis or var/secrets leaves `setup.sh stop` (rightly) unable to reach it, and it is ended by pid.
        self.redis_pids: set[int] = set()

    def run_setup(self, step: str = "services") -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "deploy/setup.sh", step], cwd=ROOT, env=self.env, capture_output=True, text=True)

    def setup(self, step: str = "services") -> str:
        done = self.run_setup(step)
        assert done.returncode == 0, done.stderr + done.stdout
        pid_file = self.var / "redis" / "redis.pid"
        if not pid_file.parent.is_symlink() and pid_file.is_file():
            self.redis_pids.add(int(pid_file.read_text()))
        return done.stdout

    def password(self, name: str) -> str:
        return (self.secrets / name).read_text().strip()

    def as_user(self, user: str, argv: list[str], **env: str) -> subprocess.CompletedProcess:
        command = ["runuser", "-u", user, "--", "env", *(f"{key}={value}" for key, value in env.items()), *argv]
        return subprocess.run(command, capture_output=True, text=True, cwd="/")

    def psql(self, user: str, sql: str = "SELECT current_user", role: str = APP_ROLE, **env: str):
        argv = ["psql", "-X", "-w", "-At", "-h", "127.0.0.1", "-p", str(self.pg_port), "-U", role, "-d", "benchdash"]
        return self.as_user(user, [*argv, "-c", sql], PGPASSFILE="/dev/null", **env)

    def app_psql(self, sql: str) -> subprocess.CompletedProcess:
        """sql in the database benchdash as the app's role, with its password (store-password)."""
        return self.psql(STORE_USER, sql, PGPASSWORD=self.password("store-password"))

    def redis(self, user: str, *command: str, **env: str) -> subprocess.CompletedProcess:
        return self.as_user(user, ["redis-cli", "-p", str(self.redis_port), *command], **env)

    def stop(self) -> None:
        self.setup("stop")
        for pid in self.redis_pids:
            end_own_redis(pid, self.redis_port)
        shutil.rmtree(self.var, ignore_errors=True)


def end_own_redis(pid: int, port: int) -> None:
    """SIGTERM to the redis-server of this pid and port, if it still runs, and wait for it to go (5 s)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return
    if b"redis-server" not in command or f":{port}".encode() not in command:
        return  # gone, and the pid taken by another process
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: not process_alive(pid), 5, f"redis-server {pid} to end")


def accounts() -> list[str]:
    """The second local account and the clusters' account; made here when set-up has not made them."""
    if os.geteuid() != 0:
        pytest.skip("trying other local accounts needs root")
    for user in (OTHER_USER, CLUSTER_USER):
        ensure_account(user)
    return [OTHER_USER, CLUSTER_USER]


def ensure_account(user: str) -> None:
    try:
        pwd.getpwnam(user)
    except KeyError:
        subprocess.run(["useradd", "--system", "--create-home", "--shell", "/bin/sh", user], check=True)


@pytest.fixture
def services() -> Iterator[Services]:
    accounts()
    running = Services()
    try:
        yield running
    finally:
        running.stop()


# --- What a link the run user plants could lead root to ---------------------------------------------------------------
def roots_files(names: list[str]) -> Path:
    """A root-owned directory with a root-owned file (mode 0644) and a root-only directory per name: what links lead
    to."""
    place = Path(tempfile.mkdtemp(prefix="benchdash-roots-"))
    place.chmod(0o755)
    for name in names:
        (place / name).write_text(f"root's {name}\n")
        (place / name).chmod(0o644)
        (place / f"{name}.d").mkdir(mode=0o700)
    return place


def state(place: Path) -> dict[str, tuple]:
    """What a link could change in place: each entry's contents, owner and mode, and what its directories hold."""
    return {str(entry.relative_to(place)): _entry_state(entry) for entry in sorted(place.rglob("*"))}


def _entry_state(entry: Path) -> tuple:
    facts = entry.stat()
    return entry.is_file() and entry.read_bytes(), facts.st_uid, facts.st_mode


def plant_links(links: dict[Path, Path]) -> None:
    """As the run user: each key replaced by a link to its value."""
    for link, target in links.items():
        script = 'rm -rf "$1" && ln -s "$2" "$1"'
        subprocess.run(["runuser", "-u", STORE_USER, "--", "sh", "-c", script, "sh", link, target], check=True)
