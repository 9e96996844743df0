"""A TLS-only Redis and a TLS-only PostgreSQL store of the test's own, with deploy/make-certs.sh's CA and server
certificate: redis-server with --tls-port and no plain port; a cluster with ssl=on and only `hostssl` lines in
pg_hba.conf, where copy_test_database puts the test database (schema and rows) for a worker to use."""

import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.db import connection

from tests.sshd import free_port, owned_temp_dir, run_user_account, wait_for_port

ROOT = Path(__file__).resolve().parents[1]


def make_certs(directory: Path, *names: str) -> Path:
    """deploy/make-certs.sh's CA and server certificate for names, in directory."""
    subprocess.run(["bash", "deploy/make-certs.sh", str(directory), *names], cwd=ROOT, check=True, capture_output=True)
    return directory


@pytest.fixture
def certs(tmp_path: Path) -> Path:
    """A local CA and a server certificate for 127.0.0.1 and localhost, as set-up makes them."""
    return make_certs(tmp_path / "certs", "127.0.0.1", "localhost")


@pytest.fixture
def tls_redis(certs: Path, tmp_path: Path) -> Iterator[str]:
    """A redis-server that speaks TLS only, with a password; its rediss:// URL naming the CA."""
    port, password = free_port(), secrets.token_hex(16)
    tls = ["--tls-cert-file", certs / "server.crt", "--tls-key-file", certs / "server.key"]
    argv = ["redis-server", "--port", "0", "--tls-port", port, "--bind", "127.0.0.1", *tls, "--tls-auth-clients", "no"]
    argv += ["--requirepass", password, "--save", "", "--appendonly", "no", "--dir", tmp_path]
    process = subprocess.Popen([str(arg) for arg in argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_for_port(port, process)
    yield f"rediss://:{password}@127.0.0.1:{port}/0?ssl_ca_certs={certs / 'ca.crt'}"
    process.terminate()
    process.wait(timeout=10)


@dataclass
class TlsStore:
    port: int
    password: str
    ca: Path
    bin_dir: Path

    def url(self, database: str = "benchdash") -> str:
        query = f"sslmode=verify-full&sslrootcert={self.ca}"
        return f"postgres://benchdash:{self.password}@127.0.0.1:{self.port}/{database}?{query}"


@pytest.fixture
def tls_store(certs: Path, installed_build) -> Iterator[TlsStore]:
    """A PostgreSQL cluster (Debian's) that takes TLS connections only, run by the local run user."""
    user = run_user_account()
    home = Path(owned_temp_dir(user, "benchdash-tls-store-"))
    bin_dir = Path(installed_build.bin_dir)
    data, store = home / "data", TlsStore(free_port(), secrets.token_hex(16), certs / "ca.crt", bin_dir)
    (home / "pw").write_text(store.password)
    os.chown(home / "pw", user.pw_uid, user.pw_gid)
    as_user = ["runuser", "-u", user.pw_name, "--"] if os.geteuid() == 0 else []
    initdb = [bin_dir / "initdb", "-D", data, "-U", "benchdash", "-A", "scram-sha-256", f"--pwfile={home / 'pw'}"]
    subprocess.run([*as_user, *map(str, initdb)], check=True, capture_output=True)
    for name in ("server.crt", "server.key"):
        shutil.copy(certs / name, data / name)
        os.chown(data / name, user.pw_uid, user.pw_gid)
    with (data / "postgresql.conf").open("a") as conf:
        conf.write(f"port = {store.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{data}'\n")
        conf.write("ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n")
    (data / "pg_hba.conf").write_text("hostssl all benchdash 127.0.0.1/32 scram-sha-256\n")
    pg_ctl = [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-w", "-l", str(home / "log")]
    subprocess.run([*pg_ctl, "start"], check=True, capture_output=True)
    try:
        yield store
    finally:
        subprocess.run([*pg_ctl, "stop", "-m", "fast"], capture_output=True)
        shutil.rmtree(home, ignore_errors=True)


def copy_test_database(store: TlsStore) -> None:
    """The test database, schema and committed rows, into the TLS store's database benchdash."""
    bin_dir = store.bin_dir
    source = connection.settings_dict
    env = {**os.environ, "PGPASSWORD": source["PASSWORD"] or ""}
    dump_argv = [
        str(bin_dir / "pg_dump"),
        "--no-owner",
        "--no-privileges",
        "-h",
        source["HOST"],
        "-p",
        str(source["PORT"]),
    ]
    dump = subprocess.run([*dump_argv, "-U", source["USER"], source["NAME"]], env=env, check=True, capture_output=True)
    psql = [str(bin_dir / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1"]
    subprocess.run(
        [*psql, store.url("postgres"), "-c", "CREATE DATABASE benchdash"],
        check=True,
        capture_output=True,
    )
    subprocess.run([*psql, store.url()], input=dump.stdout, check=True, capture_output=True)
