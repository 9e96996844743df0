"""The API's points and trials carry the line they belong to (issue 41, point 9): its variant's label and its level
of each axis the study varies, so that checksums off and checksums on of one build are two rows that say so."""

import pytest

from benchdash.studies.models import Variant
from benchdash.studies.results.mean import mean_interval
from benchdash.studies.results.store import points_refresh
from tests.api.conftest import History
from tests.api.test_api_endpoints import get
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_trial

OFF, ON = [100.0, 101.0, 99.0, 100.0, 102.0], [95.0, 96.0, 94.0, 95.0, 97.0]


@pytest.fixture
def checksums_study(db):
    build = BuildFactory(name="pg15", version="15.4")
    scenario = ScenarioFactory(slug="update-checksums")
    study = StudyFactory(builds=[build], baseline=build, scenarios=[scenario], repetitions=5)
    Variant.objects.filter(study=study).update(label="pg15 checksums=off", data_checksums=False, baseline=True)
    Variant.objects.create(study=study, build=build, label="pg15 checksums=on", data_checksums=True, position=1)
    for checksums, runs in ((False, OFF), (True, ON)):
        variant = Variant.objects.get(study=study, data_checksums=checksums)
        for repetition, tps in enumerate(runs, start=1):
            succeeded_trial(study, build, scenario, 4, repetition, tps, variant=variant, point=False)
    points_refresh(study_id=study.pk)
    return study


def test_the_points_of_checksums_off_and_on_name_their_variant_and_its_level(client, checksums_study):
    points = get(client, f"/studies/{checksums_study.pk}/points")["items"]
    build_id = checksums_study.builds.get().pk
    variants = dict(Variant.objects.filter(study=checksums_study).values_list("label", "pk"))
    seen = {point["variant_label"]: point for point in points}
    assert set(seen) == {"pg15 checksums=off", "pg15 checksums=on"}
    off, on = seen["pg15 checksums=off"], seen["pg15 checksums=on"]
    assert (off["axes"], on["axes"]) == ({"checksums": "off"}, {"checksums": "on"})
    assert (off["variant_id"], on["variant_id"]) == (variants["pg15 checksums=off"], variants["pg15 checksums=on"])
    assert off["build_id"] == on["build_id"] == build_id  # the build's id, not the variant's
    assert on["ratio"] == pytest.approx(95.0 / 100.0) and on["interval_method"] == "rank"
    assert (on["statistic"], on["median"], on["mean"]) == ("median", 95.0, pytest.approx(95.4))
    interval = mean_interval(ON)
    assert (on["mean_low"], on["mean_high"]) == pytest.approx((interval.low, interval.high))


def test_the_trials_of_checksums_off_and_on_name_their_variant_and_its_level(client, checksums_study):
    trials = get(client, f"/studies/{checksums_study.pk}/trials")["items"]
    levels = {(trial["variant_label"], trial["axes"]["checksums"]) for trial in trials}
    assert levels == {("pg15 checksums=off", "off"), ("pg15 checksums=on", "on")}
    on = next(trial for trial in trials if trial["axes"] == {"checksums": "on"})
    assert get(client, f"/trials/{on['id']}") == on


def test_a_study_of_builds_varies_no_axis_and_names_each_line_by_its_build(client, history: History):
    trials = get(client, f"/studies/{history.older.pk}/trials")["items"]
    assert {(trial["variant_label"], str(trial["axes"])) for trial in trials} == {
        ("PostgreSQL 13.4", "{}"),
        ("PostgreSQL 14.0", "{}"),
    }
    points = get(client, f"/studies/{history.older.pk}/points")["items"]
    assert {point["variant_label"] for point in points} == {"PostgreSQL 13.4", "PostgreSQL 14.0"}
    assert all(point["axes"] == {} for point in points)
