"""Set-up's .venv holds one lock (deploy/lib.sh's ensure_venv): `make run` installs production's, requirements.txt,
and no test tool; `make test` the development lock, requirements-dev.txt, adding the tools to a .venv that `make run`
made; `make run` after `make test` installs nothing. A file whose hash is not the lock's is refused. Here in a checkout
of the test's whose locks hold uv (as the real ones do, pip installs it), six, and in the development lock iniconfig,
each entry copied from the real locks with its hashes."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def lock_entry(lock: str, name: str) -> str:
    """`name`'s entry in the real lock `lock`: its pin and hash lines, without the comments."""
    entry = re.search(rf"^{name}==.*?(?=^\S)", (ROOT / lock).read_text(), re.MULTILINE | re.DOTALL)
    assert entry is not None, f"{name} is not in {lock}"
    return "".join(line + "\n" for line in entry[0].splitlines() if not line.lstrip().startswith("#"))


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    production = lock_entry("requirements.txt", "uv") + lock_entry("requirements.txt", "six")
    (tmp_path / "requirements.txt").write_text(production)
    (tmp_path / "requirements-dev.txt").write_text(production + lock_entry("requirements-dev.txt", "iniconfig"))
    return tmp_path


def ensure_venv(checkout: Path, step: str) -> subprocess.CompletedProcess:
    script = f'set -euo pipefail && ROOT="$PWD" && source {ROOT}/deploy/lib.sh && ensure_venv "$(venv_lock {step})"'
    return subprocess.run(["bash", "-c", script], cwd=checkout, capture_output=True, text=True, timeout=300)


def installed(checkout: Path) -> set[str]:
    listing = "import importlib.metadata as m; print(*sorted(d.name for d in m.distributions()))"
    return set(
        subprocess.run([checkout / ".venv/bin/python", "-c", listing], capture_output=True, text=True).stdout.split()
    )


def venv_with_uv(checkout: Path) -> None:
    """A .venv holding the lock's uv, as ensure_venv's first two steps leave it, without their cost: `python -m venv`
    runs ensurepip (4.5 s of CPU) and pip then installs uv (2 s more). This checkout's own uv installs it, checked
    against the same hashes; test_make_run_installs_production_s_lock_and_make_test_adds_the_tools_once takes the
    steps themselves."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", checkout / ".venv"], check=True)
    uv_entry = checkout / "uv-entry.txt"
    uv_entry.write_text(lock_entry("requirements.txt", "uv"))
    uv = [Path(sys.executable).parent / "uv", "pip", "install", "-q", "--python", checkout / ".venv/bin/python"]
    subprocess.run([*uv, "--require-hashes", "-r", uv_entry], check=True, capture_output=True)


def stamp(checkout: Path) -> str:
    return (checkout / ".venv/.requirements.sha256").read_text().split()[1]


def test_make_run_installs_production_s_lock_and_make_test_adds_the_tools_once(checkout):
    run = ensure_venv(checkout, "run")
    assert run.returncode == 0, run.stderr
    assert {"six", "uv"} <= installed(checkout) and "iniconfig" not in installed(checkout)
    assert stamp(checkout) == "requirements.txt"

    test = ensure_venv(checkout, "test")
    assert "installing requirements-dev.txt into .venv" in test.stdout, test.stderr
    assert {"six", "uv", "iniconfig"} <= installed(checkout) and stamp(checkout) == "requirements-dev.txt"

    again = ensure_venv(checkout, "run")
    assert again.returncode == 0 and "installing" not in again.stdout, again.stderr
    assert "iniconfig" in installed(checkout) and stamp(checkout) == "requirements-dev.txt"


def test_a_package_whose_file_has_no_hash_of_the_lock_is_refused(checkout):
    six = re.sub("sha256:[0-9a-f]{64}", "sha256:" + "0" * 64, lock_entry("requirements.txt", "six"))
    (checkout / "requirements.txt").write_text(lock_entry("requirements.txt", "uv") + six)
    venv_with_uv(checkout)

    run = ensure_venv(checkout, "run")

    assert run.returncode != 0 and "six" in run.stderr
    assert "six" not in installed(checkout) and not (checkout / ".venv/.requirements.sha256").exists()
