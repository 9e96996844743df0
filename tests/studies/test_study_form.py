"""The new-study form, through the real view: every bad value is refused at its field and nothing is saved."""

from html import escape

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from benchdash.inventory.models import Build
from benchdash.studies.models import Study, Trial
from tests.factories import BuildFactory, HostFactory, ScenarioFactory

pytestmark = pytest.mark.django_db

DEBIAN_15 = "/usr/lib/postgresql/15/bin"


@pytest.fixture
def setup_rows():
    local = HostFactory(name="local", address="")
    new = BuildFactory(name="pg15-a", version="15.20", bin_dir=DEBIAN_15)
    old = BuildFactory(name="pg15-b", version="15.19", bin_dir=DEBIAN_15)
    reference = ScenarioFactory(slug="pgecons-reference", builtin="", script="SELECT 1;", reset="once")
    update = ScenarioFactory(slug="pgecons-update", builtin="", script="SELECT 1;", fillfactor=80, reset="trial")
    tpcb = ScenarioFactory(slug="pgbench-tpcb", builtin="tpcb-like", reset="round")
    return {"local": local, "new": new, "old": old, "reference": reference, "update": update, "tpcb": tpcb}


@pytest.fixture(autouse=True)
def english(client):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"


def valid_data(rows, **changes):
    data = {
        "title": "15 vs 15",
        "year": "2025",
        "db_host": rows["local"].pk,
        "client_host": "",
        "builds": [rows["new"].pk, rows["old"].pk],
        "baseline": rows["old"].pk,
        "scenarios": [rows["reference"].pk, rows["update"].pk],
        "client_levels": "1,2",
        "repetitions": "3",
        "duration_s": "2",
        "scale": "1",
        "fillfactor": "",
        "pg_settings": "shared_buffers = 128MB\nmax_connections = 100",
        "collect_sar": "on",
        "seed": "",
    }
    data.update(changes)
    return data


def post(client, data, action="queue"):
    return client.post(reverse("studies:new"), {**data, action: "1"})


def test_it_sends_an_anonymous_visitor_to_the_login_page(client, setup_rows):
    response = client.get(reverse("studies:new"))
    assert response.status_code == 302
    assert "login" in response["Location"]


def test_it_refuses_a_user_without_the_add_study_permission(client, setup_rows):
    client.force_login(User.objects.create_user("reader", password="pw-reader-1"))
    assert client.get(reverse("studies:new")).status_code == 403


def test_it_previews_the_trial_count_and_time_without_saving(client, member, setup_rows):
    response = post(client, valid_data(setup_rows, seed="5"), action="preview")
    assert response.status_code == 200
    assert response.context["preview"]["trials"] == 2 * 2 * 2 * 3
    assert response.context["preview"]["minutes"] > 0
    assert b'name="queue"' in response.content
    assert Study.objects.count() == 0


def test_the_preview_shows_the_clients_the_settings_allow_and_the_disk_against_the_hosts_facts(
    client, member, setup_rows
):
    setup_rows["local"].facts = {"memory_bytes": 8 * 2**30, "disk_free_bytes": 20 * 2**30}
    setup_rows["local"].save()
    response = post(client, valid_data(setup_rows, seed="5"), action="preview")
    preview = response.context["preview"]
    assert (preview["connection_limit"], preview["disk_free"], preview["memory"]) == (97, "20.0 GiB", "8.0 GiB")
    assert preview["data_fits_in_memory"] is True
    page = response.content.decode()
    assert "up to 97 (max_connections less the reserved connections)" in page
    assert f"about {preview['disk_needed']}; 20.0 GiB free on the DB host" in page


def test_the_preview_says_when_the_hosts_free_space_is_not_known(client, member, setup_rows):
    response = post(client, valid_data(setup_rows, seed="5"), action="preview")
    assert response.context["preview"]["disk_free"] is None
    assert "free space is not known yet" in response.content.decode()


def test_it_draws_a_seed_when_none_is_given_and_keeps_it_for_the_queue_step(client, member, setup_rows):
    response = post(client, valid_data(setup_rows), action="preview")
    drawn = response.context["form"].cleaned_data["seed"]
    assert isinstance(drawn, int)
    assert f'value="{drawn}"'.encode() in response.content


