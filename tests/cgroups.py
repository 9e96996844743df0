"""The one root step calibration needs on a target, taken for the tests' accounts: a cgroup delegated to the account
(workers/cpu_quota.py), as deploy/setup.sh does for `local` and docs/SETUP.md tells root to do on other targets."""

import os
import subprocess
from pathlib import Path

import pytest

from workers.cpu_quota import cgroup_layout


def delegate_cgroup(account: str) -> None:
    """Run the layout's own delegation script for the account; skips where the tests are not root."""
    layout = cgroup_layout(Path("/proc/self/mountinfo").read_text())
    if layout is None:
        pytest.skip("no cgroup file system on this machine")
    if os.geteuid() != 0:
        pytest.skip("delegating a cgroup needs root")
    subprocess.run(["sh", "-c", layout.delegation_script(account)], check=True)
