"""A study queued from a seed's preset, from the form or `queue_study --preset`, reproduces that seed's method:
scale, duration, repetitions, run order, threads, prewarm, data reset, and the page lists the procedure used."""

import io

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.urls import reverse

from benchdash.studies.models import Study, StudyPreset
from tests.factories import BuildFactory, HostFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows(client):
    call_command("load_presets", stdout=io.StringIO())
    user = User.objects.create_user("member")
    user.user_permissions.add(Permission.objects.get(codename="add_study"))
    client.force_login(user)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    old, new = BuildFactory(name="pg13", version="13.23"), BuildFactory(name="pg15", version="15.14")
    return {"host": HostFactory(name="local", address=""), "old": old, "new": new}


def queue_from_preset(client, rows, slug: str, **typed: str) -> Study:
    """The form posted as a page without script posts it: the preset chosen, its fields left empty."""
    data = {
        "title": f"from {slug}",
        "year": "2026",
        "db_host": rows["host"].pk,
        "builds": [rows["old"].pk, rows["new"].pk],
        "baseline": rows["old"].pk,
        "client_preset": StudyPreset.objects.get(slug=slug).pk,
        "seed": "5",
        "queue": "1",
        **typed,
    }
    response = client.post(reverse("studies:new"), data)
    assert response.status_code == 302, response.context["form"].errors
    return Study.objects.get(title=f"from {slug}")


def test_the_2021_preset_gives_its_scale_and_the_2021_method(client, rows):
    study = queue_from_preset(client, rows, "pgecons-2021-update")

    assert (study.scale, study.duration_s, study.repetitions, study.run_order) == (2000, 60, 3, "random")
    assert study.preset.slug == "pgecons-2021-update"  # what the quality gate holds it against
    assert study.client_levels == [1, 16, 32, 64, 96, 128, 160, 192, 288, 432]
    assert study.pg_settings["shared_buffers"] == "40GB"
    assert list(study.scenarios.values_list("slug", flat=True)) == ["pgecons-update"]
    trials = list(study.trials.order_by("position"))
    # No seed states a warm-up run: the preset turns one on, one uncounted run per cell before round 1.
    assert study.warmup_runs == 1 and len(trials) == 2 * 10 * (1 + 3)
    assert [trial.repetition for trial in trials if trial.warmup] == [0] * 2 * 10 == [t.repetition for t in trials[:20]]
    assert {trial.threads for trial in trials} == {1}  # seed 000 gives no -j: pgbench's default
    assert not any(trial.prewarm for trial in trials)  # nor pg_prewarm
    assert all(trial.reset_data for trial in trials)  # 「試行の都度$PGDATAを作り直す」
    rounds = [[(t.build_id, t.clients) for t in trials if t.repetition == r] for r in (1, 2, 3)]
    assert rounds[0] != sorted(rounds[0]) and sorted(rounds[0]) == sorted(rounds[1])  # random per round


