"""The embeddable charts of the pages over several studies (embed_registry.py): the trends' version index of a
scenario and each study's curves beside it, a change point's series, a minor series study's TPS per minor, and the
comparison of two sides (/compare/). Each is the figure its page draws, found as the page finds it."""

from __future__ import annotations

from collections.abc import Mapping

from django.urls import reverse
from django.utils.translation import gettext as _

from benchdash.changes.compare_page import side_by_side
from benchdash.changes.forms import CompareForm
from benchdash.changes.models import ChangePoint
from benchdash.changes.pages import change_figure, minor_changes, minor_figures
from benchdash.changes.side_by_side import SideBySideRow
from benchdash.reports.embeds import (
    Embed,
    EmbedRefused,
    distinct,
    studies_last_change,
    studies_parameters,
    study_parameters,
)
from benchdash.studies.models import Study
from benchdash.trends.page import TrendSection, trend_sections
from benchdash.trends.queries import trends_data

DETECTION = "e-divisive means (Otava)"


def trend_chart(*, scenario: str, state: Mapping[str, str]) -> Embed | None:
    """The version index of the scenario over official studies, as the trends page draws it."""
    section = _trend_section(scenario)
    if section is None or not section.trend.index:
        return None
    trend = section.trend
    study_ids = sorted({point.link.study.study_id for point in trend.index if point.link})
    studies = list(Study.objects.filter(pk__in=study_ids).select_related("db_host").order_by("year", "title"))
    source = _("official studies: %(studies)s") % {"studies": "; ".join(map(str, studies))}
    method = _("each link's interval on its runs' own spread, multiplied along the chain")
    return Embed(
        title=f"{_('Version index across studies')} · {trend.scenario_name}",
        subtitle=_("Trends: official studies only; each link is a ratio measured by one study"),
        figure=section.figure,
        parameters=studies_parameters(studies, method, source),
        page=reverse("trends:index") + f"#trend-{scenario}",
        last_change=studies_last_change(study_ids),
    )


def trend_study_chart(*, scenario: str, study: int, state: Mapping[str, str]) -> Embed | None:
    """A study's TPS-vs-clients curves of the scenario beside the index on the trends page."""
    section = _trend_section(scenario)
    chart = next((chart for chart in section.studies if chart.study.pk == study), None) if section else None
    if section is None or chart is None:
        return None
    return Embed(
        title=f"{section.trend.scenario_name} · {chart.study.year} {chart.study.title}",
        subtitle=_("Trends: official studies only; each link is a ratio measured by one study"),
        figure=chart.figure,
        parameters=study_parameters(chart.study, "—"),
        page=reverse("trends:index") + f"#{chart.figure_id}",
        last_change=studies_last_change([study]),
    )


def change_chart(*, pk: int, state: Mapping[str, str]) -> Embed | None:
    """A change point's series with the change marked, as the change's page draws it."""
    change = ChangePoint.objects.select_related("before_study__db_host", "after_study__db_host").filter(pk=pk).first()
    if change is None:
        return None
    return _change_embed(change, change_figure(change), reverse("changes:detail", args=[pk]))


def change_series_chart(*, pk: int, state: Mapping[str, str]) -> Embed | None:
    """The series of a change point with every change of the series marked, as the changes list draws it."""
    change = ChangePoint.objects.select_related("before_study__db_host", "after_study__db_host").filter(pk=pk).first()
    if change is None:
        return None
    others = ChangePoint.objects.filter(series_key=change.series_key).exclude(pk=pk).order_by("-index")
    return _change_embed(change, change_figure(change, others), reverse("changes:list") + "?shown=all")


def minors_chart(*, pk: int, scenario: str, state: Mapping[str, str]) -> Embed | None:
    """A minor series study's TPS per minor of a scenario, with its changes marked."""
    study = Study.objects.select_related("db_host").filter(pk=pk).first()
    figures = minor_figures(study, minor_changes(study)) if study else []
    found = next(((row, figure) for row, _id, figure in figures if row.slug == scenario), None)
    if study is None or found is None:
        return None
    row, figure = found
    return Embed(
        title=_("TPS per minor · %(scenario)s") % {"scenario": row.display_name},
        subtitle=f"{study.year} {study.title}",
        figure=figure,
        parameters=study_parameters(study, DETECTION),
        page=reverse("changes:minors", args=[pk]),
        last_change=studies_last_change([pk]),
        state=[(_("scenario"), row.display_name)],
    )


def compare_chart(*, state: Mapping[str, str]) -> Embed | None:
    """Two sides (`?a=<ref>&b=<ref>`) side by side, as /compare/ draws them; a bad ref is refused with its reason."""
    form = CompareForm({"a": state.get("a", ""), "b": state.get("b", "")})
    if not form.is_valid():
        raise EmbedRefused("; ".join(f"{name}: {' '.join(map(str, errors))}" for name, errors in form.errors.items()))
    a, b = form.cleaned_data["a"], form.cleaned_data["b"]
    page = side_by_side(a, b)
    studies = [a.study] if a.study.pk == b.study.pk else [a.study, b.study]
    source = "; ".join(f"{side.title} ({side.study})" for side in (a, b))
    return Embed(
        title=_("b against a: %(b)s / %(a)s") % {"a": a.title, "b": b.title},
        subtitle=" · ".join(f"{study.year} {study.title}" for study in studies),
        figure=page.figure,
        parameters=studies_parameters(studies, _interval_methods(page.rows), source),
        page=reverse("compare:sides") + "?" + page.query,
        last_change=studies_last_change([study.pk for study in studies]),
        state=[("a", a.ref), ("b", b.ref)],
    )


def _trend_section(scenario: str) -> TrendSection | None:
    trends = [trend for trend in trends_data() if trend.scenario_slug == scenario]
    studies = Study.objects.select_related("db_host").in_bulk({ref.study_id for t in trends for ref in t.studies})
    return next(iter(trend_sections(trends, studies)), None)


def _change_embed(change: ChangePoint, figure: dict, page: str) -> Embed:
    studies = [study for study in (change.before_study, change.after_study) if study is not None]
    studies = list({study.pk: study for study in studies}.values())
    confidence = _("%(method)s, confidence %(confidence)s") % {
        "method": DETECTION,
        "confidence": change.confidence_percent,
    }
    found = [(_("change"), f"{change.before_label} → {change.after_label} {change.size_percent}")]
    last = max([change.found_at, studies_last_change([s.pk for s in studies])] if studies else [change.found_at])
    return Embed(
        title=change.series_title,
        subtitle=change.get_series_kind_display(),
        figure=figure,
        parameters=studies_parameters(studies, confidence, "; ".join(map(str, studies)) or "—"),
        page=page,
        last_change=last,
        state=found,
    )


def _interval_methods(rows: list[SideBySideRow]) -> str:
    return distinct(str(label) for row in rows if (label := getattr(row.ratio, "method_label", "")))
