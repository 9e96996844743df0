"""Names that resolve as a test says, with no change to the machine: a child process gets a mount namespace of its
own (`unshare -m`, as root), where the test's hosts file is bind-mounted over /etc/hosts; glibc resolves there as
anywhere else, and every other process still reads the machine's /etc/hosts."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def in_namespace_with_hosts(tmp_path: Path, hosts: str, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run Python `code` with `args` in a child that resolves names through `hosts`, in a mount namespace of its
    own."""
    if subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False).returncode != 0:  # noqa: S607
        pytest.skip("unshare -m is not permitted here (it needs root)")
    (tmp_path / "hosts").write_text(hosts)
    script = 'mount --bind "$1" /etc/hosts && shift && exec "$@"'
    command = ["unshare", "-m", "sh", "-c", script, "sh", str(tmp_path / "hosts"), sys.executable, "-c", code, *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)  # noqa: S603