def test_the_windows_update_preset_runs_the_windows_method(client, rows):
    study = queue_from_preset(client, rows, "pgecons-2020-windows-update")

    assert (study.scale, study.run_order) == (2000, "ascending")
    assert list(study.scenarios.values_list("slug", flat=True)) == ["pgecons-windows-update"]
    trials = list(study.trials.order_by("position"))
    first_round = [(t.build_id, t.clients) for t in trials if t.repetition == 1]
    levels = [1, 16, 32, 64, 96, 128, 160, 192]
    assert first_round == [(rows["old"].pk, c) for c in levels] + [(rows["new"].pk, c) for c in levels]
    assert all(t.threads == max(1, t.clients // 2) for t in trials)  # 「スレッド数は半分」
    starts = [(t.repetition, t.clients) for t in trials if t.prewarm]
    assert starts == [
        (r, 1) for r in (0, 1, 2, 3) for _build in (1, 2)
    ]  # the warm-up round is a round  # 「各測定周の初めに」
    assert [t.reset_data for t in trials] == [t.prewarm for t in trials]  # data rebuilt each round
    scenario = study.scenarios.get()
    assert (scenario.fillfactor, scenario.checkpoint_vacuum, scenario.reset_vacuum_full) == (None, True, True)


def test_what_the_member_types_wins_over_the_preset(client, rows):
    study = queue_from_preset(
        client,
        rows,
        "pgecons-2021-reference",
        scale="1",
        duration_s="3",
        client_levels="1,2",
        repetitions="1",
        warmup_runs="0",
    )

    assert (study.scale, study.duration_s, study.client_levels, study.repetitions) == (1, 3, [1, 2], 1)
    assert study.warmup_runs == 0 and not study.trials.filter(warmup=True).exists()
    assert study.run_order == "random" and study.pg_settings["max_connections"] == "500"


def test_the_study_page_lists_the_procedure_used(client, rows):
    study = queue_from_preset(client, rows, "pgecons-2020-windows-update", scale="1", duration_s="3")

    page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    procedure = page.split('id="procedure"')[1].split("</section>")[0]
    for step, value in [
        ("Run order", "fixed: each round in the same order, client levels ascending"),
        ("Scale", "1"),
        ("Duration", "3 s"),
        ("Threads (-j)", "clients / 2 (at least 1)"),
        ("Prewarm (pg_prewarm)", "at the start of each round"),
        ("Fillfactor", "100 (pgbench&#x27;s default)"),
        ("Data rebuilt", "every round; then VACUUM FULL, CHECKPOINT, ANALYZE"),
        ("After each run", "CHECKPOINT, then VACUUM"),
    ]:
        assert f"<dt>{step}</dt><dd>{value}</dd>" in procedure


def test_queue_study_takes_the_design_and_procedure_from_a_preset(rows):
    out = io.StringIO()
    call_command(
        "queue_study", "--preset", "pgecons-2021-reference", "--builds", "pg13,pg15", "--duration", "3", stdout=out
    )

    study = Study.objects.get(pk=int(out.getvalue()))
    assert (study.scale, study.duration_s, study.repetitions, study.run_order) == (2000, 3, 3, "random")
    assert study.preset.slug == "pgecons-2021-reference"
    assert study.client_levels == [1, 16, 32, 64, 96, 128, 160, 192]
    assert list(study.scenarios.values_list("slug", flat=True)) == ["pgecons-reference"]
    assert study.pg_settings["shared_buffers"] == "40GB"


def test_queue_study_sets_each_given_setting_over_the_presets_postgresql_conf(rows):
    out = io.StringIO()
    call_command(
        "queue_study",
        *("--preset", "pgecons-2020-windows-update", "--builds", "pg13", "--setting", "shared_buffers=128MB"),
        stdout=out,
    )

    study = Study.objects.get(pk=int(out.getvalue()))
    assert study.pg_settings["shared_buffers"] == "128MB"
    assert (study.pg_settings["checkpoint_timeout"], study.pg_settings["maintenance_work_mem"]) == ("1d", "2047MB")


def test_queue_study_without_a_preset_still_defaults_to_scale_1_and_60_seconds(rows):
    out = io.StringIO()
    call_command("queue_study", "--scenarios", "pgecons-reference", "--clients", "1", "--builds", "pg13", stdout=out)

    study = Study.objects.get(pk=int(out.getvalue()))
    assert (study.scale, study.duration_s, study.repetitions, study.run_order) == (1, 60, 3, "random")
    assert study.preset is None


def test_the_seed_003_preset_gives_a_study_of_the_mean_of_its_10_runs(client, rows):
    study = queue_from_preset(client, rows, "doruby-2008-transactions", duration_s="1")
    assert (study.statistic, study.repetitions, study.scale) == ("mean", 10, 25)
    page = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert "<dt>Statistic</dt><dd>mean</dd>" in page
