"""Variants (issue 21, points 1, 3 and 4): --vary parsed and refused with reasons, the cross product and its baseline,
each variant checked before anything is queued (English and Japanese), a study of builds migrated to variants with
its page and CSV unchanged, and a study on two DB hosts that starts on both and says which trials overlapped."""

import importlib
import io
from datetime import timedelta

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone, translation

from benchdash.studies.admin import VariantAdminForm
from benchdash.studies.forms import StudyForm
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.signals import trial_due
from benchdash.studies.lifecycle.specs import trial_spec
from benchdash.studies.models import Study, StudyPoint, Trial, Variant
from benchdash.studies.overlaps import trial_overlaps
from benchdash.studies.results.store import points_refresh
from benchdash.studies.variant_design import parse_axes, parse_axis
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory

pytestmark = pytest.mark.django_db
fill_variants = importlib.import_module("benchdash.studies.migrations.0021_fill_variants").fill_variants


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


@pytest.fixture
def rows():
    local = HostFactory(name="local", address="", facts={"cpu_threads": 2, "architecture": "x86_64"})
    target2 = HostFactory(name="target2", facts={"cpu_threads": 16})
    pg15 = BuildFactory(name="pg15", version="15.20", bin_dir="/usr/lib/postgresql/15/bin")
    pg10 = BuildFactory(name="pg10", version="10.23", bin_dir="/usr/lib/postgresql/10/bin")
    reference = ScenarioFactory(slug="pgecons-update", builtin="simple-update", reset="once", fillfactor=100)
    return {"local": local, "target2": target2, "pg15": pg15, "pg10": pg10, "reference": reference}


def form(rows, *, builds=("pg15",), baseline="pg15", vary="", baseline_variant="", clients="1,2", **changes):
    data = {
        "title": "variants",
        "year": "2026",
        "db_host": rows["local"].pk,
        "builds": [rows[name].pk for name in builds],
        "baseline": rows[baseline].pk,
        "scenarios": [rows["reference"].pk],
        "client_levels": clients,
        "repetitions": "3",
        "duration_s": "1",
        "scale": "1",
        "pg_settings": "shared_buffers = 32MB",
        "seed": "21",
        "vary": vary,
        "baseline_variant": baseline_variant,
        **changes,
    }
    return StudyForm(data)


# -- parsing ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "field_values"),
    [
        ("checksums=off,on", [False, True]),
        ("cpus=1,2", [1, 2]),
        ("fillfactor=100,80", [100, 80]),
        ("wal_segsize=16,64", [16, 64]),
        ("transactions=10,1000", [10, 1000]),
        ("connect=off,on", [False, True]),
        ("setting:shared_buffers=128MB,1GB", [{"shared_buffers": "128MB"}, {"shared_buffers": "1GB"}]),
    ],
)
def test_each_axis_is_read_into_its_variant_field(rows, line, field_values):
    bound = form(rows, vary=line)
    assert bound.is_valid(), bound.errors
    variants = bound.design().variants()
    axis = parse_axis(line)
    fields = {"checksums": "data_checksums", "cpus": "cpus", "fillfactor": "fillfactor"}
    fields |= {"wal_segsize": "wal_segment_mb", "transactions": "transactions", "connect": "connect_each_transaction"}
    field = fields.get(axis.name, "pg_settings")
    assert [getattr(variant, field) for variant in variants] == field_values
    assert [variant.label for variant in variants] == [f"pg15 {axis.name}={value}" for value in axis.values]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["checksums=off,maybe"], "maybe: write off or on."),
        (["cpus=0,2"], "0: a whole number from 1 to 4096."),
        (["fillfactor=100,5"], "5: a whole number from 10 to 100."),
        (["wal_segsize=16,48"], "48: a power of 2 from 1 to 1024 (MB)."),
        (["locale=C;rm -rf"], "C;rm -rf: letters, digits and . _ @ - only."),
        (["colour=red,blue"], "colour: not an axis benchdash can vary"),
        (["checksums"], "checksums: write name=value,value"),
        (["cpus=1,1"], "cpus=1,1: a value is given twice."),
        (["cpus=1", "cpus=2"], "cpus: one line per axis."),
        (["host=local,nowhere"], "nowhere: no host of that name"),
        (["setting:Bad Name=1"], "setting:bad name: not a setting name."),
    ],
)
def test_a_bad_axis_is_refused_naming_what_is_wrong(rows, lines, message):
    with pytest.raises(ValidationError) as refused:
        parse_axes(lines)
    assert message in refused.value.messages[0]


