"""gunicorn serving benchdash as deploy/Procfile and the systemd web unit start it, as a pytest fixture.

The server runs on the test database (tests using it are transaction=True, so it sees committed rows) with its own
var/ (raw files kept there, and a copy of the static files as collectstatic writes them) and whatever settings the
test gives it.
"""

import contextlib
import http.client
import os
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.queue.conftest import ROOT, test_broker_url, var_of_its_own, worker_env
from tests.sshd import free_port, wait_for_port

GUNICORN = str(Path(sys.executable).with_name("gunicorn"))


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode()


def production_env(var: Path, **settings: str) -> dict[str, str]:
    """DEBUG off, a SECRET_KEY, var/ at var, and the given settings on top."""
    production = {"DEBUG": "false", "SECRET_KEY": secrets.token_urlsafe(50), **var_of_its_own(var)}
    return worker_env(test_broker_url(), **{**production, **settings})


@pytest.fixture(scope="session")
def collected_static(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What collectstatic writes (hashed names, compressed copies), made once per pytest worker: compressing
    plotly.js is most of its CPU, and the result is the same for every server."""
    var = tmp_path_factory.mktemp("collected-var")
    manage = [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"]
    subprocess.run(manage, cwd=ROOT, env=production_env(var), check=True, timeout=120)
    return var / "staticfiles"


@dataclass
class WebServer:
    env: dict[str, str]
    log: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, static: Path) -> None:
        """Serve a copy of the static files collected in `static`, from the server's own var/."""
        shutil.copytree(static, Path(self.env["BENCHDASH_VAR_DIR"]) / "staticfiles")
        argv = [GUNICORN, "benchdash.wsgi", "--config", "deploy/gunicorn.conf.py", "--bind", f"127.0.0.1:{self.port}"]
        argv += ["--workers", "1"]  # deploy's settings otherwise; each worker boots Django, a second of CPU
        with self.log.open("wb") as output:
            self.process = subprocess.Popen(
                argv, cwd=ROOT, env=self.env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
            )
        wait_for_port(self.port, self.process, timeout=30)

    def get(self, path: str, **headers: str) -> Answer:
        """One GET, redirects not followed; header names with underscores (Accept_Language)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request("GET", path, headers={name.replace("_", "-"): value for name, value in headers.items()})
            response = connection.getresponse()
            return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        finally:
            connection.close()

    def stop(self) -> None:
        """SIGKILL to the server's group, master and worker: the test has its answers, and gunicorn's graceful stop
        waits up to 3 s for a browser's kept-alive connection (its quick one, SIGQUIT, once hung 30 s)."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)


@pytest.fixture
def gunicorn(transactional_db, tmp_path: Path, collected_static: Path) -> Iterator[Callable[..., WebServer]]:
    """Starts gunicorn with DEBUG off and the given settings on top: `gunicorn(BENCHDASH_PUBLIC_READ="false")`."""
    started: list[WebServer] = []

    def start(**settings: str) -> WebServer:
        server = WebServer(
            production_env(tmp_path / f"web-{len(started)}-var", **settings), tmp_path / f"web-{len(started)}.log"
        )
        started.append(server)
        server.start(collected_static)
        return server

    yield start
    for server in started:
        server.stop()
