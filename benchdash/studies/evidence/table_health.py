"""Table health: what the engine read of the pgbench tables and indexes before and after each run
(workers/table_health.py), as one row per relation.

A trial's rows come from its `table_health` artifact (summarize_table_health, pure); a study's are the means over
its trials per variant × scenario × clients × relation (study_table_health), read by its page and its CSV.

- dead-tuple share: n_dead_tup / (n_live_tup + n_dead_tup) of pg_stat_user_tables (an estimate the server keeps);
- HOT share: the run's HOT updates / its updates (n_tup_hot_upd, n_tup_upd after minus before);
- pgstattuple's dead_tuple_percent (dead tuples' bytes / the table's) and free_percent, where the build has it:
  what seed 003 reports (「dead_tuple_percent | 8.66」).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction

from benchdash.studies.models import Scenario, Study, TrialEvidence, Variant

# A study row's figures: the means over its trials (None where no trial had the figure).
FIGURES = (
    "bytes_before",
    "bytes_after",
    "dead_share_before",
    "dead_share_after",
    "updates",
    "hot_updates",
    "hot_share",
    "pgstattuple_dead_percent_before",
    "pgstattuple_dead_percent_after",
    "pgstattuple_free_percent_before",
    "pgstattuple_free_percent_after",
)
MIB = 1 << 20
_STAT_FIELDS = {"dead_percent": "dead_tuple_percent", "free_percent": "free_percent"}


def summarize_table_health(readings: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The engine's readings ({"before": ..., "after": ...}) -> a row per relation, in the engine's order."""
    before, after = readings.get("before") or {}, readings.get("after") or {}
    relations = {row["name"]: row for row in before.get("relations", [])}
    relations.update({row["name"]: row for row in after.get("relations", [])})
    return [_relation_row(relation, before, after) for relation in relations.values()]


