"""Import of published results from CSV: each row is one figure of one published study.

Every row is checked before anything is written; one bad row rejects the whole file. Study and
Trial carry an `import_key` (a hash of what identifies them) so that importing a file again adds nothing.

A figure keeps what its source states and nothing more: its statistic (median, mean, relative, peak,
single run, unstated), its repetitions and threads when stated (unknown otherwise, never 1), and its
conditions: what else sets it apart from another figure of the same version at the same clients
("-t 100", "15 cores"), so that each stays its own point. A study is official (counts in the trends)
unless its rows say `official` false; a year the source does not state is marked `year_inferred`.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from benchdash.inventory.models import Build, version_sort_key
from benchdash.studies.lifecycle.signals import send_series_changed_after_commit
from benchdash.studies.models import Scenario, Study, Trial, Variant
from benchdash.studies.results.store import points_refresh
from benchdash.trends.encodings import EncodingRejected, decode_csv_bytes
from benchdash.trends.import_rows import BOOLEANS, csv_problem, positive_int, row_problems

COLUMNS = (
    "study_year",
    "study_title",
    "source",
    "hardware",
    "os",
    "scenario",
    "pg_version",
    "clients",
    "tps",
    "statistic",
    "repetitions",
    "notes",
)
# Columns a file may leave out: older files have none of them.
OPTIONAL_COLUMNS = ("conditions", "threads", "year_inferred", "official")
# Rows of one study must agree on these.
_STUDY_FIELDS = ("hardware", "os", "statistic", "repetitions", "year_inferred", "official")


class ImportRejected(Exception):
    """The file cannot be imported; `errors` holds one line per problem ('line 4: unknown scenario ...')."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        super().__init__(f"nothing imported, {len(errors)} problem(s):\n" + "\n".join(errors))


@dataclass(frozen=True)
class PublishedRow:
    line: int
    year: int
    title: str
    source: str
    hardware: str
    os: str
    scenario: str
    pg_version: str
    clients: int
    tps: float
    statistic: str
    repetitions: int | None
    notes: str
    conditions: str = ""
    threads: int | None = None
    year_inferred: bool = False
    official: bool = True

    @property
    def study_key(self) -> str:
        return _hash([self.year, self.title, self.source])

    @property
    def trial_key(self) -> str:
        # conditions joins the key only when given, so that files without it keep the keys they were imported with
        parts: list[object] = [self.study_key, self.scenario, self.pg_version, self.clients, self.statistic, self.notes]
        return _hash(parts + [self.conditions] if self.conditions else parts)

    @property
    def point_key(self) -> tuple[str, str, str, int, str]:
        return (self.study_key, self.scenario, self.pg_version, self.clients, self.conditions)


@dataclass
class ImportSummary:
    studies_created: int = 0
    studies_found: int = 0
    trials_created: int = 0
    trials_found: int = 0
    builds_created: int = 0

    def __str__(self) -> str:
        return (
            f"{self.studies_created} studies created, {self.studies_found} already present; "
            f"{self.trials_created} figures created, {self.trials_found} already present; "
            f"{self.builds_created} builds created"
        )


def _hash(parts: list[object]) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


def decode_csv(data: bytes, encoding: str | None = None) -> str:
    """Text of a CSV file: UTF-8, UTF-8 with a BOM or cp932, given or detected (benchdash/trends/encodings.py)."""
    try:
        return decode_csv_bytes(data, encoding)
    except EncodingRejected as error:
        raise ImportRejected([str(error)]) from error


def _row_from_record(line: int, record: dict[str, str]) -> PublishedRow:
    return PublishedRow(
        line=line,
        year=int(record["study_year"]),
        title=record["study_title"],
        source=record["source"],
        hardware=record["hardware"],
        os=record["os"],
        scenario=record["scenario"],
        pg_version=record["pg_version"],
        clients=int(record["clients"]),
        tps=float(record["tps"]),
        statistic=record["statistic"],
        repetitions=positive_int(record["repetitions"]),
        notes=record["notes"],
        conditions=record["conditions"],
        threads=positive_int(record["threads"]),
        year_inferred=BOOLEANS.get(record["year_inferred"].lower(), False),
        official=BOOLEANS.get(record["official"].lower(), True),
    )


def _clean_record(raw: dict[str | None, str | list[str] | None]) -> tuple[dict[str, str], list[str]]:
    """Strip the values; a short row leaves columns missing, a long one has extra fields."""
    problems = [f"missing column {name}" for name in COLUMNS if raw.get(name) is None]
    if raw.get(None):
        problems.append(f"{len(raw[None] or [])} field(s) more than the header")
    record = {name: str(raw.get(name) or "").strip() for name in COLUMNS + OPTIONAL_COLUMNS}
    return record, problems


def _cross_row_problems(rows: list[PublishedRow]) -> list[str]:
    """Duplicates, two figures at one point, and rows of one study that disagree on what describes the study."""
    problems = []
    first_of_trial: dict[str, PublishedRow] = {}
    first_of_point: dict[tuple[str, str, str, int, str], PublishedRow] = {}
    first_of_study: dict[str, PublishedRow] = {}
    for row in rows:
        if (first := first_of_trial.setdefault(row.trial_key, row)) is not row:
            problems.append(f"line {row.line}: duplicate row (same figure as line {first.line})")
        elif (first := first_of_point.setdefault(row.point_key, row)) is not row:
            problems.append(
                f"line {row.line}: a second figure for the study, scenario, version and clients of line {first.line}: "
                "give each a conditions value that tells them apart (e.g. -t 10, -t 100)"
            )
        study_first = first_of_study.setdefault(row.study_key, row)
        differing = [name for name in _STUDY_FIELDS if getattr(row, name) != getattr(study_first, name)]
        if differing:
            problems.append(
                f"line {row.line}: {', '.join(differing)} differ(s) from line {study_first.line} of the same study"
            )
    return problems


