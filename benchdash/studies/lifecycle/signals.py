"""What the store's side tells the queue: a trial is due, send its task once this transaction commits; a study
ended (done, failed or cancelled), send the tasks that follow its end once this transaction commits.

A study's end does no work of its own in the process that ends it, a cancel's web request included: each receiver of
study_ended only sends a task (the clean-up of its DB hosts, the change points, a bisect's next step, its cloud
instances' termination), each idempotent, and a transaction that rolls back sends nothing.

The store says what must run; a message only says "now". The queue (benchdash/queue/dispatch.py) receives
trial_due and sends the task; studies never imports the queue, so that following a trial from its task runs
one way: queue, then studies, then the engine.
"""

from collections.abc import Callable, Iterable
from functools import partial

from django.db import transaction
from django.dispatch import Signal

from benchdash.store_clock import StoreNow
from benchdash.studies.models import Study, Trial, Variant

# Sent after commit with trial_id, queue (the DB host's name, or None), countdown and report.
trial_due = Signal()
# Sent after commit with study_id, host_name (its DB host's) and host_names (every DB host of its variants).
study_ended = Signal()
# Sent after commit with scenario_ids (a sorted list) when those scenarios' series changed otherwise than by a study's
# end: published results imported, a study marked official or not (then with its study_id, else None). The queue
# recomputes their change points, and raises the alerts of a study marked official.
series_changed = Signal()


def send_trial_after_commit(
    trial_id: int, *, countdown: int = 0, report: Callable[[bool], object] | None = None
) -> None:
    """Mark the pending trial as having a task on its way, and have its task sent after commit.

    report, if given, hears whether the broker took it (only when the transaction commits).
    """
    Trial.objects.filter(pk=trial_id, status=Trial.Status.PENDING).update(heartbeat_at=StoreNow())
    host_name = Trial.objects.filter(pk=trial_id).values_list("host__name", flat=True).first()
    transaction.on_commit(
        partial(
            trial_due.send, sender=Trial, trial_id=trial_id, host_name=host_name, countdown=countdown, report=report
        )
    )


def send_study_ended_after_commit(study_id: int) -> None:
    """Have study_ended sent once this transaction commits, with the study's DB host and every DB host its variants
    ran on (host_names): its receivers send the tasks of its end (benchdash/queue/study_end.py, changes.py,
    benchdash/cloud/study_end.py)."""
    host_name = Study.objects.filter(pk=study_id).values_list("db_host__name", flat=True).first()
    variant_hosts = Variant.objects.filter(study_id=study_id, db_host__isnull=False)
    names = {host_name, *variant_hosts.values_list("db_host__name", flat=True)}
    host_names = sorted(name for name in names if name)
    if host_name:
        ended = partial(study_ended.send, sender=Study, study_id=study_id, host_name=host_name, host_names=host_names)
        transaction.on_commit(ended)


def send_series_changed_after_commit(scenario_ids: Iterable[int], *, study_id: int | None = None) -> None:
    """Have series_changed sent once this transaction commits."""
    changed = partial(series_changed.send, sender=Study, scenario_ids=sorted(set(scenario_ids)), study_id=study_id)
    transaction.on_commit(changed)
