"""Each change in a scenario's official index is marked on the trends page's index chart: a dashed line before its
version, its size and confidence above the line, and a triangle on its point whose hover names it."""

import pytest
from django.urls import reverse
from django.utils import translation

from benchdash.changes.models import ChangePoint
from benchdash.changes.refresh import changes_refresh
from benchdash.trends.change_marks import ChangeMark
from benchdash.trends.charts import index_figure
from benchdash.trends.index import IndexPoint
from tests.changes.test_change_pages import figure, page
from tests.changes.test_changes_refresh import official_index_with_a_step


def test_the_index_figure_draws_a_line_a_note_and_a_hover_at_a_change():
    points = [IndexPoint(version, value, 1, version == "12") for version, value in (("12", 100.0), ("13", 80.0))]
    with translation.override("en"):
        drawn = index_figure(points, changes=[ChangeMark("12", "13", -0.2, 0.99995)])
    line = drawn["layout"]["shapes"][-1]
    assert (line["x0"], line["x1"], line["line"]["dash"]) == (0.5, 0.5, "dash")
    assert drawn["layout"]["annotations"][-1]["text"] == "-20.0% (> 99.99%)"
    marks = drawn["data"][-1]
    assert (marks["x"], marks["y"]) == (["13"], [80.0])
    assert marks["hovertext"] == ["change 12 → 13: -20.0%, confidence > 99.99%"]


def test_a_change_of_a_version_the_chart_lacks_is_not_drawn():
    points = [IndexPoint("12", 100.0, 1, True), IndexPoint("13", 99.0, 1, False)]
    drawn = index_figure(points, changes=[ChangeMark("14", "15", 0.1, 0.999)])
    assert len(drawn["layout"]["shapes"]) == 1 and len(drawn["data"]) == 1


@pytest.mark.django_db
def test_the_trends_page_marks_the_official_index_step_with_its_confidence(client, member):
    official_index_with_a_step()
    changes_refresh()
    html = page(client, reverse("trends:index"))
    change = ChangePoint.objects.get()
    drawn = figure(html, f"index-{change.scenario_id}")
    versions = drawn["layout"]["xaxis"]["categoryarray"]
    [line] = [shape for shape in drawn["layout"]["shapes"] if shape.get("xref") == "x"]
    assert line["x0"] == versions.index("14") - 0.5
    assert drawn["data"][-1]["hovertext"] == [f"change 13 → 14: -20.0%, confidence {change.confidence_percent}"]
    assert drawn["layout"]["annotations"][-1]["text"] == f"-20.0% ({change.confidence_percent})"