def test_it_saves_the_study_with_its_trials_in_the_planned_order(client, member, setup_rows):
    response = post(client, valid_data(setup_rows, seed="11"))
    study = Study.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("studies:detail", args=[study.pk])
    assert study.status == Study.Status.QUEUED
    assert study.seed == 11 and study.baseline == setup_rows["old"] and study.client_host == setup_rows["local"]
    assert study.pg_settings == {"shared_buffers": "128MB", "max_connections": "100"}
    trials = list(study.trials.order_by("position"))
    assert len(trials) == 24
    assert [trial.position for trial in trials] == list(range(24))
    assert all(trial.reset_data for trial in trials if trial.scenario == setup_rows["update"])
    assert {trial.host for trial in trials} == {setup_rows["local"]}


def test_it_fills_client_levels_and_settings_from_a_preset_left_as_text_empty(client, member, setup_rows):
    from benchdash.studies.models import StudyPreset

    preset = StudyPreset.objects.create(slug="p", name="p", client_levels=[1, 2, 4], pg_settings={"work_mem": "4MB"})
    response = post(
        client,
        valid_data(setup_rows, client_levels="", pg_settings="", client_preset=preset.pk, settings_preset=preset.pk),
        action="preview",
    )
    assert response.context["form"].cleaned_data["client_levels"] == [1, 2, 4]
    assert response.context["form"].cleaned_data["pg_settings"] == {"work_mem": "4MB"}


BAD_VALUES = [
    ("client_levels", {"client_levels": "1,0"}, "not a positive whole number"),
    ("client_levels", {"client_levels": "1,-2"}, "not a positive whole number"),
    ("client_levels", {"client_levels": "1,2.5"}, "not a positive whole number"),
    ("client_levels", {"client_levels": "1,abc"}, "not a positive whole number"),
    ("client_levels", {"client_levels": "1,16,1"}, "given twice"),
    ("client_levels", {"client_levels": "1,98"}, "above max_connections"),
    (
        "client_levels",
        {"client_levels": "1,51", "pg_settings": "max_connections = 60\nsuperuser_reserved_connections = 10"},
        "(50)",
    ),
    ("duration_s", {"duration_s": "0"}, ""),
    ("duration_s", {"duration_s": "ten"}, ""),
    ("repetitions", {"repetitions": "three"}, ""),
    ("scale", {"scale": "1.5"}, ""),
    ("year", {"year": "20x5"}, ""),
    ("seed", {"seed": "abc"}, ""),
    ("pg_settings", {"pg_settings": "shared_bufers = 128MB"}, "Unknown setting name: shared_bufers"),
    ("pg_settings", {"pg_settings": "shared_buffers 128MB"}, "is not 'name = value'"),
    ("pg_settings", {"pg_settings": "max_connections = many"}, "max_connections = many: PostgreSQL 15 wants a number"),
    ("fillfactor", {"fillfactor": "70", "scenarios": "REFERENCE_ONLY"}, "sets a fillfactor"),
    ("fillfactor", {"fillfactor": "5"}, ""),
    ("baseline", {"baseline": "OTHER_BUILD"}, "one of the chosen builds"),
    ("builds", {"builds": []}, ""),
]


@pytest.mark.parametrize(("field", "changes", "message"), BAD_VALUES)
def test_it_refuses_each_bad_value_at_its_field_and_saves_nothing(client, member, setup_rows, field, changes, message):
    if changes.get("scenarios") == "REFERENCE_ONLY":
        changes["scenarios"] = [setup_rows["reference"].pk]
    if changes.get("baseline") == "OTHER_BUILD":
        changes.update(builds=[setup_rows["new"].pk], baseline=setup_rows["old"].pk)
    response = post(client, valid_data(setup_rows, **changes))
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert field in errors, errors
    assert message in " ".join(errors[field])
    assert escape(message).encode() in response.content
    assert Study.objects.count() == 0 and Trial.objects.count() == 0


def test_it_queues_tpcb_with_more_clients_than_the_scale_and_notes_the_contention(client, member, setup_rows):
    data = valid_data(setup_rows, scenarios=[setup_rows["tpcb"].pk], client_levels="1,4", scale="2")
    preview = post(client, data, action="preview")
    assert "TPC-B-like at 4 clients on scale 2" in preview.context["preview"]["contention"]
    assert b'data-preview="contention"' in preview.content

    post(client, data)
    study = Study.objects.get()
    page = client.get(reverse("studies:detail", args=[study.pk]))
    assert b'data-study="contention"' in page.content
    assert "more clients than branches" in page.content.decode()


