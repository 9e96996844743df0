"""Each exception of the engine stands for one kind of failure (workers/error_kinds.py), the most specific first: the
outcome carries the kind, and nothing after reads the error's words to tell them apart (issue 40)."""

import pytest

from workers.cpu_set import CpuSetError
from workers.error_kinds import failure_kind_of
from workers.failure_kind import FailureKind
from workers.host_lock import HostLockBusy
from workers.host_wait import HostGaveUp
from workers.initdb_options import InitdbOptionUnknown
from workers.pg_conf import ClusterError, RefusedSetting, ServerCannotStart, UnknownSetting
from workers.pgbench_run import TrialOverran
from workers.transport_base import AttemptFenced, CommandTimeout, ConnectionLost, HostUnreachable


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (HostGaveUp("host far unreachable since ...: gave up after 4 s"), FailureKind.HOST_UNREACHABLE),
        (HostLockBusy("db-1", "b-2"), FailureKind.HOST_BUSY),
        (AttemptFenced("a later attempt holds the host"), FailureKind.FENCED),
        (ConnectionLost("the SSH session dropped"), FailureKind.CONNECTION_LOST),
        (ServerCannotStart("the server cannot start (its cause repeats)"), FailureKind.CAUSE_REPEATS),
        (UnknownSetting("shared_bufers"), FailureKind.SETTING_REFUSED),
        (RefusedSetting("max_connections"), FailureKind.SETTING_REFUSED),
        (InitdbOptionUnknown("--no-such"), FailureKind.SETTING_REFUSED),
        (CpuSetError("outside CPU set 0-3"), FailureKind.SETTING_REFUSED),
        (CommandTimeout("pg_ctl start"), FailureKind.TIMED_OUT),
        (TrialOverran("pgbench still ran"), FailureKind.TIMED_OUT),
        (HostUnreachable("no route"), FailureKind.TARGET_FAILED),
        (ClusterError("pg_ctl start failed"), FailureKind.TARGET_FAILED),
        (ValueError("anything else"), FailureKind.TARGET_FAILED),
    ],
)
def test_an_engine_exception_stands_for_its_failure_kind(error, kind):
    assert failure_kind_of(error) == kind


def test_a_kind_never_depends_on_the_words_of_the_error():
    assert failure_kind_of(ClusterError("the server cannot start (its cause repeats)")) == FailureKind.TARGET_FAILED
