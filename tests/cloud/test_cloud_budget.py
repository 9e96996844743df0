"""The new-study page on a cloud template previews its instances, time and cost at the template's prices, and
refuses a study over the per-study or the monthly budget, in English and Japanese, saving nothing."""

from decimal import Decimal

import pytest
from django.urls import reverse

from benchdash.cloud.creation import cloud_study_create
from benchdash.cloud.forms import CloudStudyForm
from benchdash.cloud.models import CloudTemplate
from benchdash.inventory.models import Build
from benchdash.studies.models import Study
from tests.cloud.conftest import make_template
from tests.queue.support import form_data, register_host
from workers.spec import HostSpec

pytestmark = pytest.mark.django_db


@pytest.fixture
def cloud_form(presets, settings) -> dict:
    """The page's data for a one-trial study on the consortium template (set-up 15 minutes)."""
    settings.CLOUD_STUDY_BUDGET_USD, settings.CLOUD_MONTHLY_BUDGET_USD = Decimal(100), Decimal(1000)
    template = make_template()
    build = Build.objects.create(name="pg15", version="15.4", kind=Build.Kind.INSTALLED, bin_dir="/usr/lib/pg/bin")
    host = register_host(HostSpec(name="elsewhere", address="192.0.2.1"))
    data = form_data(host=host, builds=[build], baseline=build, scenarios=[presets["pgecons-reference"]], clients="1")
    del data["db_host"], data["client_host"], data["queue"]
    return {**data, "template": template.pk, "preview": "1"}


def cost_of(data: dict):
    form = CloudStudyForm(data)
    assert form.is_valid(), form.errors
    return form.cloud_estimate(), form.estimated_seconds()


def test_the_preview_shows_the_instances_and_the_time_and_cost_at_the_template_s_prices(client, member, cloud_form):
    cost, seconds = cost_of(cloud_form)
    hours = Decimal(15 * 60 + seconds) / 3600
    assert cost.hours == hours.quantize(Decimal("0.01"))
    assert abs(cost.cost - hours * Decimal("1.716")) <= Decimal("0.01")
    assert cost.cost_bound >= cost.cost

    page = client.post(reverse("cloud:new"), cloud_form).content.decode()

    assert "DB host: m5a.8xlarge at 1.3760 USD an hour" in page
    assert "pgbench host: c5.2xlarge at 0.3400 USD an hour" in page
    assert f"about {cost.hours} hours with the set-up: {cost.cost} USD" in page
    assert f"at most {cost.cost_bound} USD" in page
    assert 'name="queue"' in page


def test_a_study_over_the_per_study_budget_is_refused_in_english_and_japanese(client, member, cloud_form, settings):
    cost, _ = cost_of(cloud_form)
    settings.CLOUD_STUDY_BUDGET_USD = cost.cost_bound - Decimal("0.01")

    english = client.post(reverse("cloud:new"), {**cloud_form, "queue": "1"}).content.decode()
    japanese = client.post(reverse("cloud:new"), cloud_form, HTTP_ACCEPT_LANGUAGE="ja").content.decode()

    budget = settings.CLOUD_STUDY_BUDGET_USD
    assert f"may cost up to {cost.cost_bound} USD on consortium, over the per-study budget of {budget} USD" in english
    assert f"1 検証あたりの予算 {budget} USD を超えます" in japanese
    assert 'name="queue"' not in english and not Study.objects.filter(title="queue test").exists()


def test_a_study_that_would_take_the_month_over_its_budget_is_refused(client, member, cloud_form, settings):
    cost, _ = cost_of(cloud_form)
    form = CloudStudyForm(cloud_form)
    assert form.is_valid()
    earlier = cloud_study_create(template=CloudTemplate.objects.get(), design=form.design(), study_seconds=3600)
    settings.CLOUD_MONTHLY_BUDGET_USD = earlier.cost_bound + cost.cost_bound - Decimal("0.01")

    page = client.post(reverse("cloud:new"), {**cloud_form, "queue": "1"}).content.decode()

    assert f"with {earlier.cost_bound} USD spent or held by cloud studies this month" in page
    assert f"over the monthly budget of {settings.CLOUD_MONTHLY_BUDGET_USD} USD" in page
    assert Study.objects.filter(title="queue test").count() == 1

    settings.CLOUD_MONTHLY_BUDGET_USD += Decimal("0.01")
    response = client.post(reverse("cloud:new"), {**cloud_form, "queue": "1"})
    assert response.status_code == 302 and Study.objects.filter(title="queue test").count() == 2
