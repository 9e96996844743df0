"""A DB host's recent spread (studies/results/host_spread.py) and the 3-against-3 verdict it makes possible."""

import math

import pytest

from benchdash.studies.models import Study, StudyPoint
from benchdash.studies.results.host_spread import study_spreads
from benchdash.studies.results.queries import study_results
from benchdash.studies.results.uncertainty import Method, Verdict
from tests.factories import BuildFactory, HostFactory, ScenarioFactory, StudyFactory, succeeded_runs

QUIET_RUNS = [100.0, 101.0, 99.0, 100.5, 99.5]  # about 0.8%: 2 cells of 5 runs give 8 degrees of freedom


def _study(host, scenario, builds, figures, **fields):
    study = StudyFactory(db_host=host, builds=builds, scenarios=[scenario], baseline=builds[0], **fields)
    succeeded_runs(study, scenario, {(build, clients): runs for (build, clients), runs in figures.items()})
    return study


def point_spread(study):
    """The host variance the study's single cell borrows (8 degrees of freedom, no spread of its pairs' own)."""
    spread = next(iter(study_spreads(study).values()))
    return spread.variance * spread.degrees / (spread.degrees + 2)


@pytest.fixture
def setting(db):
    host, scenario = HostFactory(name="quiet"), ScenarioFactory(slug="select-only-spread")
    old, new = BuildFactory(version="13.4"), BuildFactory(version="14.0")
    _study(host, scenario, [old, new], {(old, 1): QUIET_RUNS, (new, 1): QUIET_RUNS}, status=Study.Status.DONE)
    return host, scenario, old, new


@pytest.mark.django_db
def test_three_runs_against_three_get_a_verdict_from_the_hosts_recent_spread(setting):
    host, scenario, old, new = setting
    study = _study(host, scenario, [old, new], {(old, 1): [100.0, 101.0, 99.0], (new, 1): [105.0, 106.0, 104.0]})
    spread = study_spreads(study)[(scenario.pk, 1)]
    squares = sum((math.log(run) - sum(map(math.log, QUIET_RUNS)) / 5) ** 2 for run in QUIET_RUNS)
    assert spread.degrees == 8 and spread.variance == pytest.approx(2 * squares / 8)
    point = next(p for p in study_results(study) if p.build_id == new.pk)
    assert point.verdict == Verdict.FASTER and point.interval.method == Method.PAIRED_T
    assert 1.02 < point.interval.low < 1.05 < point.interval.high


@pytest.mark.django_db
def test_a_host_that_drifts_between_rounds_still_gets_a_verdict_by_pairing_the_rounds(setting):
    host, scenario, old, new = setting
    drifting = {(old, 1): [100.0, 90.0, 110.0], (new, 1): [105.0, 94.5, 115.5]}  # 5% ahead in every round
    study = _study(host, scenario, [old, new], drifting)
    stored = StudyPoint.objects.get(study=study, build=new)
    assert stored.runs == [94.5, 105.0, 115.5] and stored.rounds == [2, 1, 3]
    point = next(p for p in study_results(study) if p.build_id == new.pk)
    assert point.interval.method == Method.PAIRED_T and point.verdict == Verdict.FASTER
    assert point.interval.low == pytest.approx(
        1.05 * math.exp(-2.2281 * math.sqrt(2 * point_spread(study) / 3)), rel=1e-4
    )  # t(0.975, 10)
    StudyPoint.objects.filter(study=study).update(rounds=[])  # a point written before rounds were kept
    assert next(p for p in study_results(study) if p.build_id == new.pk).verdict == Verdict.TOO_FEW_RUNS


@pytest.mark.django_db
def test_only_earlier_done_measured_studies_on_the_same_host_count(setting):
    host, scenario, old, new = setting
    study = _study(host, scenario, [old, new], {(old, 1): [100.0, 101.0, 99.0], (new, 1): [105.0, 106.0, 104.0]})
    figures = {(old, 1): QUIET_RUNS, (new, 1): QUIET_RUNS}
    _study(HostFactory(name="other"), scenario, [old, new], figures, status=Study.Status.DONE)
    _study(host, scenario, [old, new], figures, status=Study.Status.DONE)  # later than the study
    _study(host, scenario, [old, new], figures, status=Study.Status.DONE, kind=Study.Kind.PUBLISHED)
    assert study_spreads(study)[(scenario.pk, 1)].degrees == 8
    Study.objects.exclude(pk=study.pk).filter(db_host=host).update(status=Study.Status.FAILED)
    assert study_spreads(study) == {}
    point = next(p for p in study_results(study) if p.build_id == new.pk)
    assert point.interval.method == Method.PAIRED_OWN and point.interval.degrees == 2  # the rounds alone


@pytest.mark.django_db
def test_the_study_page_gives_what_its_design_could_tell_from_its_own_runs(client, setting):
    from django.urls import reverse

    host, scenario, old, new = setting
    study = _study(host, scenario, [old, new], {(old, 1): QUIET_RUNS, (new, 1): [run * 1.05 for run in QUIET_RUNS]})
    response = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en")
    (row,) = response.context["power"]
    assert (row.power.spread.source, row.power.spread.degrees, row.cv_percent) == ("this study", 8, "0.8%")
    page = response.content.decode()
    assert "What the design could tell, measured" in page and "measured: this study&#x27;s runs" in page


@pytest.mark.django_db
def test_a_study_page_whose_cells_ran_once_says_its_spread_was_not_measured(client, setting):
    from django.urls import reverse

    host, scenario, old, new = setting
    study = _study(host, scenario, [old, new], {(old, 1): [100.0], (new, 1): [105.0]})
    page = client.get(reverse("studies:detail", args=[study.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "no cell of this scenario ran twice or more" in page
    assert "no recent study of this scenario and no noise check" not in page  # the preview's reason, not this one


@pytest.mark.django_db
def test_the_migration_gives_existing_points_their_rounds(setting):
    from importlib import import_module

    from django.db import connection

    host, scenario, old, new = setting
    study = _study(host, scenario, [old, new], {(old, 1): [100.0, 90.0, 110.0], (new, 1): [105.0, 94.5, 115.5]})
    published = _study(host, scenario, [old], {(old, 1): [300.0]}, kind=Study.Kind.PUBLISHED)
    StudyPoint.objects.filter(study=study).update(rounds=[])
    migration = import_module("benchdash.studies.migrations.0026_studypoint_rounds")
    with connection.cursor() as cursor:
        cursor.execute(migration.FILL_ROUNDS)
    stored = StudyPoint.objects.get(study=study, build=new)
    assert stored.runs == [94.5, 105.0, 115.5] and stored.rounds == [2, 1, 3]
    assert StudyPoint.objects.get(study=published).runs == [] == StudyPoint.objects.get(study=published).rounds