def test_it_refuses_a_published_build(client, member, setup_rows):
    published = BuildFactory(name="PostgreSQL 13.4", version="13.4", kind=Build.Kind.PUBLISHED, bin_dir="")
    response = post(client, valid_data(setup_rows, builds=[published.pk, setup_rows["old"].pk]))
    assert "published figure" in " ".join(response.context["form"].errors["builds"])
    assert Study.objects.count() == 0


def test_it_leaves_a_builds_files_to_the_worker_that_installs_it(client, member, setup_rows):
    # The web server may be another machine than the worker: its own disk says nothing about a target's.
    elsewhere = BuildFactory(name="pg-elsewhere", version="14.1", bin_dir="/nonexistent/postgresql/14/bin")
    post(client, valid_data(setup_rows, builds=[elsewhere.pk, setup_rows["old"].pk]))
    assert Study.objects.get().builds.filter(pk=elsewhere.pk).exists()


def test_a_get_on_cancel_changes_nothing(client, member, setup_rows):
    post(client, valid_data(setup_rows, seed="1"))
    study = Study.objects.get()
    response = client.get(reverse("studies:cancel", args=[study.pk]))
    study.refresh_from_db()
    assert response.status_code == 405
    assert study.status == Study.Status.QUEUED


def test_queueing_needs_the_csrf_token(member, setup_rows):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    strict.force_login(member)
    response = post(strict, valid_data(setup_rows, seed="1"))
    assert response.status_code == 403
    assert Study.objects.count() == 0


def test_the_preview_gives_the_time_if_every_cell_runs_to_the_adaptive_cap(client, member, setup_rows):
    response = post(client, valid_data(setup_rows, max_repetitions="6", seed="1"), action="preview")
    preview = response.context["preview"]
    assert (preview["trials"], preview["cap"], preview["cap_trials"]) == (24, 6, 48)
    assert preview["cap_minutes"] > 1.9 * preview["minutes"]
    assert "up to 48 with adaptive repetitions" in response.content.decode()
    assert Study.objects.count() == 0


def test_it_queues_a_study_with_adaptive_repetitions_and_its_threshold_as_a_fraction(client, member, setup_rows):
    post(client, valid_data(setup_rows, max_repetitions="8", threshold="1.5"))
    study = Study.objects.get()
    assert (study.repetitions, study.max_repetitions, study.threshold) == (3, 8, 0.015)
    assert study.trials.count() == 24  # the extra rounds are planned only when they are needed


def test_an_empty_threshold_is_two_percent_and_adaptive_repetitions_are_off(client, member, setup_rows):
    post(client, valid_data(setup_rows))
    study = Study.objects.get()
    assert (study.max_repetitions, study.threshold) == (None, 0.02)


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"max_repetitions": "3"}, "max_repetitions", "More than the planned repetitions"),
        ({"max_repetitions": "51"}, "max_repetitions", "less than or equal to 50"),
        ({"threshold": "-1"}, "threshold", "greater than or equal to 0"),
        ({"threshold": "two"}, "threshold", "Enter a number"),
    ],
)
def test_it_refuses_a_bad_cap_or_threshold_and_saves_nothing(client, member, setup_rows, changes, field, message):
    response = post(client, valid_data(setup_rows, **changes))
    assert message in " ".join(response.context["form"].errors[field])
    assert Study.objects.count() == 0


def _with_memory(rows, gib: float) -> None:
    rows["local"].facts = {"memory_bytes": int(gib * 2**30), "disk_free_bytes": 20 * 2**30}
    rows["local"].save()


def test_the_2021_presets_shared_buffers_on_a_smaller_host_is_refused_with_the_numbers(client, member, setup_rows):
    _with_memory(setup_rows, 23.5)
    settings = "max_connections = 500\nshared_buffers = 40GB\nwork_mem = 1GB\nmaintenance_work_mem = 20GB"
    for action in ("preview", "queue"):
        response = post(client, valid_data(setup_rows, pg_settings=settings), action=action)
        errors = response.context["form"].errors["pg_settings"]
        # 40 GiB of buffers and wal_buffers' automatic 16 MiB
        assert errors == [
            "shared_buffers and wal_buffers ask for 40.0 GiB of shared memory when the server starts, and local "
            "has 23.5 GiB: the server cannot start (could not map anonymous shared memory)."
        ]
    assert Study.objects.count() == 0


