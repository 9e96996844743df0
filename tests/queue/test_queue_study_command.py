"""`manage.py queue_study`: prints the new study's id, and with --wait follows it to the end on a real worker."""

import dataclasses
import io

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from benchdash.studies.models import Study, Trial
from tests.queue.support import paced_reference_scenario, register_build, register_host

pytestmark = pytest.mark.django_db(transaction=True)
# What is refused never reaches the queue: those tests need no commit, and skip the flush of every table after each.
REFUSED = pytest.mark.django_db

ARGS = ["--host", "local", "--scenarios", "paced-reference", "--clients", "1,2", "--repetitions", "1"]


def queue_study(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("queue_study", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def local_rows(presets, local_target, installed_build):
    paced_reference_scenario()
    return register_host(local_target), register_build(installed_build)


def test_it_prints_the_id_of_the_study_it_queued(local_rows, broker):
    host, build = local_rows
    out, _ = queue_study(*ARGS, "--builds", build.major, "--duration", "2", "--scale", "1", "--seed", "3")
    study = Study.objects.get(kind=Study.Kind.MEASURED)
    assert out.strip() == str(study.pk)
    assert study.status == Study.Status.QUEUED and study.seed == 3 and study.baseline == build
    assert study.trials.count() == 2 and study.title == f"PostgreSQL {build.version}"


def test_it_queues_every_build_with_adaptive_repetitions_and_a_threshold(local_rows, broker, installed_build):
    host, build = local_rows
    twin = register_build(dataclasses.replace(installed_build, name="twin"))
    args = ["--builds", "all", "--max-repetitions", "6", "--threshold", "1.5", "--duration", "2"]
    queue_study(*ARGS, *args)
    study = Study.objects.get(kind=Study.Kind.MEASURED)
    assert set(study.builds.all()) == {build, twin}
    assert (study.repetitions, study.max_repetitions, study.threshold) == (1, 6, 0.015)
    assert study.trials.count() == 2 * 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--max-repetitions", "1"], "max_repetitions"),
        (["--repetitions", "4", "--max-repetitions", "4"], "More than the planned repetitions"),
        (["--threshold", "60"], "threshold"),
        (["--duration", "0"], "duration_s"),
        (["--duration", "ten"], "duration_s"),
        (["--clients", "1,1"], "given twice"),
        (["--setting", "no_such_setting=1"], "Unknown setting name: no_such_setting"),
        (["--setting", "archive_command=curl http://x | sh"], "archive_command runs a command"),
        (["--setting", "listen_addresses=*"], "listen_addresses decides where the server listens"),
        (["--setting", "shared_buffers=banana"], "shared_buffers = banana: PostgreSQL 15 wants a number"),
        (["--setting", "work_mem=4MB", "--setting", "work_mem=8MB"], "work_mem is set twice"),
        (["--clients", "1,²"], "² is not a positive whole number"),
        (["--clients", "100000000000000000000"], "is not a positive whole number"),
        (["--duration", "86400"], "At most 3000 s"),
        (["--seed", "2147483648"], "2147483647"),
        (["--scale", "１"], "digits 0 to 9"),
        (["--clients", "8,12", "--threads", "8"], "-j 8 at 12 clients: pgbench needs at least as many clients"),
        (["--threads", "quarter"], "quarter: write half, same"),
        (["--pgbench-build", "9.1"], "no registered build named or of major '9.1'"),
    ],
)
@REFUSED
def test_it_refuses_what_the_form_refuses_and_saves_nothing(local_rows, args, message):
    with translation.override("en"), pytest.raises(CommandError, match=message):
        queue_study(*ARGS, "--builds", local_rows[1].major, *args)
    assert not Study.objects.filter(kind=Study.Kind.MEASURED).exists()


@REFUSED
def test_it_refuses_an_unknown_build_major(local_rows):
    with pytest.raises(CommandError, match="no registered build named or of major '9.1'"):
        queue_study(*ARGS, "--builds", "9.1")


@pytest.mark.slow
def test_with_wait_it_shows_progress_and_exits_0_when_every_trial_succeeded(local_rows, shared_worker):
    build = local_rows[1]
    out, err = queue_study(*ARGS, "--builds", build.major, "--duration", "2", "--wait", "--no-sar", "--no-wait-events")
    study = Study.objects.get(kind=Study.Kind.MEASURED)
    assert out.strip() == str(study.pk)
    assert study.status == Study.Status.DONE
    assert set(study.trials.values_list("status", flat=True)) == {Trial.Status.SUCCEEDED}
    assert "2/2" in err
