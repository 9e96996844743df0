"""Loaded by a Python process started with this directory and the repository on PYTHONPATH: its SSH transport
notices a frozen host after NOTICE_S seconds (30 s and 15 s in production), as tests/engine/test_frozen_target.py's
quick_to_notice does inside the test's own process. tests/queue/test_host_unreachable.py starts a Celery worker so."""

import os

from workers.transport import SSHTransport

for _name in ("CHANNEL_TIMEOUT_S", "BANNER_TIMEOUT_S", "SILENCE_PROBE_S"):
    setattr(SSHTransport, _name, int(os.environ["NOTICE_S"]))
