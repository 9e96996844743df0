"""A measured calibration where members see it (issue 42, point 3): the host page says when and how, and what each
number of runs a side calls; its button (POST, permission, CSRF) queues one; the new-study preview and the official
gate use the calibration that matches the design on the host or its kind, and say how to get one where none does."""

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from benchdash.studies.calibration_match import design_kind_of, matching_calibration
from benchdash.studies.calibration_text import match_text
from benchdash.studies.lifecycle.calibration import calibration_create
from benchdash.studies.models import Arrangement, Calibration, Study
from benchdash.studies.quality import study_quality
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory
from tests.studies.test_calibrate import calibration_design

DETECTIONS = [
    {"runs": 3, "studies": 10, "false_alarms": 0, "called": {"2": 3, "5": 9}},
    {"runs": 8, "studies": 10, "false_alarms": 0, "called": {"2": 8, "5": 10}},
]


@pytest.fixture(autouse=True)
def english():
    """The wording as an English reader gets it (the site's default language is Japanese)."""
    with translation.override("en"):
        yield


def measured_calibration(host, scenario, **changes) -> Calibration:
    build = BuildFactory()
    study = StudyFactory(db_host=host, builds=[build], baseline=build, scenarios=[scenario], status="done")
    values = {
        "study": study,
        "host": host,
        "scenario": scenario,
        "clients": 2,
        "duration_s": 60,
        "threshold": 0.02,
        "rounds": 10,
        "sizes": [2, 5],
        "real_effects": {"2": 0.018, "5": 0.049},
        "detections": DETECTIONS,
        "measured_at": timezone.now(),
    }
    return Calibration.objects.create(**(values | changes))


def test_the_preview_says_what_each_number_of_runs_calls_on_this_host(db):
    host, scenario = HostFactory(), ScenarioFactory()
    measured_calibration(host, scenario)
    match = matching_calibration(host, [(scenario.pk, 2)], duration_s=50, threshold=0.02)
    assert match is not None and match.own_host
    assert match_text(match) == (
        "on this host, 3 runs a side call 5% in 9 of 10 and 2% in 3 of 10 (A/A false alarms 0 of 10); "
        "8 a side call 5% in 10 of 10 and 2% in 8 of 10 (A/A false alarms 0 of 10) "
        "(each slowdown as measured: 2%: 1.8%, 5%: 4.9%)"
    )


def test_a_duet_design_takes_a_duet_calibration_only(db):
    host, scenario = HostFactory(), ScenarioFactory()
    measured_calibration(host, scenario)
    duet = design_kind_of(Arrangement.DUET)
    assert matching_calibration(host, [(scenario.pk, 2)], duration_s=60, threshold=0.02, design_kind=duet) is None
    measured_calibration(host, scenario, design_kind=duet)
    match = matching_calibration(host, [(scenario.pk, 2)], duration_s=60, threshold=0.02, design_kind=duet)
    assert match is not None and match.calibration.design_kind == "duet"
    assert design_kind_of(Arrangement.DUET_AA) == duet
    assert design_kind_of(Arrangement.SEQUENTIAL) == "sequential"


def test_a_calibration_of_another_cell_length_or_threshold_does_not_match_and_the_preview_says_how_to_get_one(db):
    host, scenario = HostFactory(), ScenarioFactory()
    measured_calibration(host, scenario)
    assert matching_calibration(host, [(scenario.pk, 4)], duration_s=60, threshold=0.02) is None
    assert matching_calibration(host, [(scenario.pk, 2)], duration_s=300, threshold=0.02) is None
    assert matching_calibration(host, [(scenario.pk, 2)], duration_s=60, threshold=0.05) is None
    assert "manage.py calibrate HOST" in match_text(None)


def test_a_host_of_the_same_kind_borrows_the_calibration(db):
    facts = {"cpu_model": "EPYC", "cpu_cores": 16, "memory_bytes": 64 * 2**30, "kernel": "6.1.0-13-amd64"}
    measured, other, scenario = HostFactory(facts=facts), HostFactory(facts=facts), ScenarioFactory()
    kind = {"instance_type": "", "image": "", "cpu_model": "EPYC", "cores": 16, "memory_gib": 64, "kernel": "6.1"}
    measured_calibration(measured, scenario, host_kind=kind)
    match = matching_calibration(other, [(scenario.pk, 2)], duration_s=60, threshold=0.02)
    assert match is not None and not match.own_host
    assert match_text(match).startswith(f"on hosts of its kind ({measured.name}), 3 runs a side")