def test_axes_cross_with_each_other_and_the_builds_and_the_baseline_takes_the_picked_values(rows):
    bound = form(
        rows,
        builds=("pg15", "pg10"),
        baseline="pg10",
        vary="checksums=off,on\ncpus=1,2",
        baseline_variant="cpus=2",
    )
    assert bound.is_valid(), bound.errors
    variants = bound.design().variants()
    assert len(variants) == 2 * 2 * 2
    assert [variant.label for variant in variants if variant.baseline] == ["pg10 checksums=off cpus=2"]
    assert bound.preview()["trials"] == 8 * 2 * 3  # variants x client levels x repetitions


def test_a_variant_the_host_or_the_build_cannot_run_is_refused_before_anything_is_queued(rows):
    bound = form(rows, vary="cpus=1,4\nwal_segsize=16\nchecksums=on")
    assert not bound.is_valid()
    # One wal_segsize value and one checksums value: not in the labels, still checked (15 has both options).
    assert bound.errors["vary"] == ["pg15 cpus=4: 4 CPUs, and local has 2."]
    assert Study.objects.count() == 0

    bound = form(rows, builds=("pg10",), baseline="pg10", vary="wal_segsize=16,64", db_host=rows["target2"].pk)
    assert not bound.is_valid()
    assert bound.errors["vary"] == [
        "pg10 wal_segsize=16: the initdb of pg10 has no --wal-segsize (PostgreSQL 11 and later).",
        "pg10 wal_segsize=64: the initdb of pg10 has no --wal-segsize (PostgreSQL 11 and later).",
    ]
    archive = BuildFactory(name="pg16-archive", version="16.4", kind="archive", bin_dir="")
    arm = HostFactory(name="arm", facts={"architecture": "aarch64"})
    bound = form({**rows, "archive": archive}, builds=("archive",), baseline="archive", vary="host=local,arm")
    assert not bound.is_valid()
    assert bound.errors["vary"] == [
        f"pg16-archive host=arm: pg16-archive is built for x86_64 Linux, and {arm} is aarch64."
    ]


def test_a_variants_settings_pass_the_settings_checks_of_every_study(rows):
    bound = form(rows, vary="setting:shared_buffers=128MB,-5")
    assert not bound.is_valid()
    assert any(error.startswith("pg15 setting:shared_buffers=-5: ") for error in bound.errors["vary"])


