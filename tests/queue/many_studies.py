"""Many studies queued at once on many hosts, run by a few workers: every trial runs once and none is lost. The
targets are local sshd servers (tests/sshd.py), each with its own user and work dir. Used by
tests/queue/test_many_studies_at_once.py (small) and bench/many_studies_at_once.py (20 hosts, 4 workers, 100
studies)."""

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from io import StringIO

from django.core.management import call_command
from django.db.models import Count, Max, Min, Q

from benchdash.studies.models import Attempt, Study, Trial
from tests.sshd import SshServer, sshd_server


@contextmanager
def many_targets(count: int) -> Iterator[list[SshServer]]:
    """count targets (t01, t02, ...), each its own sshd letting in its own user (bd-t01 ...); removed at the end."""
    with ExitStack() as stack:
        yield [stack.enter_context(sshd_server(f"t{number:02}", f"bd-t{number:02}")) for number in range(1, count + 1)]


def queue_short_study(host: str, title: str, duration_s: int = 1, scenario: str = "pgbench-select-only") -> int:
    """One study of one trial (1 client, scale 1, no collectors) on host, queued; its id."""
    out = StringIO()
    call_command(
        "queue_study", "--host", host, "--builds", "15", "--scenarios", scenario, "--clients", "1",
        "--repetitions", "1", "--duration", str(duration_s), "--scale", "1", "--no-sar", "--no-wait-events",
        "--title", title, stdout=out,
    )  # fmt: skip
    return int(out.getvalue().strip())


def queue_at_once(hosts: list[str], studies: int, scenario: str = "pgbench-select-only") -> list[int]:
    """studies short studies, dealt round the hosts, all queued before any worker starts."""
    return [
        queue_short_study(hosts[number % len(hosts)], f"at once {number}", scenario=scenario)
        for number in range(studies)
    ]


def still_running(study_ids: list[int]) -> bool:
    return Study.objects.filter(pk__in=study_ids, status__in=(Study.Status.QUEUED, Study.Status.RUNNING)).exists()


def outcome(study_ids: list[int]) -> dict[str, object]:
    """What became of the studies' trials: how many succeeded, ran more than once, have other than one attempt
    row, the workers that ran them, and the wall time from the first start to the last finish."""
    trials = Trial.objects.filter(study__in=study_ids)
    attempts = trials.annotate(rows=Count("attempt_log"))
    span = trials.aggregate(first=Min("started_at"), last=Max("finished_at"))
    return {
        "studies done": Study.objects.filter(pk__in=study_ids, status=Study.Status.DONE).count(),
        "trials": trials.count(),
        "succeeded": trials.filter(status=Trial.Status.SUCCEEDED).count(),
        "claimed more than once": trials.filter(attempts__gt=1).count(),
        "attempt rows not one": attempts.filter(~Q(rows=1)).count(),
        "attempts lost or retried": Attempt.objects.filter(
            trial__study__in=study_ids, result__in=(Attempt.Result.LOST, Attempt.Result.RETRIED)
        ).count(),
        "workers": sorted(set(trials.values_list("worker", flat=True))),
        "wall s": (span["last"] - span["first"]).total_seconds() if span["last"] else None,
    }
