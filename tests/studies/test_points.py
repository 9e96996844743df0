"""points_refresh keeps each study point equal to the median, min, max and n of its succeeded trials."""

from io import StringIO

import pytest
from django.contrib.admin.sites import site
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import RequestFactory

from benchdash.studies.models import StudyPoint, Trial
from benchdash.studies.results.store import points_refresh
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, TrialFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def study():
    """One study, two builds x one scenario x clients 1 and 4, loaded around the services (no points yet)."""
    study = StudyFactory(title="bulk")
    old, new = BuildFactory(version="16.1"), BuildFactory(version="17.0")
    scenario = ScenarioFactory(slug="reference")
    figures = {(old, 1): [100.0, 400.0, 200.0, 300.0], (new, 1): [500.0], (old, 4): [10.0, 30.0, 20.0]}
    rows = [
        (build, clients, number, tps)
        for (build, clients), values in figures.items()
        for number, tps in enumerate(values)
    ]
    Trial.objects.bulk_create(
        Trial(study=study, build=build, scenario=scenario, clients=clients, repetition=number + 1, position=position,
              status=Trial.Status.SUCCEEDED, tps=tps)
        for position, (build, clients, number, tps) in enumerate(rows)
    )  # fmt: skip
    return study


def points_of(study) -> dict[tuple[str, int], tuple[float, float, float, int]]:
    return {
        (point.build.version, point.clients): (point.median, point.minimum, point.maximum, point.n)
        for point in StudyPoint.objects.filter(study=study).select_related("build")
    }


def test_it_summarises_a_whole_study_in_one_refresh(study):
    assert points_of(study) == {}

    assert points_refresh(study_id=study.pk) == 3

    assert points_of(study) == {
        ("16.1", 1): (250.0, 100.0, 400.0, 4),
        ("17.0", 1): (500.0, 500.0, 500.0, 1),
        ("16.1", 4): (20.0, 10.0, 30.0, 3),
    }


def test_failed_pending_and_figureless_trials_do_not_count(study):
    old_at_one = Trial.objects.filter(study=study, build__version="16.1", clients=1)
    old_at_one.filter(tps=400.0).update(status=Trial.Status.FAILED)
    old_at_one.filter(tps=300.0).update(status=Trial.Status.PENDING)
    old_at_one.filter(tps=200.0).update(tps=None)

    points_refresh(study_id=study.pk)

    assert points_of(study)[("16.1", 1)] == (100.0, 100.0, 100.0, 1)


def test_it_deletes_a_point_left_without_a_succeeded_trial(study):
    points_refresh(study_id=study.pk)
    Trial.objects.filter(study=study, build__version="17.0").update(status=Trial.Status.FAILED)

    points_refresh(study_id=study.pk)

    assert set(points_of(study)) == {("16.1", 1), ("16.1", 4)}


def test_refreshing_one_point_leaves_the_others_as_they_were(study):
    points_refresh(study_id=study.pk)
    Trial.objects.filter(study=study).update(tps=1.0)
    at_four = Trial.objects.filter(study=study, clients=4).first()

    count = points_refresh(
        study_id=study.pk, build_id=at_four.build_id, scenario_id=at_four.scenario_id, clients=at_four.clients
    )

    assert count == 1
    assert points_of(study) == {
        ("16.1", 1): (250.0, 100.0, 400.0, 4),
        ("17.0", 1): (500.0, 500.0, 500.0, 1),
        ("16.1", 4): (1.0, 1.0, 1.0, 3),
    }


def test_a_study_without_succeeded_trials_has_no_points():
    study = StudyFactory()
    TrialFactory(study=study, status=Trial.Status.PENDING)
    assert points_refresh(study_id=study.pk) == 0
    assert points_of(study) == {}


def test_the_command_refreshes_every_study(study):
    other = StudyFactory(title="other")
    TrialFactory(study=other, status=Trial.Status.SUCCEEDED, tps=42.0)
    StudyPoint.objects.all().delete()
    out = StringIO()

    call_command("refresh_points", stdout=out)

    assert out.getvalue().splitlines() == [
        f"study {study.pk}: 3 points",
        f"study {other.pk}: 1 points",
        "4 points in all",
    ]
    assert points_of(other) == {("15.0", 1): (42.0, 42.0, 42.0, 1)}
    assert len(points_of(study)) == 3


def test_the_command_refreshes_one_study_when_told(study):
    other = StudyFactory(title="other")
    TrialFactory(study=other, status=Trial.Status.SUCCEEDED, tps=42.0)
    StudyPoint.objects.all().delete()

    call_command("refresh_points", "--study", str(study.pk), stdout=StringIO())

    assert len(points_of(study)) == 3
    assert points_of(other) == {}


def test_the_command_refuses_an_unknown_study():
    with pytest.raises(CommandError, match="no study with id 999999"):
        call_command("refresh_points", "--study", "999999", stdout=StringIO())


def test_an_admin_edit_moves_the_trial_from_its_old_point_to_its_new_one(study, admin_user):
    points_refresh(study_id=study.pk)
    trial_admin = site._registry[Trial]
    request = RequestFactory().post("/")
    request.user = admin_user
    trial = Trial.objects.get(study=study, build__version="17.0")

    trial.clients = 4
    trial.tps = 700.0
    trial_admin.save_model(request, trial, form=None, change=True)

    assert ("17.0", 1) not in points_of(study)
    assert points_of(study)[("17.0", 4)] == (700.0, 700.0, 700.0, 1)


def test_an_admin_delete_updates_the_point(study, admin_user):
    points_refresh(study_id=study.pk)
    trial_admin = site._registry[Trial]
    request = RequestFactory().post("/")
    request.user = admin_user

    trial_admin.delete_model(request, Trial.objects.get(study=study, clients=4, tps=30.0))
    assert points_of(study)[("16.1", 4)] == (15.0, 10.0, 20.0, 2)

    trial_admin.delete_queryset(request, Trial.objects.filter(study=study, clients=4))
    assert ("16.1", 4) not in points_of(study)
