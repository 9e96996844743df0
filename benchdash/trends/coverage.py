"""What the history holds and what it lacks: the major versions and the years with figures of official studies,
and those between without any, as the home page states them (computed from the store, never written down)."""

from __future__ import annotations

from dataclasses import dataclass

from benchdash.inventory.models import major_version, version_sort_key
from benchdash.trends.queries import official_points

# The last minor of each major numbered X.Y (7.4, 8.4, 9.6); from 10 a major is one number.
LAST_POINT_MAJOR = {7: 4, 8: 4, 9: 6}


@dataclass(frozen=True)
class HistoryCoverage:
    """The majors and years with figures, oldest first, and those between the oldest and the newest (years: up to
    this year) with none. Only official figures bound the majors: a build registered or a smoke study run never
    changes what the home page says (tests/pages/test_trends_page.py)."""

    versions: list[str]
    missing_versions: list[str]
    years: list[int]
    missing_years: list[int]

    @property
    def missing_year_spans(self) -> list[str]:
        """The missing years, runs of them as spans: [2009, 2010, 2011, 2015] -> ['2009–2011', '2015']."""
        spans: list[list[int]] = []
        for year in self.missing_years:
            if spans and spans[-1][-1] == year - 1:
                spans[-1].append(year)
            else:
                spans.append([year])
        return [str(span[0]) if len(span) == 1 else f"{span[0]}–{span[-1]}" for span in spans]


def history_coverage(this_year: int) -> HistoryCoverage:
    """The coverage of the official studies' figures (trends.queries.official_points), up to this_year."""
    rows = official_points().values_list("build__version", "study__year").distinct()
    versions = sorted({major_version(version) for version, _year in rows}, key=version_sort_key)
    years = sorted({year for _version, year in rows})
    if not versions:
        return HistoryCoverage([], [], [], [])
    return HistoryCoverage(
        versions=versions,
        missing_versions=[major for major in majors_between(versions[0], versions[-1]) if major not in versions],
        years=years,
        missing_years=[year for year in range(years[0], max(this_year, years[-1]) + 1) if year not in years],
    )


def majors_between(first: str, last: str) -> list[str]:
    """Every PostgreSQL major from first to last, both included: '9.4', '11' -> 9.4, 9.5, 9.6, 10, 11."""
    majors = [f"{major}.{minor}" for major, last_minor in LAST_POINT_MAJOR.items() for minor in range(last_minor + 1)]
    majors += [str(major) for major in range(10, int(major_version(last).split(".")[0]) + 1)]
    low, high = version_sort_key(first), version_sort_key(last)
    return [major for major in majors if low <= version_sort_key(major) <= high]
