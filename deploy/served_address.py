"""The address `make run`'s web server serves, as gunicorn itself reads it: deploy/Procfile's web line, the config file
it names (deploy/gunicorn.conf.py: 127.0.0.1:8000) and GUNICORN_CMD_ARGS (`--bind 0.0.0.0:9000` wins over the file).

`make run` prints it before the server starts: .venv/bin/python deploy/served_address.py -> http://127.0.0.1:8000
"""

import shlex
import sys
from pathlib import Path

from gunicorn.app.wsgiapp import WSGIApplication
from gunicorn.util import parse_address

PROCFILE = Path(__file__).resolve().parent / "Procfile"


def gunicorn_argv() -> list[str]:
    """The arguments the Procfile's web line gives gunicorn."""
    web = next(line for line in PROCFILE.read_text().splitlines() if line.startswith("web:"))
    words = shlex.split(web.removeprefix("web:"))
    program = next(index for index, word in enumerate(words) if word.endswith("/gunicorn"))
    return words[program + 1 :]


def bind_url(bind: str) -> str:
    """'127.0.0.1:8000' -> 'http://127.0.0.1:8000'; a unix socket or a file descriptor as gunicorn names it."""
    if bind.startswith(("unix:", "fd://")):
        return bind
    host, port = parse_address(bind)
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def served_urls() -> list[str]:
    sys.argv = ["gunicorn", *gunicorn_argv()]  # gunicorn parses its own command line
    return [bind_url(bind) for bind in WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]").cfg.bind]


if __name__ == "__main__":
    print(" ".join(served_urls()))
