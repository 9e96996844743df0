"""Every chart that can be embedded (docs/PAGES.md, "Embedded charts"), one entry each: a new chart costs one line.

An entry names the chart (its URL names: `embeds:<name>_png`, `_svg`, `_frame`), its address under /embed/ (a Django
route; `.png`, `.svg` and `/` are added), the function that finds its figure, title and stamp (None: no such chart,
a 404), and who may see it: the rule of the chart's own page. Every page of these charts is open to whoever may read
(benchdash.access.read_access: anyone with PUBLIC_READ on, else a member), so each entry names that rule; a chart
whose page asked more would name its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpRequest

from benchdash.api.tokens import reader_allowed
from benchdash.reports import embed_other_charts as other
from benchdash.reports import embed_study_charts as study
from benchdash.reports.embeds import Embed


@dataclass(frozen=True)
class EmbeddableChart:
    name: str
    route: str
    build: Callable[..., Embed | None]  # the route's values and `state` (the query) as keywords
    allowed: Callable[[HttpRequest], bool] = reader_allowed  # the page's rule: a session, a token, or PUBLIC_READ


CHARTS = [
    EmbeddableChart("study", "studies/<int:pk>/<slug:scenario>", study.study_chart),
    EmbeddableChart("study_scalability", "studies/<int:pk>/scalability/<slug:figure>", study.scalability_chart),
    EmbeddableChart("study_evidence", "studies/<int:pk>/evidence/<slug:figure>", study.evidence_chart),
    EmbeddableChart("trial", "trials/<int:pk>/<slug:figure>", study.trial_chart),
    EmbeddableChart("minors", "studies/<int:pk>/minors/<slug:scenario>", other.minors_chart),
    EmbeddableChart("trend", "trends/<slug:scenario>", other.trend_chart),
    EmbeddableChart("trend_study", "trends/<slug:scenario>/studies/<int:study>", other.trend_study_chart),
    EmbeddableChart("change", "changes/<int:pk>", other.change_chart),
    EmbeddableChart("change_series", "changes/<int:pk>/series", other.change_series_chart),
    EmbeddableChart("compare", "compare", other.compare_chart),
]
