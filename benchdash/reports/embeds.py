"""What an embedded chart is (docs/PAGES.md, "Embedded charts"): any chart of the pages, the very figure its page
draws, with its title and the stamp that says what made it: the statistic, the threshold, the interval method, the
host, the source, the chart's own state (scenario, client level, zoom) and "benchdash <page> <date of the last change>".

Which charts may be embedded, and how each is found, is the registry (embed_registry.py). The stamp's date is that of
the figures' last change, not of the request: the same figures give the same bytes, so an embed's ETag (a digest of
everything drawn) holds until something drawn changes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.db.models import Max
from django.utils.translation import gettext as _

from benchdash.studies.models import Statistic, Study
from benchdash.studies.results.tables import ScenarioTable

SOURCE_LENGTH = 140  # a published source is a citation: its start names it
Parameters = list[tuple[str, str]]  # (name, value), in the order stamped


class EmbedRefused(ValueError):
    """The chart's state in the address is wrong (a bad ref, a bad zoom): answered 400 with this message."""


@dataclass(frozen=True)
class Embed:
    title: str
    subtitle: str
    figure: dict  # the plotly figure of the chart's page: drawn as PNG and SVG, and by plotly in the iframe
    parameters: Parameters  # statistic, threshold, interval method, host, source, then the chart's state
    page: str  # the chart's own page, where its figures are explained (a path, made absolute by the view)
    last_change: datetime
    state: Parameters = field(default_factory=list)

    @property
    def lines(self) -> list[str]:
        """The stamp: a line per parameter, then where it comes from and as of when."""
        footer = f"benchdash {self.page} {self.last_change.date().isoformat()}"
        return [f"{name}: {value}" for name, value in self.parameters + self.state] + [footer]

    @property
    def draws_icicle(self) -> bool:
        """A perf call tree, which only the larger plotly.js bundle draws in the iframe (deploy/plotly-bundles.txt)."""
        return any(trace.get("type") == "icicle" for trace in self.figure.get("data") or [])

    def zoomed(self, zoom: tuple[float, float, float, float]) -> Embed:
        """The chart at a zoom (x from, x to, y from, y to) as its page keeps it in its address, stamped with it."""
        layout = dict(self.figure.get("layout") or {})
        layout["xaxis"] = {**(layout.get("xaxis") or {}), "range": list(zoom[:2]), "autorange": False}
        layout["yaxis"] = {**(layout.get("yaxis") or {}), "range": list(zoom[2:]), "autorange": False}
        text = _("x %(x0)g – %(x1)g, y %(y0)g – %(y1)g") % dict(zip(("x0", "x1", "y0", "y1"), zoom, strict=True))
        return replace(self, figure={**self.figure, "layout": layout}, state=[*self.state, (_("zoom"), text)])

    def etag(self, variant: str) -> str:
        """A digest of everything drawn, and the variant (the format, the language)."""
        drawn = json.dumps([self.title, self.subtitle, self.lines, self.figure, variant], sort_keys=True, default=str)
        return hashlib.sha256(drawn.encode()).hexdigest()[:32]


def study_parameters(study: Study, interval_method: str) -> Parameters:
    """What made a study's chart: its statistic, threshold, interval method, DB host and source."""
    return [
        (_("statistic"), statistic_text(study.statistic)),
        (_("threshold"), f"{study.threshold_percent}%"),
        (_("interval method"), interval_method),
        (_("DB host"), host_text(study)),
        (_("source"), source_text(study)),
    ]


def studies_parameters(studies: list[Study], interval_method: str, source: str) -> Parameters:
    """The same for a chart over several studies: each parameter's distinct values."""
    return [
        (_("statistic"), distinct(statistic_text(study.statistic) for study in studies)),
        (_("threshold"), distinct(f"{study.threshold_percent}%" for study in studies)),
        (_("interval method"), interval_method),
        (_("DB host"), distinct(host_text(study) for study in studies)),
        (_("source"), cut(source)),
    ]


def table_interval_methods(table: ScenarioTable) -> str:
    labels = (str(cell.method_label) for row in table.rows for cell in row.compared_cells if cell.method_label)
    return distinct(labels) if table.comparisons else "—"


def studies_last_change(study_ids: Iterable[int]) -> datetime:
    """When the studies last changed: made, started, finished, marked official, or a trial finished."""
    latest = Study.objects.filter(pk__in=list(study_ids)).aggregate(
        created=Max("created_at"),
        started=Max("started_at"),
        finished=Max("finished_at"),
        official=Max("official_at"),
        trial=Max("trials__finished_at"),
    )
    return max(moment for moment in latest.values() if moment is not None)


def statistic_text(statistic: str) -> str:
    return str(Statistic(statistic).label) if statistic in Statistic.values else statistic


def host_text(study: Study) -> str:
    """The DB host as benchdash knows it (name and CPU), or the hardware a published source states."""
    if study.db_host is not None:
        cpu = (study.db_host.facts or {}).get("cpu_model")
        return f"{study.db_host.name} ({cpu})" if cpu else study.db_host.name
    return study.hardware or "—"


def source_text(study: Study) -> str:
    if study.is_published:
        return cut(study.source or "—")
    return _("benchdash study %(number)s: %(study)s") % {"number": study.pk, "study": study}


def distinct(texts: Iterable[str]) -> str:
    return "; ".join(dict.fromkeys(text for text in texts if text)) or "—"


def cut(text: str) -> str:
    return text if len(text) <= SOURCE_LENGTH else text[: SOURCE_LENGTH - 1] + "…"
