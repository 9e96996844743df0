"""Parts of the checkout copied where another account can run them: a test that runs the checkout's code as another
account (the run user, `nobody`) cannot count on that account reaching the checkout itself, which may be a clone in a
directory only root may enter (a `mktemp -d`, /root)."""

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The interpreter .venv/bin/python links to: the one another account runs (it cannot reach .venv in such a clone).
BASE_PYTHON = str(Path(sys.executable).resolve())


@contextmanager
def reachable_copy(account: str, *parts: str) -> Iterator[Path]:
    """A directory every account may enter, holding a copy of each part of the checkout (e.g. "workers", "deploy");
    removed afterwards. Skips the test, saying why, where this machine gives account no such directory."""
    place = Path(tempfile.mkdtemp(prefix="benchdash-reachable-"))
    try:
        place.chmod(0o755)
        for part in parts:
            shutil.copytree(ROOT / part, place / part, ignore=shutil.ignore_patterns("__pycache__"))
        if not runs(account, ["test", "-r", str(place / parts[0])]):
            pytest.skip(
                f"{account} cannot reach {place}: this machine has no temporary directory every account may enter"
            )
        yield place
    finally:
        shutil.rmtree(place)


def runs(account: str, argv: list[str]) -> bool:
    """Whether argv succeeds as account."""
    return subprocess.run(["runuser", "-u", account, "--", *argv], capture_output=True, cwd="/").returncode == 0
