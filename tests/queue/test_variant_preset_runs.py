"""A seed's variant preset end to end through a real worker (issue 21, point 7): seed 003's HOT test, at the size this
2-core machine allows (scale 1, 1 client, 200 transactions instead of 10 clients x 10,000), with fillfactor 100 and 90
as the preset says; each run's table health shows the seed's comparison: the table at fillfactor 90 starts larger."""

import io

import pytest
from django.core.management import call_command

from benchdash.studies.models import Study, TrialEvidence
from benchdash.studies.preset_sync import presets_sync
from tests.queue.support import attempt_history, register_build, register_host, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_the_2008_hot_preset_runs_both_fillfactors_through_a_worker(shared_worker, local_target, installed_build):
    presets_sync()
    register_host(local_target)
    build = register_build(installed_build)
    args = ["--preset", "doruby-2008-hot", "--builds", build.name, "--host", "local", "--clients", "1", "--scale", "1"]
    args += ["--vary", "fillfactor=100,90", "--vary", "transactions=200", "--no-sar", "--no-wait-events"]
    call_command("queue_study", *args, stdout=io.StringIO(), stderr=io.StringIO())
    study = Study.objects.get(kind=Study.Kind.MEASURED)
    wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 300, "the HOT study")

    trials = list(study.trials.select_related("variant").order_by("position"))
    assert Study.objects.get(pk=study.pk).status == Study.Status.DONE, attempt_history(study)
    assert all(trial.transactions == 200 and "-t 200" in trial.command for trial in trials)
    accounts = {}
    for evidence in TrialEvidence.objects.filter(trial__study=study).select_related("trial__variant"):
        row = next(row for row in evidence.table_health if row["name"] == "pgbench_accounts")
        accounts[evidence.trial.variant.fillfactor] = row
    assert set(accounts) == {100, 90}
    # 「FILLFACTORの設定により初期時のデータサイズは、8.3.1の方が高い」
    assert accounts[90]["bytes_before"] > accounts[100]["bytes_before"]
    assert all(row["updates"] == 200 and row["pgstattuple_dead_percent_before"] == 0 for row in accounts.values())
