"""`make run` prints the address its web server really serves (deploy/served_address.py reads it as gunicorn does:
the Procfile's web line, deploy/gunicorn.conf.py, GUNICORN_CMD_ARGS), not always http://127.0.0.1:8000."""

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.sshd import free_port, wait_for_port

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = str(Path(sys.executable).parent / "gunicorn")


def served_address(**env: str) -> str:
    environment = {key: value for key, value in os.environ.items() if key != "GUNICORN_CMD_ARGS"} | env
    argv = [sys.executable, "deploy/served_address.py"]
    return subprocess.run(argv, cwd=ROOT, env=environment, capture_output=True, text=True, check=True).stdout.strip()


def procfile_web_argv() -> list[str]:
    """The Procfile's web command without deploy/as-run-user.sh (the test runs it as itself)."""
    web = next(line for line in (ROOT / "deploy" / "Procfile").read_text().splitlines() if line.startswith("web:"))
    words = web.removeprefix("web:").split()
    return [GUNICORN, *words[words.index(".venv/bin/gunicorn") + 1 :]]


def test_make_run_prints_the_address_from_the_served_address_script():
    run_recipe = (ROOT / "Makefile").read_text().split("\nrun:\n", 1)[1].split("\n\n", 1)[0]

    assert "served=$$(.venv/bin/python deploy/served_address.py)" in run_recipe
    assert 'echo "benchdash: $$served ' in run_recipe and "127.0.0.1:8000" not in run_recipe


def test_the_address_is_gunicorn_s_config_file_s_unless_the_environment_binds_elsewhere():
    assert served_address() == "http://127.0.0.1:8000"
    assert served_address(GUNICORN_CMD_ARGS="--bind 0.0.0.0:9000 --bind [::1]:9001") == (
        "http://0.0.0.0:9000 http://[::1]:9001"
    )


def test_the_web_server_of_the_procfile_listens_where_the_address_says(tmp_path):
    port = free_port()
    bind = {"GUNICORN_CMD_ARGS": f"--bind 127.0.0.1:{port} --workers 1"}
    log = (tmp_path / "gunicorn.log").open("wb")
    server = subprocess.Popen(
        procfile_web_argv(),
        cwd=ROOT,
        env={**os.environ, **bind},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_for_port(port, server, timeout=30)
        assert served_address(**bind) == f"http://127.0.0.1:{port}"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()
