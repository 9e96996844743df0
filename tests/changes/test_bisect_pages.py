"""Starting a bisect: the button on a change between two minors, the form given two builds of one major, and
`manage.py bisect`; the bisect's page lists every step."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from benchdash.changes.models import Bisect, ChangePoint, SeriesKind
from tests.changes.test_bisect_service import builds, template  # noqa: F401 (a fixture)
from tests.factories import BuildFactory, ScenarioFactory

pytestmark = pytest.mark.django_db


def test_the_button_on_a_change_starts_a_bisect_over_the_registered_minors(client, member, template):  # noqa: F811
    minors, scenario = builds(), ScenarioFactory()
    change = ChangePoint.objects.create(
        series_key="study:1",
        series_kind=SeriesKind.STUDY,
        series_title="17.0 vs 17.4",
        scenario=scenario,
        clients=4,
        before_label="17.0",
        after_label="17.4",
        after_study=template,
        before_study=template,
        before_build=minors[0],
        after_build=minors[-1],
        mean_before=1000,
        mean_after=920,
        size=-0.08,
        pvalue=1e-6,
    )
    response = client.post(reverse("changes:bisect_from_change", args=[change.pk]))
    bisect = Bisect.objects.get()
    assert response.url == reverse("changes:bisect", args=[bisect.pk])
    assert (bisect.minors(), bisect.direction, bisect.change) == (minors, "slower", change)
    [step] = bisect.steps.all()
    assert (step.low, step.compared) == (0, 2)
    page = client.get(response.url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f"bisect {bisect.pk}: 17.0 vs 17.2" in page and "at most 4 studies" in page


def test_the_form_refuses_two_majors_and_starts_from_two_builds_of_one(client, member, template):  # noqa: F811
    minors, scenario = builds(), ScenarioFactory()
    other = BuildFactory(version="16.9")
    fields = {"template": template.pk, "scenario": scenario.pk, "clients": 4}
    form = {**fields, "first": other.pk, "last": minors[-1].pk}
    refused = client.post(reverse("changes:bisect_new"), form, HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 200 and "must be of one major" in refused.content.decode()
    assert not Bisect.objects.exists()
    client.post(reverse("changes:bisect_new"), {**fields, "first": minors[1].pk, "last": minors[3].pk})
    bisect = Bisect.objects.get()
    assert [build.version for build in bisect.minors()] == ["17.1", "17.2", "17.3"]
    assert bisect.steps.get().compared == 2  # the ends first: the direction is not known yet


@pytest.mark.slow
def test_the_command_fetches_the_range_and_starts_the_bisect(template):  # noqa: F811
    scenario = ScenarioFactory()
    out = StringIO()
    args = ["--template", str(template.pk), "--scenario", scenario.slug, "--clients", "2"]
    try:
        call_command("bisect", "--builds", "16.13..16.14", *args, stdout=out)
    except CommandError as error:
        if "reach the registry" in str(error):
            pytest.skip("no npm registry")
        raise
    bisect = Bisect.objects.get(pk=int(out.getvalue()))
    assert [build.version for build in bisect.minors()] == ["16.13", "16.14"]
    with pytest.raises(CommandError, match="give --change"):
        call_command("bisect")
