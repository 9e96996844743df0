"""postgresql.conf settings as a study takes them: one 'name = value' per line, parsed and checked here
for every way a study is made or changed (the form and queue_study, the admin, run_trial).

Three layers of checks, each with its reason in the message:
1. the lines: 'name = value', a setting name, no name twice;
2. what a study may set: never a setting of the classes in workers/settings_rules.py (commands,
   libraries, files, listening), and otherwise only the allowlist below, which an administrator widens
   with BENCHDASH_STUDY_SETTINGS_EXTRA (settings.STUDY_SETTINGS_EXTRA), never per study;
3. the values, against the settings catalog of each chosen build's major (see validation.py).
"""

from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from workers.settings_catalog import SettingInfo, SettingsCatalog, catalog_majors, load_catalog
from workers.settings_rules import SETTING_NAME_RE, Refusal, never_allowed, settings_refusals

# Performance settings: memory, I/O, WAL, checkpoints, planner, parallelism, autovacuum, locks, statistics,
# and logging levels. Category names as pg_settings gives them (they changed between majors).
ALLOWED_CATEGORIES = frozenset(
    {
        "Autovacuum",
        "Vacuuming / Automatic Vacuuming",
        "Vacuuming / Cost-Based Vacuum Delay",
        "Vacuuming / Default Behavior",
        "Vacuuming / Freezing",
        "Resource Usage / Memory",
        "Resource Usage / Disk",
        "Resource Usage / Kernel Resources",
        "Resource Usage / Cost-Based Vacuum Delay",
        "Resource Usage / Background Writer",
        "Resource Usage / Asynchronous Behavior",
        "Resource Usage / I/O",
        "Resource Usage / Worker Processes",
        "Write-Ahead Log / Settings",
        "Write-Ahead Log / Checkpoints",
        "Write-Ahead Log / Recovery",
        "Query Tuning / Planner Method Configuration",
        "Query Tuning / Planner Cost Constants",
        "Query Tuning / Genetic Query Optimizer",
        "Query Tuning / Other Planner Options",
        "Lock Management",
        "Statistics / Monitoring",
        "Statistics / Query and Index Statistics Collector",
        "Statistics / Cumulative Query and Index Statistics",
        "Reporting and Logging / What to Log",
        "Reporting and Logging / When to Log",
        "Process Title",
        "Reporting and Logging / Process Title",
    }
)
# Single settings from other categories: connection counts (the seeds set max_connections), what
# wal_level = minimal needs (max_wal_senders = 0), transaction defaults and timeouts, vacuum freezing
# (under Statement Behavior before 18), and where the log goes inside the cluster.
ALLOWED_NAMES = frozenset(
    {
        "max_connections",
        "superuser_reserved_connections",
        "reserved_connections",
        "max_wal_senders",
        "max_replication_slots",
        "default_transaction_isolation",
        "statement_timeout",
        "lock_timeout",
        "idle_in_transaction_session_timeout",
        "gin_pending_list_limit",
        "vacuum_freeze_min_age",
        "vacuum_freeze_table_age",
        "vacuum_multixact_freeze_min_age",
        "vacuum_multixact_freeze_table_age",
        "vacuum_failsafe_age",
        "vacuum_multixact_failsafe_age",
        "vacuum_cleanup_index_scale_factor",
        "logging_collector",
        "log_rotation_age",
        "log_rotation_size",
        "log_truncate_on_rotation",
        "log_directory",
        "log_filename",
    }
)
# Text settings a study may set: text the server takes as it is, or a path that must stay in the cluster
# (settings_rules checks it). Any other text setting is checked by the server in ways benchdash cannot
# check ahead (time zones, lists), so it is not allowed.
TEXT_SETTINGS = frozenset({"log_line_prefix", "application_name", "log_directory", "log_filename"})

NOT_ALLOWED = _(
    "%(name)s is not among the settings a study may change (%(category)s). A study may change memory, WAL, "
    "checkpoint, planner, parallelism, autovacuum and logging settings; an administrator may allow more "
    "with BENCHDASH_STUDY_SETTINGS_EXTRA."
)
UNKNOWN_EVERYWHERE = _("Unknown setting name: %(name)s (no PostgreSQL major that benchdash knows has it).")


def parse_settings(text: str) -> dict[str, str]:
    """'name = value' per line ('#' starts a comment; a value may be quoted) -> {name: value}, each setting
    one a study may set. Raises ValidationError with every problem found, each naming its line or setting."""
    parsed, problems = _parse_lines(text)
    problems += [problem for name, value in parsed.items() if (problem := setting_problem(name, value))]
    if problems:
        raise ValidationError(problems)
    return parsed


def check_settings(pg_settings: Mapping[str, Any]) -> dict[str, str]:
    """The same checks for settings that come as a mapping (a preset, a stored study): values as text."""
    return parse_settings(settings_text(pg_settings))


