"""settings.py read again in the test's own process, under an environment of the test's: what a process started with
that environment would see in its settings, without starting one (Python, Django and settings.py's imports: 0.5 to 1
s of CPU each). Tests that a bad value stops a real start-up keep one process each
(tests/test_settings_of_waits_and_hosts.py, tests/test_setup_and_settings_ports.py)."""

import os
import runpy
from pathlib import Path
from typing import Any
from unittest import mock

SETTINGS = Path(__file__).resolve().parents[1] / "benchdash" / "settings.py"


def settings_read_under(env: dict[str, str]) -> dict[str, Any]:
    """settings.py's names as its module would hold them under env, the whole environment (nothing else of ours
    leaks in); raises what settings.py raises (ImproperlyConfigured for a bad value)."""
    with mock.patch.dict(os.environ, env, clear=True):
        return runpy.run_path(str(SETTINGS), run_name="benchdash_settings_read")
