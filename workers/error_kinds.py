"""The kind of failure each exception of the engine stands for (workers/failure_kind.py)."""

from workers.cpu_set import CpuSetError
from workers.failure_kind import FailureKind
from workers.host_lock import HostLockBusy
from workers.host_wait import HostGaveUp
from workers.initdb_options import InitdbOptionUnknown
from workers.local_transport import SudoRefused
from workers.pg_conf import RefusedSetting, ServerCannotStart
from workers.pgbench_run import TrialOverran
from workers.transport_base import AttemptFenced, CommandTimeout, ConnectionLost

# Most specific first: HostGaveUp is a TransportError, UnknownSetting a RefusedSetting.
_KIND_OF_ERROR: tuple[tuple[type[BaseException] | tuple[type[BaseException], ...], FailureKind], ...] = (
    (HostGaveUp, FailureKind.HOST_UNREACHABLE),
    (HostLockBusy, FailureKind.HOST_BUSY),
    (AttemptFenced, FailureKind.FENCED),
    (SudoRefused, FailureKind.SUDO_REFUSED),
    (ConnectionLost, FailureKind.CONNECTION_LOST),
    (ServerCannotStart, FailureKind.CAUSE_REPEATS),
    ((RefusedSetting, InitdbOptionUnknown, CpuSetError), FailureKind.SETTING_REFUSED),
    ((CommandTimeout, TrialOverran), FailureKind.TIMED_OUT),
)


def failure_kind_of(error: BaseException) -> FailureKind:
    """The kind of failure an exception of the engine stands for; TARGET_FAILED for any other."""
    return next((kind for types, kind in _KIND_OF_ERROR if isinstance(error, types)), FailureKind.TARGET_FAILED)