def settings_text(pg_settings: Mapping[str, Any]) -> str:
    """The settings as the lines parse_settings reads back (a value quoted when it needs it)."""
    return "\n".join(f"{name} = {_quoted(str(value))}" for name, value in pg_settings.items())


def _quoted(value: str) -> str:
    plain = value and value == value.strip() and not any(char in value for char in "'#\n\r")
    return value if plain else "'" + value.replace("'", "''").replace("\n", " ").replace("\r", " ") + "'"


def _parse_lines(text: str) -> tuple[dict[str, str], list[ValidationError]]:
    parsed: dict[str, str] = {}
    first_line: dict[str, int] = {}
    problems: list[ValidationError] = []
    for number, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.strip()
        if not line or line.startswith("#"):
            continue
        name, equals, rest = (part.strip() for part in line.partition("="))
        value = _value(rest)
        params = {"number": number, "name": name}
        if not equals or not name or value is None:
            problems.append(ValidationError(_("Line %(number)s is not 'name = value'."), params=params))
        elif not SETTING_NAME_RE.fullmatch(name):
            problems.append(ValidationError(_("Line %(number)s: %(name)s is not a setting name."), params=params))
        elif name.lower() in first_line:
            message = _("%(name)s is set twice (lines %(first)s and %(number)s).")
            problems.append(ValidationError(message, params={**params, "first": first_line[name.lower()]}))
        else:
            first_line[name.lower()] = number
            parsed[name] = value
    return parsed, problems


def _value(rest: str) -> str | None:
    """The value after '=': a quoted string ('' is a quote inside it) or the text before a '#' comment;
    None when a quoted value is not closed or is followed by more than a comment."""
    if not rest.startswith("'"):
        return rest.split("#", 1)[0].strip()
    chars, index = [], 1
    while index < len(rest):
        if rest[index] == "'":
            if rest[index + 1 : index + 2] == "'":
                chars.append("'")
                index += 2
                continue
            after = rest[index + 1 :].strip()
            return "".join(chars) if not after or after.startswith("#") else None
        chars.append(rest[index])
        index += 1
    return None


# -- what a study may set -------------------------------------------------------------------------
def describe(name: str) -> SettingInfo | None:
    """The newest catalog's description of `name`, or None when no major benchdash knows has it."""
    for major in reversed(catalog_majors()):
        catalog = load_catalog(major)
        if catalog is not None and (info := catalog.get(name)) is not None:
            return info
    return None


def setting_problem(name: str, value: str) -> ValidationError | None:
    """Why a study may not set `name = value` whatever the build; None when it may (values are checked per
    major later)."""
    info = describe(name)
    refusal = never_allowed(name, value, info)
    if refusal is not None:
        return refusal_error(refusal)
    if name.lower() in extra_allowed():
        return None
    if info is None:
        return ValidationError(UNKNOWN_EVERYWHERE, params={"name": name})
    if not is_allowed(info):
        return ValidationError(NOT_ALLOWED, params={"name": name, "category": info.category})
    return None


def is_allowed(info: SettingInfo) -> bool:
    """Whether the allowlist takes this setting (the never-allowed classes are checked before)."""
    name = info.name.lower()
    if info.vartype == "string" and name not in TEXT_SETTINGS:
        return name in extra_allowed()
    return name in ALLOWED_NAMES or info.category in ALLOWED_CATEGORIES or name in extra_allowed()


def extra_allowed() -> frozenset[str]:
    return frozenset(name.strip().lower() for name in settings.STUDY_SETTINGS_EXTRA if name.strip())


def allowed_settings(catalog: SettingsCatalog) -> list[str]:
    """Every setting of this major the allowlist takes (for the documentation and the tests). The allowlist
    holds none of the never-allowed classes itself (a test checks it); they would be refused all the same."""
    return sorted(info.name for info in catalog.settings.values() if info.context != "internal" and is_allowed(info))


def every_major_problems(pg_settings: Mapping[str, str]) -> list[ValidationError]:
    """The values against every major that knows each setting: for settings not yet tied to builds (a preset)."""
    refusals = []
    for major in catalog_majors():
        catalog = load_catalog(major)
        known = {name: value for name, value in pg_settings.items() if catalog and catalog.get(name)}
        refusals += settings_refusals(catalog, known) if catalog else []
    return refusal_errors(refusals)


def refusal_error(refusal: Refusal) -> ValidationError:
    """A rule's refusal as a translated field error (the rules mark their messages for translation)."""
    return ValidationError(_(refusal.message), params=dict(refusal.params))


def refusal_errors(refusals: Iterable[Refusal]) -> list[ValidationError]:
    return [refusal_error(refusal) for refusal in refusals]