def _csv_records(reader: csv.DictReader[str]) -> Iterator[tuple[int, dict[str | None, Any]]]:
    """(line, record) of each row; a row the csv module cannot read ends the file with ImportRejected."""
    try:
        for raw in reader:
            yield reader.line_num, raw
    except csv.Error as error:
        raise ImportRejected([f"line {reader.reader.line_num}: {csv_problem(error)}"]) from error


def _header_problems(reader: csv.DictReader[str]) -> list[str]:
    try:
        fieldnames = reader.fieldnames or []
    except csv.Error as error:
        return [f"line 1: {csv_problem(error)}"]
    missing = [name for name in COLUMNS if name not in fieldnames]
    return [f"line 1: missing column(s) {', '.join(missing)}"] if missing else []


def read_published_rows(text: str, scenarios: set[str]) -> list[PublishedRow]:
    """Every row of the CSV text, checked; raises ImportRejected naming each bad line."""
    reader = csv.DictReader(io.StringIO(text))
    if problems := _header_problems(reader):
        raise ImportRejected(problems)
    rows = []
    try:
        for line, raw in _csv_records(reader):
            record, found = _clean_record(raw)
            found = found or row_problems(record, scenarios)
            if found:
                problems.append(f"line {line}: {'; '.join(found)}")
            else:
                rows.append(_row_from_record(line, record))
    except ImportRejected as unreadable:
        raise ImportRejected(problems + unreadable.errors) from unreadable
    problems += _cross_row_problems(rows)
    if problems:
        raise ImportRejected(problems)
    return rows


def _published_build(version: str, summary: ImportSummary) -> Build:
    build, created = Build.objects.get_or_create(
        name=f"PostgreSQL {version}", defaults={"version": version, "kind": Build.Kind.PUBLISHED}
    )
    summary.builds_created += created
    return build


def _published_study(rows: list[PublishedRow], summary: ImportSummary) -> Study:
    first = rows[0]
    study, created = Study.objects.get_or_create(
        import_key=first.study_key,
        defaults={
            "title": first.title,
            "year": first.year,
            "kind": Study.Kind.PUBLISHED,
            "status": Study.Status.DONE,
            "source": first.source,
            "hardware": first.hardware,
            "os": first.os,
            "statistic": first.statistic,
            "repetitions": first.repetitions,
            "year_inferred": first.year_inferred,
            "official": first.official,
        },
    )
    summary.studies_created += created
    summary.studies_found += not created
    return study


def _complete_study(study: Study, builds: Iterable[Build], scenarios: Iterable[Scenario]) -> None:
    """Builds, scenarios and client levels as the study's figures say; the baseline is its oldest version."""
    study.builds.add(*builds)
    study.scenarios.add(*scenarios)
    trials = study.trials.all()
    study.client_levels = sorted(set(trials.values_list("clients", flat=True)))
    study.baseline = min(study.builds.all(), key=lambda build: version_sort_key(build.version))
    study.save(update_fields=["client_levels", "baseline"])
    Variant.objects.mark_baseline(study)


def _import_study(rows: list[PublishedRow], scenarios: dict[str, Scenario], summary: ImportSummary) -> None:
    study = _published_study(rows, summary)
    existing = set(
        Trial.objects.filter(import_key__in=[row.trial_key for row in rows]).values_list("import_key", flat=True)
    )
    builds = {row.pg_version: _published_build(row.pg_version, summary) for row in rows}
    new_rows = [row for row in rows if row.trial_key not in existing]
    variants = {version: Variant.objects.of_build(study, build) for version, build in builds.items()}
    Trial.objects.bulk_create(
        Trial(
            study=study,
            build=builds[row.pg_version],
            variant=variants[row.pg_version],
            scenario=scenarios[row.scenario],
            clients=row.clients,
            conditions=row.conditions,
            threads=row.threads,
            status=Trial.Status.SUCCEEDED,
            published=True,
            statistic=row.statistic,
            tps=row.tps,
            notes=row.notes,
            import_key=row.trial_key,
        )
        for row in new_rows
    )
    summary.trials_created += len(new_rows)
    summary.trials_found += len(rows) - len(new_rows)
    _complete_study(study, builds.values(), {scenarios[row.scenario] for row in rows})
    if new_rows:
        points_refresh(study_id=study.pk)


def import_published_results(*, data: bytes, encoding: str | None = None) -> ImportSummary:
    """Import a published-results CSV (bytes as read from the file) in one transaction; once it commits, the change
    points of the scenarios it added figures to are recomputed (series_changed)."""
    scenarios = Scenario.objects.in_bulk(field_name="slug")
    rows = read_published_rows(decode_csv(data, encoding), set(scenarios))
    by_study: dict[str, list[PublishedRow]] = {}
    for row in rows:
        by_study.setdefault(row.study_key, []).append(row)
    summary = ImportSummary()
    with transaction.atomic():
        for study_rows in by_study.values():
            _import_study(study_rows, scenarios, summary)
        if summary.trials_created:
            send_series_changed_after_commit(scenarios[row.scenario].pk for row in rows)
    return summary
