"""Loaded by a Python process started with this directory on PYTHONPATH: its clock (time.time, datetime.now) runs
CLOCK_OFFSET_S seconds off the machine's, its children's too, while monotonic time and sleeps stay true, as on a
machine whose clock is wrong. tests/queue/test_worker_clock.py starts a Celery worker so.

(libfaketime 0.9.10, Debian's, cannot do this for Python 3.11: its sleeps fail with EINVAL or never end.)"""

import datetime
import os

import time_machine

_skew = datetime.timedelta(seconds=float(os.environ["CLOCK_OFFSET_S"]))
time_machine.travel(datetime.datetime.now(datetime.UTC) + _skew, tick=True).start()
