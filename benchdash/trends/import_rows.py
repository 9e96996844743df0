"""One row of a published-results file, checked value by value against what a real benchmark can produce.

Every check names the column and the value (cut to 40 characters); the importer adds the line.
"""

import csv
import re
from datetime import date

from benchdash.studies.models import Statistic, Study, Trial
from benchdash.studies.results.compare import TPS_BOUNDS

FIRST_YEAR = 1996  # the first release named PostgreSQL
# ASCII digits only (re.ASCII): \d, int() and float() also take other scripts' digits, such as '１３' or '٣'.
_VERSION_RE = re.compile(r"\d{1,2}\.\d{1,2}(\.\d{1,2})?((alpha|beta|rc)\d+)?", re.ASCII)
_POSITIVE_INT_RE = re.compile(r"[0-9]{1,9}", re.ASCII)
_NUMBER_RE = re.compile(r"[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?", re.ASCII)
_DIGITS_RE = re.compile(r"[0-9]+", re.ASCII)
BOOLEANS = {"true": True, "false": False}
# What a real benchmark can produce (tps: TPS_BOUNDS in benchdash/studies/results/compare.py); clients and threads:
# at most PostgreSQL's largest max_connections.
INT_BOUNDS = {"clients": 262143, "threads": 262143, "repetitions": 1000}
# Text columns and the field each is stored in: longer text is refused, not cut.
TEXT_LIMITS = {
    "study_title": Study._meta.get_field("title").max_length or 0,
    "hardware": Study._meta.get_field("hardware").max_length or 0,
    "os": Study._meta.get_field("os").max_length or 0,
    "conditions": Trial._meta.get_field("conditions").max_length or 0,
}


def positive_int(value: str) -> int | None:
    return int(value) if _POSITIVE_INT_RE.fullmatch(value) and int(value) > 0 else None


def _shown(value: str) -> str:
    """A value as a message quotes it: at most 40 characters."""
    return repr(value if len(value) <= 40 else value[:40] + "…")


def _int_problem(name: str, value: str) -> str | None:
    if not _DIGITS_RE.fullmatch(value) or int(value.lstrip("0") or "0") == 0:
        return f"{name} {_shown(value)} is not a positive integer"
    if len(value) > 9 or int(value) > INT_BOUNDS[name]:
        return f"{name} {_shown(value)} is above {INT_BOUNDS[name]}, more than any benchmark has"
    return None


def _tps_problem(value: str) -> str | None:
    if not _NUMBER_RE.fullmatch(value):
        return f"tps {_shown(value)} is not a non-negative number"
    tps = float(value)
    if tps < TPS_BOUNDS[0]:
        return f"tps {_shown(value)} is below {TPS_BOUNDS[0]:g}, less than any benchmark reports"
    if tps >= TPS_BOUNDS[1]:
        return f"tps {_shown(value)} is above {TPS_BOUNDS[1]:g}, more than any benchmark reaches"
    return None


def _text_problems(record: dict[str, str]) -> list[str]:
    problems = [f"{name} holds a NUL character" for name, value in record.items() if "\0" in value]
    for name, limit in TEXT_LIMITS.items():
        if len(record[name]) > limit:
            problems.append(f"{name} has {len(record[name])} characters, at most {limit}")
    return problems


def row_problems(record: dict[str, str], scenarios: set[str]) -> list[str]:
    problems = _text_problems(record)
    if not record["study_title"]:
        problems.append("empty study_title")
    year = positive_int(record["study_year"])
    if year is None or not FIRST_YEAR <= year <= date.today().year + 1:
        problems.append(f"study_year {_shown(record['study_year'])} out of range {FIRST_YEAR}..{date.today().year + 1}")
    if record["scenario"] not in scenarios:
        problems.append(f"unknown scenario {record['scenario']!r}")
    if not _VERSION_RE.fullmatch(record["pg_version"]):
        problems.append(f"pg_version {record['pg_version']!r} is not like 9.4, 13.4 or 14.0")
    problems += filter(None, [_int_problem("clients", record["clients"]), _tps_problem(record["tps"])])
    if record["statistic"] not in Statistic.values:
        problems.append(f"statistic {record['statistic']!r} is not one of {', '.join(Statistic.values)}")
    problems += filter(None, [_int_problem(name, record[name]) for name in ("repetitions", "threads") if record[name]])
    for name in ("year_inferred", "official"):
        if record[name] and record[name].lower() not in BOOLEANS:
            problems.append(f"{name} {record[name]!r} is not true or false")
    return problems


def csv_problem(error: csv.Error) -> str:
    """What csv.Error means in words a person who edits the file can act on."""
    message = str(error)
    if message.startswith("new-line character"):
        return "a line break inside a field that is not quoted (a stray CR?): remove it or quote the field"
    if message.startswith("field larger than field limit"):
        return f"a field longer than {csv.field_size_limit()} characters"
    return f"not CSV: {message}"