def test_memory_settings_that_add_up_beyond_the_host_are_refused_with_each_part(client, member, setup_rows):
    _with_memory(setup_rows, 23.5)
    settings = "max_connections = 600\nshared_buffers = 16GB\nmaintenance_work_mem = 2GB"
    response = post(client, valid_data(setup_rows, pg_settings=settings, client_levels="1,500"), action="preview")
    # 16 GiB + 16 MiB + 500 x 8 MiB + 3 x 2 GiB = 25.9 GiB
    assert response.context["form"].errors["pg_settings"] == [
        "The memory settings add up to 25.9 GiB and local has 23.5 GiB: shared memory 16.0 GiB, 500 clients at "
        "8 MiB each, 3 autovacuum workers at 2.0 GiB each."
    ]
    fitting = "max_connections = 600\nshared_buffers = 16GB\nmaintenance_work_mem = 1GB"
    response = post(client, valid_data(setup_rows, pg_settings=fitting, client_levels="1,500"), action="preview")
    assert "pg_settings" not in response.context["form"].errors


def test_the_memory_refusal_is_in_japanese_too(client, member, setup_rows):
    _with_memory(setup_rows, 23.5)
    data = valid_data(setup_rows, pg_settings="shared_buffers = 40GB")
    response = client.post(reverse("studies:new"), {**data, "preview": "1"}, HTTP_ACCEPT_LANGUAGE="ja")
    assert "40.0 GiB" in response.content.decode() and "共有メモリ" in response.content.decode()


def test_on_a_noisy_host_the_preview_says_the_offered_cap_only_draws_an_interval(client, member, setup_rows):
    """With a 10% spread and no history, a single run a side draws nothing and 2 rounds draw an interval, but no cap
    up to 20 calls 2%: the preview must not promise a verdict there."""
    host, reference = setup_rows["local"], setup_rows["reference"]
    host.noise_check = {"verdict": "noisy", "facts": {"micro_cv": 0.10}}
    host.save()
    response = post(client, valid_data(setup_rows, scenarios=[reference.pk], repetitions="1"), action="preview")
    (row,) = response.context["preview"]["power"]
    assert (row.power.cap_offered, row.power.cap_calls_threshold, row.power.runs_needed) == (2, False, None)
    page = response.content.decode()
    assert "Adaptive repetitions up to 2 would draw an interval, but one too wide at this spread" in page
    assert "would reach one" not in page


def test_the_preview_says_what_the_design_can_tell_from_the_hosts_history_or_its_noise_check(
    client, member, setup_rows
):
    from tests.factories import StudyFactory, succeeded_runs

    host, reference = setup_rows["local"], setup_rows["reference"]
    host.noise_check = {"verdict": "quiet", "facts": {"micro_cv": 0.01}}
    host.save()
    response = post(client, valid_data(setup_rows, scenarios=[reference.pk]), action="preview")
    (row,) = response.context["preview"]["power"]
    assert (row.cv_percent, row.power.spread.source, row.power.cap_offered) == ("1.0%", "noise check", None)
    assert row.smallest_percent == "+6.4%" and row.power.runs_needed == 6  # no history: the 3 rounds alone, 2 df
    assert "No verdict possible" not in response.content.decode()

    earlier = StudyFactory(db_host=host, builds=[setup_rows["old"]], scenarios=[reference], status=Study.Status.DONE)
    quiet = [100.0, 101.0, 99.0, 100.5, 99.5]
    succeeded_runs(earlier, reference, {(setup_rows["old"], 1): quiet, (setup_rows["old"], 2): quiet})
    response = post(client, valid_data(setup_rows, scenarios=[reference.pk]), action="preview")
    (row,) = response.context["preview"]["power"]
    assert (row.power.spread.source, row.power.spread.degrees, row.cv_percent) == ("recent studies", 8, "0.8%")
    assert row.smallest_percent == "+4.0%" and "recent studies of this scenario" in response.content.decode()
