"""A bisect through the store: each step is a real study of two minors on the template's design; when a step's
study ends its verdict is recorded and the next step queued, until the first changed minor is found. The studies'
trials are filled here with constructed TPS (no worker: tests/changes/test_minor_series_worker.py runs one)."""

import pytest

from benchdash.changes.bisection import SAME
from benchdash.changes.bisects import BisectRefused, bisect_advance, bisect_create, minors_between
from benchdash.changes.models import Bisect
from benchdash.studies.design import StudyDesign
from benchdash.studies.models import Study, Trial
from benchdash.studies.results.store import points_refresh
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory

pytestmark = pytest.mark.django_db
LEVELS = {"17.0": 1000.0, "17.1": 1000.0, "17.2": 1000.0, "17.3": 920.0, "17.4": 920.0}
WOBBLE = (-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0)


@pytest.fixture
def template() -> Study:
    host = HostFactory(name="local", address="", facts={"cpu_threads": 2, "architecture": "x86_64"})
    return StudyFactory(db_host=host, repetitions=9, max_repetitions=10, status=Study.Status.DONE)


def builds() -> list:
    return [BuildFactory(version=version, bin_dir="/usr/lib/postgresql/17/bin") for version in LEVELS]


def finish(study: Study, levels: dict[str, float], status: str = Study.Status.DONE) -> None:
    """What a worker would leave: every trial succeeded with its build's level and a wobble, the study ended."""
    for trial in study.trials.select_related("build"):
        trial.status, trial.tps = Trial.Status.SUCCEEDED, levels[trial.build.version] + WOBBLE[trial.repetition - 1]
        trial.save(update_fields=["status", "tps"])
    points_refresh(study_id=study.pk)
    Study.objects.filter(pk=study.pk).update(status=status)


def run(bisect: Bisect) -> Bisect:
    while bisect.status == Bisect.Status.RUNNING:
        finish(bisect.steps.order_by("-number").first().study, LEVELS)
        bisect = bisect_advance(study_id=bisect.steps.order_by("-number").first().study_id)
    return bisect


def test_it_finds_the_first_minor_where_the_change_appears_with_every_step_recorded(template):
    minors = builds()
    scenario = ScenarioFactory()
    bisect = run(bisect_create(template=template, scenario=scenario, clients=4, builds=minors))
    assert bisect.status == Bisect.Status.FOUND
    assert bisect.first_changed.version == "17.3"
    steps = list(bisect.steps.select_related("study__baseline"))
    assert [(minors[s.low].version, minors[s.compared].version, s.verdict) for s in steps] == [
        ("17.0", "17.4", "slower"),
        ("17.0", "17.2", SAME),
        ("17.2", "17.3", "slower"),
    ]
    assert len(steps) <= 4
    first = steps[0].study
    assert (first.repetitions, first.max_repetitions, first.scale) == (9, 10, template.scale)
    assert list(first.scenarios.all()) == [scenario] and first.client_levels == [4]


def test_a_step_s_design_is_the_template_s_with_its_two_builds_its_scenario_and_its_level(template):
    minors = builds()
    scenario = ScenarioFactory()
    bisect = bisect_create(template=template, scenario=scenario, clients=4, builds=minors)
    step = StudyDesign.from_study(bisect.steps.get().study)
    expected = StudyDesign.from_study(template).replace(
        title=f"bisect {bisect.pk}: 17.0 vs 17.4",
        client_host=template.client_host or template.db_host,
        builds=(minors[0], minors[4]),
        baseline=minors[0],
        scenarios=(scenario,),
        client_levels=(4,),
        keep_data=False,
        seed=step.seed,
    )
    assert step == expected


def test_a_step_whose_study_failed_fails_the_bisect(template):
    bisect = bisect_create(template=template, scenario=ScenarioFactory(), clients=4, builds=builds())
    finish(bisect.steps.get().study, LEVELS, status=Study.Status.FAILED)
    assert bisect_advance(study_id=bisect.steps.get().study_id).status == Bisect.Status.FAILED


def test_the_minors_between_two_builds_are_the_registered_ones_of_that_major():
    minors = builds()
    BuildFactory(version="16.9")
    assert minors_between(minors[0], minors[-1]) == minors
    with pytest.raises(BisectRefused):
        minors_between(minors[0], BuildFactory(version="16.9"))


def test_a_next_step_whose_design_is_refused_fails_the_bisect_and_records_no_verdict(template):
    bisect = bisect_create(template=template, scenario=ScenarioFactory(), clients=4, builds=builds())
    finish(bisect.steps.get().study, LEVELS)
    Study.objects.filter(pk=template.pk).update(duration_s=10**7)  # past the site's limit: its design is refused now

    assert bisect_advance(study_id=bisect.steps.get().study_id).status == Bisect.Status.FAILED
    assert list(bisect.steps.values_list("verdict", flat=True)) == [""]
    assert bisect_advance(study_id=bisect.steps.get().study_id) is None
