"""Storing change points: a minor series' step becomes one row with its sides; an A/A series gives none; a
recompute keeps a change still found (and its acknowledgement) and removes one no longer found; a recompute of some
scenarios leaves the others' changes alone. (The queue's task after a study's end, an import or a mark official:
tests/queue/test_changes_refresh_by_worker.py.)"""

import random
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from benchdash.changes.models import Acknowledgement, ChangePoint, SeriesKind
from benchdash.changes.refresh import changes_refresh
from benchdash.studies.models import Study, Trial
from benchdash.studies.results.store import points_refresh
from tests.at_once import at_once
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_runs

pytestmark = pytest.mark.django_db

STEP = {"17.0": 1000.0, "17.1": 1000.0, "17.2": 1000.0, "17.3": 920.0, "17.4": 920.0}
WOBBLE = (-4.0, 0.0, 4.0)


def minor_series(levels: dict[str, float], wobble: tuple[float, ...] = WOBBLE, **study_fields) -> Study:
    builds = [BuildFactory(version=version) for version in levels]
    scenario = ScenarioFactory(slug="pgecons-reference")
    study = StudyFactory(builds=builds, scenarios=[scenario], baseline=builds[0], **study_fields)
    figures = {(build, 16): [levels[build.version] + step for step in wobble] for build in builds}
    succeeded_runs(study, scenario, figures)
    return study


def test_a_step_in_a_minor_series_is_stored_with_its_size_confidence_and_sides():
    study = minor_series(STEP)
    assert changes_refresh() == 1
    change = ChangePoint.objects.get()
    assert change.series_kind == SeriesKind.STUDY
    assert (change.before_label, change.after_label) == ("17.2", "17.3")
    assert change.size == pytest.approx(-0.08)
    assert change.confidence > 0.999
    assert (change.before_study, change.after_study) == (study, study)
    assert (change.before_build.version, change.after_build.version) == ("17.2", "17.3")
    assert change.clients == 16
    assert not change.official
    assert change.is_new


def test_an_a_a_minor_series_gives_no_change():
    minor_series(dict.fromkeys(STEP, 1000.0))
    assert changes_refresh() == 0
    assert not ChangePoint.objects.exists()


def test_a_recompute_keeps_an_acknowledged_change_and_drops_one_no_longer_found():
    study = minor_series(STEP)
    changes_refresh()
    change = ChangePoint.objects.get()
    member = User.objects.create(username="member")
    Acknowledgement.objects.create(change=change, kind=Acknowledgement.Kind.KNOWN, note="fsync fix", by=member)
    assert changes_refresh() == 1
    assert ChangePoint.objects.get().pk == change.pk
    assert not ChangePoint.objects.new().exists()

    Trial.objects.filter(study=study, build__version__in=["17.3", "17.4"]).update(tps=1000.0)
    points_refresh(study_id=study.pk)
    assert changes_refresh() == 0
    assert not Acknowledgement.objects.exists()


def test_an_a_a_series_with_many_runs_a_minor_gives_no_change():
    """Runs are stored ascending; fed in that order every minor's block would be a ramp and each boundary a step."""
    rng = random.Random(4)
    builds = [BuildFactory(version=f"17.{minor}") for minor in range(8)]
    scenario = ScenarioFactory()
    study = StudyFactory(builds=builds, scenarios=[scenario], baseline=builds[0])
    succeeded_runs(study, scenario, {(build, 8): [rng.gauss(1000.0, 10.0) for _ in range(20)] for build in builds})
    assert changes_refresh() == 0


def test_a_hosts_repeated_design_is_one_series_in_the_order_its_studies_finished():
    build, scenario = BuildFactory(version="16.4"), ScenarioFactory(slug="select-only")
    studies = []
    for level in (1000.0, 1000.0, 1000.0, 900.0, 900.0):
        study = StudyFactory(builds=[build], scenarios=[scenario], baseline=build, status="done")
        Study.objects.filter(pk=study.pk).update(finished_at=timezone.now() + timedelta(days=len(studies)))
        succeeded_runs(study, scenario, {(build, 4): [level - 3, level, level + 3]})
        studies.append(study)
    changes_refresh()
    change = ChangePoint.objects.get(series_kind=SeriesKind.HOST)
    assert (change.before_label, change.after_label) == (f"#{studies[2].pk}", f"#{studies[3].pk}")
    assert (change.before_study, change.after_study) == (studies[2], studies[3])
    assert change.size == pytest.approx(-0.10)
    assert change.series_title == "local · select-only · PostgreSQL 16.4 · 4 clients · 2 s · scale 1"


def official_index_with_a_step() -> dict[str, Study]:
    """Published studies linking 10 to 17, one link each; 14.0 is 20% below 13.0. Returns the study of each newer
    version's link."""
    scenario = ScenarioFactory(slug="pgecons-reference", name="参照系")
    ratios = {("10", "11"): 1.01, ("11", "12"): 0.99, ("12", "13"): 1.0, ("13", "14"): 0.8, ("14", "15"): 1.01}
    ratios |= {("15", "16"): 0.99, ("16", "17"): 1.0}
    links = {}
    for (older, newer), ratio in ratios.items():
        old, new = BuildFactory(version=f"{older}.0"), BuildFactory(version=f"{newer}.0")
        study = StudyFactory(builds=[old, new], scenarios=[scenario], baseline=old, kind="published", status="done")
        succeeded_runs(study, scenario, {(old, 16): [1000.0], (new, 16): [1000.0 * ratio]})
        links[newer] = study
    return links


def test_a_step_in_the_official_trend_index_is_an_official_change_with_its_links_study():
    links = official_index_with_a_step()
    changes_refresh()
    change = ChangePoint.objects.get(series_kind=SeriesKind.TREND)
    assert (change.before_label, change.after_label, change.official) == ("13", "14", True)
    assert change.size == pytest.approx(-0.2, abs=0.01)
    assert (change.before_study, change.after_study) == (links["14"], links["14"])
    assert (change.before_build.version, change.after_build.version) == ("13.0", "14.0")


def test_refresh_changes_recomputes_and_prints_how_many(capsys):
    from django.core.management import call_command

    minor_series(STEP)
    call_command("refresh_changes")
    assert capsys.readouterr().out.strip() == "1"


def test_a_recompute_of_other_scenarios_leaves_a_scenarios_changes_alone():
    study = minor_series(STEP)
    changes_refresh()
    Trial.objects.filter(study=study).update(tps=1000.0)
    points_refresh(study_id=study.pk)
    other = ScenarioFactory(slug="pgecons-update")
    assert changes_refresh(scenario_ids=[other.pk]) == 0
    assert ChangePoint.objects.count() == 1
    assert changes_refresh(scenario_ids=[study.scenarios.get().pk]) == 0
    assert not ChangePoint.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_refreshes_sent_at_once_take_turns_and_store_each_change_once():
    """A study's end and a mark official close together send two tasks: both end well, one row per change."""
    minor_series(STEP)
    assert at_once(changes_refresh, 4) == [1, 1, 1, 1]
    assert ChangePoint.objects.count() == 1
