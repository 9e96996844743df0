"""What kind of failure ended an attempt: a field of the outcome, set where the failure is known, so that nothing
reads an error's text back to decide (issue 40). The error stays beside it as the detail, in the engine's words.

The store keeps the kind on the trial and its attempt (studies.FailureKind holds the same values), and the pages say
it in the reader's language.
"""

from enum import StrEnum


class FailureKind(StrEnum):
    HOST_UNREACHABLE = "host_unreachable"  # past the patience (workers/host_wait.py)
    HOST_BUSY = "host_busy"  # another installation's trial holds the DB host (workers/host_lock.py)
    CONNECTION_LOST = "connection_lost"
    FENCED = "fenced"  # a later attempt holds the host
    SUDO_REFUSED = "sudo_refused"  # no sudoers rule lets the worker run as the clusters' account
    SETTING_REFUSED = "setting_refused"  # a setting, an initdb option or a CPU set the server refuses
    CAUSE_REPEATS = "cause_repeats"  # another attempt would meet the same cause (workers/repeating_failure.py)
    PGBENCH_FAILED = "pgbench_failed"
    TIMED_OUT = "timed_out"
    CANCELLED = "cancelled"
    WORKER_LOST = "worker_lost"
    STORAGE_FULL = "storage_full"  # the artifact storage cannot keep an outcome
    STORE_FAILED = "store_failed"  # the store could not keep the outcome
    TARGET_FAILED = "target_failed"  # any other failure on a target
