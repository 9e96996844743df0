"""One attempt at a study's trial, from the worker: reach its hosts, run it, profile it when asked.

What the Celery glue (benchdash/queue/tasks.py) calls once it has claimed a trial; it knows no database.
"""

import logging
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import replace
from functools import partial

from workers.duet import run_duet
from workers.error_kinds import failure_kind_of
from workers.failure_kind import FailureKind
from workers.host_lock import HostLockBusy, host_lock
from workers.host_wait import HostGaveUp, HostPatience, WaitReport, connect_waiting, unheard
from workers.runner import run_trial, stop_kept_server
from workers.spec import TrialOutcome, TrialSpec
from workers.transport import connect
from workers.work_dir import ensure_private_work_dir

logger = logging.getLogger(__name__)
# perf runs once per point, after the first repetition: one profile explains the point.
PROFILED_REPETITION = 1


def run_attempt(
    spec: TrialSpec,
    *,
    should_cancel: Callable[[], bool],
    patience: HostPatience | None = None,
    on_wait: WaitReport | None = None,
) -> TrialOutcome:
    """Any failure of the target (SSH, server, pgbench, time limit) is an outcome, not a crash:
    the attempt counts and the study goes on. A host that does not answer is waited for (patience);
    one that stays unreachable past it gives an outcome with host_unreachable set. The DB host's host-wide lock is
    held from before the trial to after its profiled run; one that another installation holds gives an outcome with
    host_busy_with set, and nothing done on the host."""
    patience, on_wait = patience or HostPatience(), on_wait or unheard
    reach = partial(connect_waiting, patience=patience, on_wait=on_wait, should_stop=should_cancel)
    try:
        with ExitStack() as stack:
            db = stack.enter_context(reach(spec.db_host))
            ensure_private_work_dir(db)  # the lock lives beside the installation's part of it: checked first
            stack.enter_context(host_lock(db))
            client = None if spec.client_host == spec.db_host else stack.enter_context(reach(spec.client_host))
            outcome = run_trial(spec, db, client, should_cancel=should_cancel, patience=patience, on_wait=on_wait)
            if outcome.ok and spec.collect_perf and spec.repetition == PROFILED_REPETITION:
                profiled = replace(spec, profile_only=True, reset_data=False)
                add_profile(outcome, run_trial(profiled, db, client, should_cancel=should_cancel))
            return outcome
    except Exception as error:
        return _failed_attempt(spec, error)


def run_duet_attempt(
    specs: tuple[TrialSpec, TrialSpec],
    *,
    should_cancel: Callable[[], bool],
    patience: HostPatience | None = None,
    on_wait: WaitReport | None = None,
) -> tuple[TrialOutcome, TrialOutcome]:
    """A duet round's attempt (workers/duet.py): both sides on one DB host, pgbench there too, under one hold of the
    host-wide lock. Failures as run_attempt's, the same for both sides."""
    patience, on_wait = patience or HostPatience(), on_wait or unheard
    try:
        with connect_waiting(specs[0].db_host, patience=patience, on_wait=on_wait, should_stop=should_cancel) as db:
            ensure_private_work_dir(db)
            with host_lock(db):
                return run_duet(specs, db, should_cancel=should_cancel, patience=patience, on_wait=on_wait)
    except Exception as error:
        failed = _failed_attempt(specs[0], error)
        return failed, replace(failed, notes=list(failed.notes))


def _failed_attempt(spec: TrialSpec, error: Exception) -> TrialOutcome:
    if isinstance(error, HostLockBusy):
        logger.info("trial %s: %s", spec.trial_id, error)
        return TrialOutcome(ok=False, error=str(error), host_busy_with=error.holder, failure_kind=FailureKind.HOST_BUSY)
    if isinstance(error, HostGaveUp):
        logger.error("trial %s: %s", spec.trial_id, error)
        return TrialOutcome(
            ok=False, error=str(error), host_unreachable=True, failure_kind=FailureKind.HOST_UNREACHABLE
        )
    logger.exception("trial %s failed on its target", spec.trial_id)
    return TrialOutcome(ok=False, error=f"{type(error).__name__}: {error}", failure_kind=failure_kind_of(error))


def add_profile(outcome: TrialOutcome, profiled: TrialOutcome) -> None:
    """perf runs in an extra, unreported run of the same point, so it never touches the measured TPS."""
    if "perf_folded" in profiled.artifacts:
        outcome.artifacts["perf_folded"] = profiled.artifacts["perf_folded"]
    # Why perf gave nothing is noted in the profiled run: the trial's notes carry it to the evidence.
    outcome.notes.extend(note for note in profiled.notes if note.startswith("perf"))
    outcome.notes.append("perf: from an extra profiled run" if profiled.ok else f"perf run failed: {profiled.error}")


def stop_server_kept_for(spec: TrialSpec, *, on_wait: WaitReport = unheard) -> None:
    """Stop the server an earlier trial kept running for this one, which will not run (it was cancelled). Once
    connected, on_wait hears that the host answers."""
    try:
        with connect(spec.db_host) as db:
            on_wait(spec.db_host.name, None)
            stop_kept_server(spec, db)
    except Exception:
        logger.warning("could not stop the server kept for cancelled trial %s", spec.trial_id, exc_info=True)
