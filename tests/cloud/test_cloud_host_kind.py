"""A cloud study runs on hosts made for it, new every time: they are of their template's kind (its instance type and
image), so each borrows the spread history of the studies before it on instances of that kind."""

import pytest
from django.utils import translation

from benchdash.cloud.creation import cloud_study_create
from benchdash.cloud.models import CloudInstance, CloudStudy
from benchdash.inventory.models import Build, Host
from benchdash.studies.forms import StudyForm
from benchdash.studies.models import Study
from benchdash.studies.results.host_spread import study_spreads
from benchdash.studies.results.queries import study_history_sources, study_results
from benchdash.studies.results.uncertainty import Method, Verdict
from tests.cloud.conftest import ELSEWHERE, make_template
from tests.factories import succeeded_runs
from tests.queue.support import form_data, register_host

pytestmark = pytest.mark.django_db

QUIET_RUNS = [100.0, 101.0, 99.0, 100.5, 99.5]


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


@pytest.fixture
def builds() -> tuple[Build, Build]:
    return tuple(
        Build.objects.create(name=f"pg{major}", version=f"{major}.4", kind=Build.Kind.INSTALLED, bin_dir="/usr/bin")
        for major in (15, 16)
    )


def cloud_study(template, builds, scenario) -> CloudStudy:
    """A study queued on the template, its planned trials left out: the tests give it its runs."""
    data = form_data(
        host=register_host(ELSEWHERE), builds=builds, baseline=builds[0], scenarios=[scenario], clients="1"
    )
    form = StudyForm(data)
    assert form.is_valid(), form.errors
    cloud = cloud_study_create(template=template, design=form.design(), study_seconds=form.estimated_seconds())
    cloud.study.trials.all().delete()
    return cloud


def test_a_cloud_studys_instance_host_gets_the_history_of_its_templates_kind(presets, builds):
    scenario, (old, new) = presets["pgecons-reference"], builds
    template = make_template()
    earlier = cloud_study(template, builds, scenario)
    succeeded_runs(earlier.study, scenario, {(old, 1): QUIET_RUNS, (new, 1): QUIET_RUNS})
    Study.objects.filter(pk=earlier.study_id).update(status=Study.Status.DONE)

    later = cloud_study(template, builds, scenario)
    study = later.study
    succeeded_runs(study, scenario, {(old, 1): [100.0, 101.0, 99.0]})
    succeeded_runs(study, scenario, {(new, 1): [105.0, 106.0, 104.0]}, first_repetition=4)

    host = later.instances.get(role=CloudInstance.Role.DB).host
    assert (host.cloud_instance_type, host.cloud_image) == ("m5a.8xlarge", template.image_id)
    assert host != earlier.instances.get(role=CloudInstance.Role.DB).host
    spread = study_spreads(study)[(scenario.pk, 1)]
    assert (spread.degrees, spread.studies, spread.kind) == (8, 1, "m5a.8xlarge instances")
    point = next(point for point in study_results(study) if point.build_id == new.pk)
    assert point.verdict == Verdict.FASTER and point.interval.method == Method.POOLED_T
    assert study_history_sources(study, study_results(study)) == ["from 1 study on m5a.8xlarge instances"]


def test_instances_of_another_type_share_nothing(presets, builds):
    scenario, (old, new) = presets["pgecons-reference"], builds
    earlier = cloud_study(make_template(), builds, scenario)
    succeeded_runs(earlier.study, scenario, {(old, 1): QUIET_RUNS, (new, 1): QUIET_RUNS})
    Study.objects.filter(pk=earlier.study_id).update(status=Study.Status.DONE)

    other = cloud_study(make_template(name="bigger", db_instance_type="m5a.16xlarge"), builds, scenario)

    assert study_spreads(other.study) == {}


def test_the_migration_gives_hosts_made_before_kinds_their_templates_and_takes_it_back(presets, builds):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("benchdash.cloud.migrations.0004_hosts_take_their_templates_kind")
    template = make_template()
    cloud = cloud_study(template, builds, presets["pgecons-reference"])
    made = Host.objects.filter(pk__in=cloud.instances.values("host_id"))
    made.update(cloud_instance_type="", cloud_image="")  # as made before hosts had a kind

    migration.hosts_take_their_kind(apps, None)

    kinds = {host.name.rsplit("-", 1)[1]: (host.cloud_instance_type, host.cloud_image) for host in made}
    assert kinds == {"db": ("m5a.8xlarge", template.image_id), "client": ("c5.2xlarge", template.image_id)}
    assert Host.objects.get(name=ELSEWHERE.name).cloud_instance_type == ""
    migration.hosts_lose_their_kind(apps, None)
    assert set(made.values_list("cloud_instance_type", "cloud_image")) == {("", "")}


def test_the_cloud_forms_preview_gives_the_spread_of_the_templates_earlier_instances(presets, builds, settings):
    from decimal import Decimal

    from benchdash.cloud.forms import CloudStudyForm

    settings.CLOUD_STUDY_BUDGET_USD, settings.CLOUD_MONTHLY_BUDGET_USD = Decimal(100), Decimal(1000)
    scenario, (old, new) = presets["pgecons-reference"], builds
    template = make_template()
    earlier = cloud_study(template, builds, scenario)
    succeeded_runs(earlier.study, scenario, {(old, 1): QUIET_RUNS, (new, 1): QUIET_RUNS})
    Study.objects.filter(pk=earlier.study_id).update(status=Study.Status.DONE)
    data = form_data(host=register_host(ELSEWHERE), builds=builds, baseline=old, scenarios=[scenario], clients="1")
    del data["db_host"], data["client_host"], data["queue"]

    form = CloudStudyForm({**data, "template": template.pk, "repetitions": "3"})
    assert form.is_valid(), form.errors
    (row,) = form.preview()["power"]

    assert (row.power.spread.degrees, row.cv_percent) == (8, "0.8%")
    assert str(row.source_label) == "from 1 study on m5a.8xlarge instances"