def _relation_row(relation: Mapping[str, Any], before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    name = relation["name"]
    row: dict[str, Any] = {"name": name, "table": relation["table"], "kind": relation["kind"]}
    for moment, reading in (("before", before), ("after", after)):
        row[f"bytes_{moment}"] = _find(reading.get("relations"), name).get("bytes")
    if relation["kind"] == "table":
        row.update(_table_figures(name, before, after))
    return row


def _table_figures(name: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    stats = {moment: _find(reading.get("tables"), name) for moment, reading in (("before", before), ("after", after))}
    figures: dict[str, Any] = {f"dead_share_{moment}": _dead_share(found) for moment, found in stats.items()}
    updates = _difference(stats, "n_tup_upd")
    hot_updates = _difference(stats, "n_tup_hot_upd")
    hot_share = hot_updates / updates if updates and hot_updates is not None else None
    figures.update(updates=updates, hot_updates=hot_updates, hot_share=hot_share)
    for moment, reading in (("before", before), ("after", after)):
        stattuple = _find(reading.get("pgstattuple"), name)
        for short, key in _STAT_FIELDS.items():
            figures[f"pgstattuple_{short}_{moment}"] = stattuple.get(key)
    return figures


def _find(rows: list[dict[str, Any]] | None, name: str) -> dict[str, Any]:
    return next((row for row in rows or [] if row.get("name") == name), {})


def _dead_share(stats: Mapping[str, Any]) -> float | None:
    live, dead = stats.get("n_live_tup"), stats.get("n_dead_tup")
    if live is None or dead is None or live + dead == 0:
        return None
    return dead / (live + dead)


def _difference(stats: Mapping[str, Mapping[str, Any]], key: str) -> int | None:
    first, last = stats["before"].get(key), stats["after"].get(key)
    return None if first is None or last is None else last - first


# -- a study ------------------------------------------------------------------------------------
@dataclass
class TableHealthRow:
    """One relation at one variant × scenario × clients of a study: its figures' means over the trials."""

    scenario: str
    variant: str
    build: str
    build_version: str
    clients: int
    relation: str
    table: str
    kind: str
    trials: int = 0
    figures: dict[str, float | None] = field(default_factory=dict)

    @property
    def growth(self) -> float | None:
        """Size after / size before, e.g. 141/128 = 1.10 for seed 003's 8.1.4 accounts."""
        first, last = self.figures.get("bytes_before"), self.figures.get("bytes_after")
        return last / first if first and last is not None else None

    @property
    def shown(self) -> dict[str, float | None]:
        """The page's cells: sizes in MiB, shares in %."""
        figures = self.figures
        return {
            "mib_before": _scaled(figures.get("bytes_before"), 1 / MIB),
            "mib_after": _scaled(figures.get("bytes_after"), 1 / MIB),
            "growth_percent": _scaled(None if self.growth is None else self.growth - 1, 100),
            "dead_before": _scaled(figures.get("dead_share_before"), 100),
            "dead_after": _scaled(figures.get("dead_share_after"), 100),
            "updates": figures.get("updates"),
            "hot_share": _scaled(figures.get("hot_share"), 100),
            "stattuple_dead_before": figures.get("pgstattuple_dead_percent_before"),
            "stattuple_dead_after": figures.get("pgstattuple_dead_percent_after"),
            "stattuple_free_after": figures.get("pgstattuple_free_percent_after"),
        }


def _scaled(value: float | None, factor: float) -> float | None:
    return None if value is None else value * factor


def trial_table_health(evidence: TrialEvidence) -> list[TableHealthRow]:
    """A trial's own rows, for its page."""
    rows = evidence.table_health
    return [TableHealthRow("", "", "", "", 0, row["name"], row["table"], row["kind"], 1, row) for row in rows]


def study_table_health(study: Study) -> list[TableHealthRow]:
    """Every relation's row of a study, by scenario, variant order, clients, then the engine's relation order."""
    collected: dict[tuple[Any, ...], tuple[TableHealthRow, list[dict[str, Any]]]] = {}
    for row in _evidence_rows(study):
        for relation in row["table_health"]:
            key = (row["trial__scenario_id"], row["order"], row["clients"], relation["name"])
            if key not in collected:
                collected[key] = (_study_row(row, relation), [])
            collected[key][1].append(relation)
    ordered = [collected[key] for key in sorted(collected, key=lambda key: key[:3])]
    return [_with_means(row, relations) for row, relations in ordered]


def _evidence_rows(study: Study) -> Iterator[dict[str, Any]]:
    """The table health of each trial of the study, with its variant's (or, without one, its build's) names."""
    variants = {variant.pk: variant for variant in Variant.objects.filter(study=study).select_related("build")}
    scenarios = dict(Scenario.objects.filter(studies=study).values_list("pk", "slug"))
    rows = (
        TrialEvidence.objects.filter(trial__study=study)
        .exclude(table_health=[])
        .order_by("trial__position")
        .values(
            "table_health",
            "trial__variant_id",
            "trial__scenario_id",
            "trial__clients",
            "trial__build__name",
            "trial__build__version",
        )
    )
    # Read through a cursor (the study's rows may be many); planned for all its rows, not the first tenth: for a
    # cursor PostgreSQL otherwise walks the study's trials in order and probes each one's evidence, a cost that grows
    # with the study even where no trial has table health (docs/BENCHMARKS.md).
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL cursor_tuple_fraction = 1")
        yield from (_named(row, variants, scenarios) for row in rows.iterator())


def _named(row: Mapping[str, Any], variants: Mapping[int, Variant], scenarios: Mapping[int, str]) -> dict[str, Any]:
    variant = variants.get(row["trial__variant_id"])
    return {
        **row,
        "scenario": scenarios.get(row["trial__scenario_id"], ""),
        "variant": variant.label if variant else row["trial__build__name"],
        "order": (variant.position, variant.pk) if variant else (0, 0),
        "clients": row["trial__clients"],
    }


def _study_row(row: Mapping[str, Any], relation: Mapping[str, Any]) -> TableHealthRow:
    return TableHealthRow(
        scenario=row["scenario"],
        variant=row["variant"],
        build=row["trial__build__name"],
        build_version=row["trial__build__version"],
        clients=row["clients"],
        relation=relation["name"],
        table=relation["table"],
        kind=relation["kind"],
    )


def _with_means(row: TableHealthRow, relations: list[dict[str, Any]]) -> TableHealthRow:
    row.trials = len(relations)
    for name in FIGURES:
        values = [relation[name] for relation in relations if relation.get(name) is not None]
        row.figures[name] = statistics.fmean(values) if values else None
    return row