def test_the_refusals_are_in_japanese_too(client, member, rows):
    data = {**form(rows, vary="cpus=1,4").data, "preview": "1"}
    with translation.override("ja"):
        page = client.post(reverse("studies:new"), data, HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "pg15 cpus=4: CPU 4 個を指定しましたが、local には 2 個しかありません。" in page


# -- queueing --------------------------------------------------------------------------------------
def test_queue_study_varies_and_takes_the_baseline_from_the_command(rows):
    args = ["--builds", "pg15", "--host", "local", "--scenarios", "pgecons-update", "--clients", "1,2"]
    args += ["--repetitions", "3", "--duration", "1", "--vary", "checksums=off,on", "--vary", "fillfactor=100,80"]
    call_command("queue_study", *args, "--baseline", "pg15 checksums=on", stdout=io.StringIO(), stderr=io.StringIO())
    study = Study.objects.get()
    labels = list(study.variants.values_list("label", "baseline"))
    assert [label for label, _ in labels] == [
        "pg15 checksums=off fillfactor=100",
        "pg15 checksums=off fillfactor=80",
        "pg15 checksums=on fillfactor=100",
        "pg15 checksums=on fillfactor=80",
    ]
    assert [label for label, baseline in labels if baseline] == ["pg15 checksums=on fillfactor=100"]
    assert study.trials.count() == 4 * 2 * 3 and not study.trials.filter(variant__isnull=True).exists()
    assert study.baseline == rows["pg15"]
    with pytest.raises(CommandError, match="checksums=maybe: not one of the variants' axes and values"):
        call_command("queue_study", *args, "--baseline", "checksums=maybe", stdout=io.StringIO())


def test_a_study_on_two_hosts_starts_one_trial_on_each_and_continues_each_host_on_its_own(
    rows, django_capture_on_commit_callbacks
):
    bound = form(rows, vary="host=local,target2", clients="1")
    assert bound.is_valid(), bound.errors
    study = services.study_create(design=bound.design())
    assert {trial.host.name for trial in study.trials.all()} == {"local", "target2"}
    sent: list[str] = []

    def heard(*, trial_id, host_name, **_):
        sent.append(host_name)

    trial_due.connect(heard, dispatch_uid="test-two-hosts")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            services.study_enqueue(study=study)
        assert sorted(sent) == ["local", "target2"]
        first = study.trials.filter(host__name="target2").order_by("position").first()
        Trial.objects.filter(pk=first.pk).update(status=Trial.Status.SUCCEEDED)
        sent.clear()
        with django_capture_on_commit_callbacks(execute=True):
            following = services.study_continue(study_id=study.pk, host_id=first.host_id)
        assert sent == ["target2"] and following.host_id == first.host_id
    finally:
        trial_due.disconnect(dispatch_uid="test-two-hosts")


def test_the_page_says_which_trials_overlapped(client, member, rows):
    study = StudyFactory(db_host=rows["local"], builds=[rows["pg15"]])
    variants = {
        "local": Variant.objects.of_build(study, rows["pg15"]),
        "target2": Variant.objects.create(
            study=study, build=rows["pg15"], label="pg15 on target2", db_host=rows["target2"]
        ),
    }
    assert trial_overlaps(study) == []  # no trial yet
    start = timezone.now()
    times = [("local", 0, 10), ("target2", 5, 12), ("local", 10, 20), ("target2", 30, 40)]
    for position, (host, begin, end) in enumerate(times):
        Trial.objects.create(
            study=study,
            build=rows["pg15"],
            variant=variants[host],
            scenario=rows["reference"],
            host=rows[host],
            clients=1,
            repetition=position,
            position=position,
            status=Trial.Status.SUCCEEDED,
            started_at=start + timedelta(seconds=begin),
            finished_at=start + timedelta(seconds=end),
        )
    overlaps = trial_overlaps(study)
    assert [(o.first.position, o.second.position, o.seconds) for o in overlaps] == [(0, 1, 5.0), (1, 2, 2.0)]
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Trials that ran at the same time" in page
    assert '#0 pg15 (local)</td><td>#1 pg15 on target2 (target2)</td><td class="num">5.0</td>' in page
    trials_csv = b"".join(client.get(reverse("studies:trials_csv", args=[study.pk])).streaming_content).decode()
    lines = [row.split(",") for row in trials_csv.lstrip("\ufeff").splitlines()]
    variant = lines[0].index("variant")  # columns are appended after it (warmup)
    assert [(row[3], row[variant]) for row in lines] == [("host", "variant")] + [
        ("local", "pg15"),
        ("target2", "pg15 on target2"),
        ("local", "pg15"),
        ("target2", "pg15 on target2"),
    ]


# -- the migration ---------------------------------------------------------------------------------
def test_a_study_of_builds_migrates_to_variants_and_its_page_and_csv_stay_the_same(client, member, rows):
    pg10, pg15, reference = rows["pg10"], rows["pg15"], rows["reference"]
    study = StudyFactory(baseline=pg10, client_levels=[1, 2])
    study.builds.set([pg10, pg15])
    study.scenarios.set([reference])
    # The rows as they were before variants: trials without one (bulk_create passes no factory).
    Trial.objects.bulk_create(
        Trial(study=study, build=build, scenario=reference, clients=clients, repetition=r, position=p, tps=tps)
        for p, (build, clients, r, tps) in enumerate(
            (build, clients, r, (100 if build == pg10 else 110) * clients + r)
            for build in (pg10, pg15)
            for clients in (1, 2)
            for r in (1, 2, 3)
        )
    )
    study.trials.update(status=Trial.Status.SUCCEEDED)
    points_refresh(study_id=study.pk)
    assert not StudyPoint.objects.filter(study=study, variant__isnull=False).exists()
    before_page, before_csv = _page_and_csv(client, study)

    fill_variants(apps, None)

    variants = list(study.variants.order_by("label").values_list("label", "build_id", "baseline"))
    assert variants == [("pg10", pg10.pk, True), ("pg15", pg15.pk, False)]
    assert not study.trials.filter(variant__isnull=True).exists()
    assert not StudyPoint.objects.filter(study=study, variant__isnull=True).exists()
    assert points_refresh(study_id=study.pk) == 4
    assert _page_and_csv(client, study) == (before_page, before_csv)
    summary = before_csv[0].splitlines()
    assert len(summary) == 1 + 4 and any(",pg15," in row and ",112" in row for row in summary[1:])
    assert len(before_page) == 1 and "pg10" in before_page[0] and "pg15" in before_page[0]


def _page_and_csv(client, study):
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    tables = page.split('<table class="data comparison')[1:]
    csv = [
        b"".join(client.get(reverse(f"studies:{name}", args=[study.pk])).streaming_content).decode()
        for name in ("summary_csv", "trials_csv")
    ]
    return [table.split("</table>")[0] for table in tables], csv


def test_the_admin_checks_a_variant_as_the_form_does_and_shows_the_study_s_variants(admin_client, rows):
    study = StudyFactory(db_host=rows["local"], builds=[rows["pg15"]], baseline=rows["pg15"])
    variant = Variant.objects.get(study=study)
    data = {"position": "1", "label": "pg15 cpus=8", "build": rows["pg15"].pk, "cpus": "8", "pg_settings": ""}
    refused = VariantAdminForm(data, instance=Variant(study=study))
    assert not refused.is_valid()
    assert refused.errors["__all__"] == ["pg15 cpus=8: 8 CPUs, and local has 2."]
    assert VariantAdminForm({**data, "cpus": "2"}, instance=Variant(study=study)).is_valid()
    page = admin_client.get(reverse("admin:studies_study_change", args=[study.pk])).content.decode()
    assert f'value="{variant.label}"' in page and "variants-TOTAL_FORMS" in page


def test_every_check_of_a_study_applies_to_each_variant_as_it_sees_the_study(rows):
    bound = form(rows, vary="setting:max_connections=100,5", clients="1,8")
    assert not bound.is_valid()
    assert bound.errors["vary"] == [
        "pg15 setting:max_connections=5: 8 is above max_connections less the reserved connections (2)."
    ]


def test_a_trial_reuses_the_facts_its_own_db_host_gave_never_another_hosts(rows):
    bound = form(rows, vary="host=local,target2", clients="1")
    assert bound.is_valid(), bound.errors
    study = services.study_create(design=bound.design())
    local_trials = study.trials.filter(host=rows["local"]).order_by("position")
    remote_trials = study.trials.filter(host=rows["target2"]).order_by("position")
    Trial.objects.filter(pk=remote_trials[0].pk).update(host_facts={"cpu_threads": 16}, finished_at=timezone.now())
    Trial.objects.filter(pk=local_trials[0].pk).update(host_facts={"cpu_threads": 2}, finished_at=timezone.now())
    assert trial_spec(local_trials[1]).known_facts == {"cpu_threads": 2}
    assert trial_spec(remote_trials[1]).known_facts == {"cpu_threads": 16}
    assert trial_spec(remote_trials[1]).db_host.name == "target2"


def test_the_preview_lists_the_variants_and_counts_their_trials_before_anything_is_queued(client, member, rows):
    data = {**form(rows, vary="checksums=off,on\ncpus=1,2", baseline_variant="cpus=2").data, "preview": "1"}
    page = client.post(reverse("studies:new"), data, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    listed = page.split('data-preview="variants"')[1].split("</dd>")[0]
    assert listed.count("<li>") == 4
    assert "pg15 checksums=off cpus=2 · baseline" in listed
    assert '<dd data-preview="trials">24' in page  # 4 variants x 2 client levels x 3 repetitions
    assert Study.objects.count() == 0
