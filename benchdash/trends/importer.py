"""Import of published results from CSV: each row is one figure of one published study.

Every row is checked before anything is written; one bad row rejects the whole file. Study and
Trial carry an `import_key` (a hash of what identifies them) so that importing a file again adds nothing.

A figure keeps what its source states and nothing more: its statistic (median, mean, relative, peak,
single run, unstated), its repetitions and threads when stated (unknown otherwise, never 1), and its
conditions: what else sets it apart from another figure of the same version at the same clients
("-t 100", "15 cores"), so that each stays its own point. A study is official (counts in the trends)
unless its rows say `official` false; a year the source does not state is marked `year_inferred`.
"""

import csv
import hashlib
import io
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from django.db import transaction

from benchdash.inventory.models import Build, version_sort_key
from benchdash.studies.models import Scenario, Statistic, Study, Trial
from benchdash.studies.points import points_refresh

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
FIRST_YEAR = 1996  # the first release named PostgreSQL
# ASCII digits only (re.ASCII): \d, int() and float() also take other scripts' digits, such as '１３' or '٣'.
_VERSION_RE = re.compile(r"\d{1,2}\.\d{1,2}(\.\d{1,2})?((alpha|beta|rc)\d+)?", re.ASCII)
_POSITIVE_INT_RE = re.compile(r"[0-9]{1,9}", re.ASCII)
_NUMBER_RE = re.compile(r"[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?", re.ASCII)
_BOOLEANS = {"true": True, "false": False}
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
    """Text of a CSV file: BOM -> utf-8-sig; valid UTF-8 -> utf-8; else cp932 (what Excel writes in Japan)."""
    if encoding is None:
        if data.startswith(b"\xef\xbb\xbf"):
            encoding = "utf-8-sig"
        else:
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError:
                encoding = "cp932"
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        raise ImportRejected([f"cannot read the file as {encoding}: {error}"]) from error


def _positive_int(value: str) -> int | None:
    return int(value) if _POSITIVE_INT_RE.fullmatch(value) and int(value) > 0 else None


def _non_negative_float(value: str) -> float | None:
    if not _NUMBER_RE.fullmatch(value):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _row_problems(record: dict[str, str], scenarios: set[str]) -> list[str]:
    problems = []
    if not record["study_title"]:
        problems.append("empty study_title")
    year = _positive_int(record["study_year"])
    if year is None or not FIRST_YEAR <= year <= date.today().year + 1:
        problems.append(f"study_year {record['study_year']!r} out of range {FIRST_YEAR}..{date.today().year + 1}")
    if record["scenario"] not in scenarios:
        problems.append(f"unknown scenario {record['scenario']!r}")
    if not _VERSION_RE.fullmatch(record["pg_version"]):
        problems.append(f"pg_version {record['pg_version']!r} is not like 9.4, 13.4 or 14.0")
    if _positive_int(record["clients"]) is None:
        problems.append(f"clients {record['clients']!r} is not a positive integer")
    if _non_negative_float(record["tps"]) is None:
        problems.append(f"tps {record['tps']!r} is not a non-negative number")
    if record["statistic"] not in Statistic.values:
        problems.append(f"statistic {record['statistic']!r} is not one of {', '.join(Statistic.values)}")
    if record["repetitions"] and _positive_int(record["repetitions"]) is None:
        problems.append(f"repetitions {record['repetitions']!r} is not a positive integer")
    if record["threads"] and _positive_int(record["threads"]) is None:
        problems.append(f"threads {record['threads']!r} is not a positive integer")
    for name in ("year_inferred", "official"):
        if record[name] and record[name].lower() not in _BOOLEANS:
            problems.append(f"{name} {record[name]!r} is not true or false")
    return problems


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
        repetitions=_positive_int(record["repetitions"]),
        notes=record["notes"],
        conditions=record["conditions"],
        threads=_positive_int(record["threads"]),
        year_inferred=_BOOLEANS.get(record["year_inferred"].lower(), False),
        official=_BOOLEANS.get(record["official"].lower(), True),
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


def read_published_rows(text: str, scenarios: set[str]) -> list[PublishedRow]:
    """Every row of the CSV text, checked; raises ImportRejected naming each bad line."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [name for name in COLUMNS if name not in (reader.fieldnames or [])]
    if missing:
        raise ImportRejected([f"line 1: missing column(s) {', '.join(missing)}"])
    rows, problems = [], []
    for raw in reader:
        record, row_problems = _clean_record(raw)
        row_problems = row_problems or _row_problems(record, scenarios)
        if row_problems:
            problems.append(f"line {reader.line_num}: {'; '.join(row_problems)}")
        else:
            rows.append(_row_from_record(reader.line_num, record))
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


def _import_study(rows: list[PublishedRow], scenarios: dict[str, Scenario], summary: ImportSummary) -> None:
    study = _published_study(rows, summary)
    existing = set(
        Trial.objects.filter(import_key__in=[row.trial_key for row in rows]).values_list("import_key", flat=True)
    )
    builds = {row.pg_version: _published_build(row.pg_version, summary) for row in rows}
    new_rows = [row for row in rows if row.trial_key not in existing]
    Trial.objects.bulk_create(
        Trial(
            study=study,
            build=builds[row.pg_version],
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
    """Import a published-results CSV (bytes as read from the file) in one transaction."""
    scenarios = Scenario.objects.in_bulk(field_name="slug")
    rows = read_published_rows(decode_csv(data, encoding), set(scenarios))
    by_study: dict[str, list[PublishedRow]] = {}
    for row in rows:
        by_study.setdefault(row.study_key, []).append(row)
    summary = ImportSummary()
    with transaction.atomic():
        for study_rows in by_study.values():
            _import_study(study_rows, scenarios, summary)
    return summary
