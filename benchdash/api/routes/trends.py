"""The chained version index per scenario, and every study's links behind it."""

from typing import Any

from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja.pagination import paginate

from benchdash.api.pagination import Page
from benchdash.api.params import CheckedRouter
from benchdash.api.schemas import LinkOut, TrendOut
from benchdash.studies.models import Scenario
from benchdash.trends.index import IndexPoint, LinkVerdict, ScenarioTrend, link_verdicts
from benchdash.trends.queries import trend_of, trends_data

router = CheckedRouter(tags=["trends"])


@router.get("/trends", response=list[TrendOut], summary="The chained version index of every scenario")
@paginate(Page)
def trends(request: HttpRequest) -> list[dict[str, Any]]:
    return [_trend(trend) for trend in trends_data()]


@router.get("/trends/{slug}", response=TrendOut, summary="One scenario's chained version index")
def trend(request: HttpRequest, slug: str) -> dict[str, Any]:
    return _trend(trend_of(get_object_or_404(Scenario, slug=slug)))


@router.get("/trends/{slug}/links", response=list[LinkOut], summary="The links of one scenario's index")
@paginate(Page)
def trend_links(request: HttpRequest, slug: str) -> list[dict[str, Any]]:
    """Every official study's ratio between two majors, in version order, and whether the index uses it ("used"),
    preferred another study's ("preferred") or had joined its versions by nearer links ("joined")."""
    scenario_trend = trend_of(get_object_or_404(Scenario, slug=slug))
    return [_link(verdict) for verdict in link_verdicts(scenario_trend.links, scenario_trend.index)]


def _trend(trend: ScenarioTrend) -> dict[str, Any]:
    return {
        "scenario_slug": trend.scenario_slug,
        "scenario_name": trend.scenario_name,
        "index": [_index_point(point) for point in trend.index],
    }


def _index_point(point: IndexPoint) -> dict[str, Any]:
    return {
        "version": point.version,
        "index": point.index,
        "segment": point.segment,
        "starts_segment": point.starts_segment,
        "reached_from": point.reached_from,
        "backward": point.backward,
        "gap_from": point.gap_from,
        "study_id": point.link.study.study_id if point.link else None,
        "index_low": point.interval[0] if point.interval else None,
        "index_high": point.interval[1] if point.interval else None,
    }


def _link(verdict: LinkVerdict) -> dict[str, Any]:
    link = verdict.link
    return {
        "older_version": link.older_version,
        "newer_version": link.newer_version,
        "older_build": link.older_build,
        "newer_build": link.newer_build,
        "ratio": link.ratio,
        "ratio_low": link.interval[0] if link.interval else None,
        "ratio_high": link.interval[1] if link.interval else None,
        "study_id": link.study.study_id,
        "study_year": link.study.year,
        "study_title": link.study.title,
        "statistic": link.study.statistic,
        "levels": list(link.levels),
        "verdict": verdict.verdict,
    }