def test_the_official_gate_takes_the_calibration_as_its_evidence(db):
    host, scenario = HostFactory(), ScenarioFactory()
    calibration = measured_calibration(host, scenario)
    build = BuildFactory(version="16.0")
    study = StudyFactory(
        db_host=host, builds=[build], baseline=build, scenarios=[scenario], client_levels=[2], repetitions=8
    )
    study.duration_s = 60
    study.save()
    check = next(check for check in study_quality(study).checks if check.name == "what the design detects, measured")
    assert check.met is True
    assert check.value == (
        "8 runs a side call 5% in 10 of 10 and 2% in 8 of 10 (A/A false alarms 0 of 10) "
        "(each slowdown as measured: 2%: 1.8%, 5%: 4.9%)"
    )
    assert f"calibration {calibration.pk}" in str(check.rule)
    assert "cells with a verdict" not in [str(check.name) for check in study_quality(study).checks]


def test_the_host_page_shows_it_and_its_button_queues_a_calibration_of_the_last_study(client, member):
    host, scenario = HostFactory(), ScenarioFactory()
    calibration = measured_calibration(host, scenario)
    page = client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f"Calibration {calibration.pk}" in page and "5% injected: 4.9% measured" in page
    assert "3 runs a side call 5% in 9 of 10" in page
    before = Study.objects.count()
    response = client.post(reverse("studies:host_calibrate", args=[host.pk]))
    queued = Calibration.objects.exclude(pk=calibration.pk).get()
    assert response.status_code == 302 and response["Location"] == reverse("studies:detail", args=[queued.study_id])
    assert Study.objects.count() == before + 1 and queued.study.status == Study.Status.QUEUED
    assert (queued.rounds, queued.sizes, queued.clients) == (10, [2, 5, 10], 1)  # its first client level
    assert queued.study.trials.count() == 10 * 5


def test_the_button_needs_the_permission_and_a_post(client, db):
    from django.contrib.auth.models import User

    host = HostFactory()
    client.force_login(User.objects.create_user("reader", password="pw-reader-1"))
    assert client.post(reverse("studies:host_calibrate", args=[host.pk])).status_code == 403
    assert not Calibration.objects.exists()


def test_without_a_study_on_the_host_the_button_says_why_and_queues_nothing(client, member):
    host = HostFactory()
    response = client.post(reverse("studies:host_calibrate", args=[host.pk]), follow=True, HTTP_ACCEPT_LANGUAGE="en")
    assert "no study has run on this host yet" in response.content.decode()
    assert not Calibration.objects.exists() and not Study.objects.exists()


def test_the_host_page_says_it_in_japanese(client, db):
    host, scenario = HostFactory(), ScenarioFactory()
    measured_calibration(host, scenario)
    page = client.get(reverse("inventory:host_detail", args=[host.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "較正" in page and "各側 3 回で 5% を 10 回中 9 回、2% を 10 回中 3 回 検出" in page


def test_a_calibration_study_page_shows_its_variants_with_finished_runs(client, db):
    host, scenario, build = HostFactory(), ScenarioFactory(), BuildFactory()
    design = calibration_design(host, build, scenario)
    study = calibration_create(design=design, rounds=3, sizes=[5]).study
    for number, trial in enumerate(study.trials.order_by("position")):
        trial.status, trial.tps, trial.server_cores = "succeeded", 1000 - number, 0.8
        trial.save()
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    text = page.content.decode()
    assert "unthrottled A&#x27;" in text and "5% less CPU" in text


def test_a_calibration_study_never_counts_in_the_trends(db):
    host, scenario = HostFactory(), ScenarioFactory()
    study = measured_calibration(host, scenario).study
    study.variants.create(build=study.baseline, label="5% less CPU", slowdown_pct=5)
    assert study.mark_official(True) is False
    study.refresh_from_db()
    assert study.official is False


def test_a_duet_calibration_says_its_a_a_alone(db):
    host, scenario = HostFactory(), ScenarioFactory()
    aa_only = [{"runs": 3, "studies": 4, "false_alarms": 1, "called": {}}]
    measured_calibration(host, scenario, design_kind="duet", sizes=[], real_effects={}, detections=aa_only)
    match = matching_calibration(host, [(scenario.pk, 2)], duration_s=60, threshold=0.02, design_kind="duet")
    assert match_text(match) == "on this host, 3 runs a side (A/A false alarms 1 of 4)"
