"""The seeds' variant presets end to end through a real worker (issue 21, point 7), at the size this 2-core machine
allows. Seed 003's HOT test (scale 1, 1 client, 200 transactions instead of 10 clients x 10,000), with fillfactor 100
and 90 as the preset says: each run's table health shows the seed's comparison, the table at fillfactor 90 starts
larger. Then every other design with its own axis: the CPU counts cut to 1 and 2, and the hosts a design compares
(a physical server and a KVM guest, two guests, Windows and Linux) stood in for by SSH targets on this machine, one
per host, so that the study runs on each (two hosts at once: tests/queue/test_two_hosts_at_once.py)."""

import io
from contextlib import ExitStack

import pytest
from django.core.management import call_command

from benchdash.studies.models import Study, TrialEvidence
from benchdash.studies.preset_sync import presets_sync
from tests.queue.support import attempt_history, register_build, register_host, wait_for
from tests.sshd import sshd_server

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_the_2008_hot_preset_runs_both_fillfactors_through_a_worker(shared_worker, local_target, installed_build):
    presets_sync()
    register_host(local_target)
    build = register_build(installed_build)
    args = ["--preset", "doruby-2008-hot", "--builds", build.name, "--host", "local", "--clients", "1", "--scale", "1"]
    args += ["--vary", "fillfactor=100,90", "--vary", "transactions=200", "--no-sar", "--no-wait-events"]
    args += ["--warmup-runs", "0"]  # each fillfactor's one run starts from its fresh data
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


# slug: the axes and settings in place of the preset's where it asks more than this machine has (--vary replaces all
# of a preset's axes, so a host axis is given again beside the CPU count), and the hosts its variants name.
DESIGNS = {
    "pgecons-2014-checksums": ([], ()),
    "pgecons-2014-core-scalability": (["--vary", "cpus=1,2"], ()),
    "doruby-2008-transactions": (["--vary", "transactions=10,100"], ()),
    "pgecons-2014-kvm-update": (["--vary", "host=physical,kvm-guest", "--vary", "cpus=1"], ("physical", "kvm-guest")),
    "pgecons-2014-kvm-two-guests": (
        ["--vary", "host=kvm-guest-1,kvm-guest-2", "--vary", "cpus=1"],
        ("kvm-guest-1", "kvm-guest-2"),
    ),
    # The seed's 64GB of shared_buffers on hosts whose memory the store does not know yet: the server refused it.
    "pgecons-2020-os-reference": (
        ["--setting", "shared_buffers=128MB", "--setting", "max_connections=20"],
        ("windows", "linux"),
    ),
}
SMALL = ["--clients", "1", "--scale", "1", "--repetitions", "1", "--duration", "1", "--no-sar", "--no-wait-events"]
SMALL += ["--warmup-runs", "0"]


@pytest.mark.parametrize("slug", DESIGNS)
def test_each_seed_design_runs_through_a_worker_at_this_machine_s_size(
    shared_worker, local_target, installed_build, slug
):
    presets_sync()
    overrides, host_names = DESIGNS[slug]
    build = register_build(installed_build)
    with ExitStack() as stack:
        stand_ins = [stack.enter_context(sshd_server(name, f"bd-v{index}")) for index, name in enumerate(host_names)]
        hosts = [register_host(server.spec).name for server in stand_ins] or [register_host(local_target).name]
        args = ["--preset", slug, "--builds", build.name, "--host", hosts[0], *SMALL, *overrides]
        call_command("queue_study", *args, stdout=io.StringIO(), stderr=io.StringIO())
        study = Study.objects.get(kind=Study.Kind.MEASURED)
        wait_for(lambda: Study.objects.get(pk=study.pk).status not in ("queued", "running"), 300, slug)

    trials = list(study.trials.select_related("variant", "host"))
    assert Study.objects.get(pk=study.pk).status == Study.Status.DONE, attempt_history(study)
    assert all(trial.tps > 0 for trial in trials)
    assert len({trial.variant_id for trial in trials}) == study.variants.count() >= 2
    assert {trial.host.name for trial in trials} == set(hosts)
