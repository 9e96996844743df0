"""What a study may never set on a target, and whether a value is one the server would take.

Both sides use these rules: the web side before anything is queued (benchdash/studies/pg_settings.py,
which adds the allowlist), the engine again when it writes the study's settings on the target
(cluster.configure), so a row changed behind the forms' back still never reaches postgresql.conf.

Values are read as the server reads them (guc.c: parse_bool, parse_int, parse_real, enum lookup, the
unit tables, the range in pg_settings), for the major the catalog describes. Where the server is laxer
the rules are stricter, never the other way: numbers are plain decimals (no hex, octal, leading zeros,
inf or nan) and nothing around a value is trimmed.
"""

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from workers.settings_catalog import SettingInfo, SettingsCatalog, load_catalog


def gettext_noop(message: str) -> str:
    """Marks a message for `makemessages`: the web side shows it translated, the engine in English."""
    return message


@dataclass(frozen=True)
class Refusal:
    """Why one setting is refused: a message with %(name)s-style fields, and their values."""

    message: str
    params: Mapping[str, object] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message % self.params


RUNS_A_COMMAND = gettext_noop(
    "%(name)s runs a command on the target, as the account that runs PostgreSQL: a study may never set it."
)
LOADS_CODE = gettext_noop("%(name)s loads code into the server: a study may never set it.")
EXTENSION_SETTING = gettext_noop(
    "%(name)s belongs to an extension library, and a study may never load one: it cannot set it."
)
NAMES_A_FILE = gettext_noop(
    "%(name)s names a file or directory of the server, which may lie outside its cluster: a study may never set it."
)
LEAVES_THE_CLUSTER = gettext_noop(
    "%(name)s = %(value)s points outside the cluster: give a relative path without '..' (and, for a file name, "
    "without '/')."
)
NOT_THE_LOG_DIRECTORY = gettext_noop(
    "%(name)s = %(value)s: the server's log may only go to its own log directory, never among the files it reads "
    "at start: give log, or a directory below it (log/benchdash) named with letters, digits and . _ -."
)
NOT_A_LOG_FILE_NAME = gettext_noop(
    "%(name)s = %(value)s: give a plain file name of letters, digits, strftime escapes (%%Y, %%a ...) and . _ -, "
    "not starting with a dot; the file goes in log_directory."
)
LISTENING = gettext_noop(
    "%(name)s decides where the server listens or who may connect to it: benchdash sets that, never a study."
)
UNKNOWN = gettext_noop("PostgreSQL %(major)s has no setting named %(name)s.")
FIXED = gettext_noop(
    "%(name)s is fixed when PostgreSQL is built or its cluster is made (initdb): a setting cannot change it."
)
TOO_LONG = gettext_noop("%(name)s: a value may have at most %(limit)s characters.")
NUL = gettext_noop("%(name)s: a value cannot hold a NUL character.")
NOT_BOOL = gettext_noop("%(name)s = %(value)s: PostgreSQL %(major)s wants on or off.")
NOT_CHOICE = gettext_noop("%(name)s = %(value)s: PostgreSQL %(major)s wants one of %(choices)s.")
NOT_NUMBER = gettext_noop("%(name)s = %(value)s: PostgreSQL %(major)s wants a number, with no unit.")
NOT_WHOLE_NUMBER = gettext_noop("%(name)s = %(value)s: PostgreSQL %(major)s wants a whole number, with no unit.")
NOT_QUANTITY = gettext_noop(
    "%(name)s = %(value)s: PostgreSQL %(major)s wants a number, optionally followed by a unit (%(units)s)."
)
NOT_WHOLE_QUANTITY = gettext_noop(
    "%(name)s = %(value)s: PostgreSQL %(major)s wants a whole number, optionally followed by a unit (%(units)s)."
)
TOO_MANY_PROCESSES = gettext_noop(
    "max_connections with the autovacuum workers, worker processes and WAL senders makes %(total)s server "
    "processes: PostgreSQL %(major)s allows at most %(limit)s."
)
NO_CATALOG = gettext_noop(
    "benchdash has no settings catalog for PostgreSQL %(major)s, so it cannot check settings for it: run "
    "`manage.py settings_catalog %(major)s` with a build of that major registered, and commit "
    "workers/settings_catalog/%(major)s.json."
)
OUT_OF_RANGE = gettext_noop("%(name)s = %(value)s: PostgreSQL %(major)s accepts %(minimum)s to %(maximum)s.")

VALUE_LIMIT = 1000
INT_MAX = 2**31 - 1
# The server's MAX_BACKENDS: connections and background processes together.
MAX_BACKENDS = 2**18 - 1
SETTING_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?", re.ASCII)

# -- what no study may set ------------------------------------------------------------------------
_LOADS_CODE = frozenset({"dynamic_library_path", "jit_provider", "extension_control_path", "extension_destdir"})
_LISTENING = frozenset(
    {"listen_addresses", "port", "unix_socket_directories", "unix_socket_group", "unix_socket_permissions"}
    | {"bonjour", "bonjour_name"}
)
_LISTENING_CATEGORIES = (
    "Connections and Authentication / Authentication",
    "Connections and Authentication / SSL",
    "Connections and Authentication / Security and Authentication",
)
# postgresql.conf directives that read another file: never setting names, refused by name all the same.
_INCLUDES = frozenset({"include", "include_dir", "include_if_exists"})
_FILE_SUFFIXES = ("_file", "_directory", "_directories", "_dir", "_keyfile")
# The files the server writes that a study may name: its log, in the data directory's log/ or below it only,
# where the server reads nothing (postgresql.conf, pg_hba.conf, standby.signal, global/pg_control ... lie elsewhere).
_LOG_DIRECTORY_RE = re.compile(r"log(?:/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*", re.ASCII)
_LOG_FILENAME_RE = re.compile(r"[A-Za-z0-9_%-][A-Za-z0-9_%.-]*", re.ASCII)
_LOG_PATHS = {
    "log_directory": (_LOG_DIRECTORY_RE, NOT_THE_LOG_DIRECTORY),
    "log_filename": (_LOG_FILENAME_RE, NOT_A_LOG_FILE_NAME),
}


def never_allowed(name: str, value: str, info: SettingInfo | None = None) -> Refusal | None:
    """The reason no study may set `name` (to `value`), or None. Decided by name first, so that a setting
    unknown to the catalog is refused for what it would do, and by the catalog's category after."""
    lowered = name.lower()
    params = {"name": name, "value": value}
    category = info.category if info else ""
    if lowered.endswith("_command"):
        return Refusal(RUNS_A_COMMAND, params)
    if "librar" in lowered or lowered in _LOADS_CODE or category.endswith("Shared Library Preloading"):
        return Refusal(LOADS_CODE, params)
    if "." in lowered:
        return Refusal(EXTENSION_SETTING, params)
    if lowered in _LISTENING or lowered.startswith("ssl") or category in _LISTENING_CATEGORIES:
        return Refusal(LISTENING, params)
    if lowered in _LOG_PATHS:
        return _log_path_refusal(lowered, value, params)
    if lowered in _INCLUDES or lowered.endswith(_FILE_SUFFIXES) or category == "File Locations":
        return Refusal(NAMES_A_FILE, params)
    return None


def _log_path_refusal(name: str, path: str, params: Mapping[str, object]) -> Refusal | None:
    pattern, message = _LOG_PATHS[name]
    if pattern.fullmatch(path):
        return None
    leaves = path.startswith(("/", "~")) or ".." in path.split("/") or (name == "log_filename" and "/" in path)
    return Refusal(LEAVES_THE_CLUSTER if leaves else message, params)


# -- whether the server takes a value --------------------------------------------------------------
def setting_refusal(catalog: SettingsCatalog, name: str, value: str) -> Refusal | None:
    """Why this major's server, or benchdash, refuses `name = value`; None when it is fine."""
    info = catalog.get(name)
    refusal = never_allowed(name, value, info)
    if refusal is not None:
        return refusal
    params = {"name": name, "value": value, "major": catalog.major}
    if not SETTING_NAME_RE.fullmatch(name) or info is None:
        return Refusal(UNKNOWN, params)
    if info.context == "internal":
        return Refusal(FIXED, params)
    if len(value) > VALUE_LIMIT:
        return Refusal(TOO_LONG, {**params, "limit": VALUE_LIMIT})
    if "\x00" in value:
        return Refusal(NUL, params)
    return value_refusal(info, value, catalog.major)


def settings_refusals(catalog: SettingsCatalog, settings: Mapping[str, str]) -> list[Refusal]:
    """Every setting's refusal, then the one check across settings: the number of server processes."""
    refusals = [refusal for name, value in settings.items() if (refusal := setting_refusal(catalog, name, value))]
    return refusals or [refusal for refusal in [processes_refusal(catalog, settings)] if refusal]


def study_settings_refusals(major: int, settings: Mapping[str, str]) -> list[Refusal]:
    """What the engine checks before it writes a study's settings on a target of this major: the
    never-allowed classes first (they need no catalog), then the major's catalog, which must exist."""
    refusals = [refusal for name, value in settings.items() if (refusal := never_allowed(name, value))]
    if refusals or not settings:
        return refusals
    catalog = load_catalog(major)
    if catalog is None:
        return [Refusal(NO_CATALOG, {"major": major})]
    return settings_refusals(catalog, settings)


def setting_number(catalog: SettingsCatalog, settings: Mapping[str, str], name: str) -> float | None:
    """A numeric setting as the study sets it (any case of its name), else the major's default, in the
    setting's unit; None when the major has no such setting or the value is not one the server takes."""
    info = catalog.get(name)
    if info is None:
        return None
    given = [value for key, value in settings.items() if key.lower() == name]
    return parse_quantity(info, given[0] if given else info.default, catalog.major)


def setting_bytes(catalog: SettingsCatalog, settings: Mapping[str, str], name: str) -> float | None:
    """A memory setting (setting_number) in bytes; None when it is not a memory setting or not known."""
    number = setting_number(catalog, settings, name)
    info = catalog.get(name)
    if number is None or info is None or info.unit not in _MEMORY_BASE_UNITS:
        return None
    return number * _BASE_UNITS[info.unit]


def processes_refusal(catalog: SettingsCatalog, settings: Mapping[str, str]) -> Refusal | None:
    """The server counts connections, autovacuum workers (slots from 18), background workers and WAL senders
    against MAX_BACKENDS, plus a launcher or two: more refuses to start."""
    autovacuum = "autovacuum_worker_slots" if catalog.get("autovacuum_worker_slots") else "autovacuum_max_workers"
    names = ("max_connections", autovacuum, "max_worker_processes", "max_wal_senders")
    numbers = [setting_number(catalog, settings, name) or 0.0 for name in names]
    total = int(sum(numbers)) + 2
    if total <= MAX_BACKENDS:
        return None
    return Refusal(TOO_MANY_PROCESSES, {"total": total, "major": catalog.major, "limit": MAX_BACKENDS})


def value_refusal(info: SettingInfo, value: str, major: int) -> Refusal | None:
    params = {"name": info.name, "value": value, "major": major}
    if info.vartype == "bool":
        return None if parse_bool(value) is not None else Refusal(NOT_BOOL, params)
    if info.vartype == "enum":
        return None if enum_choice(info, value) is not None else Refusal(NOT_CHOICE, _with_choices(info, params))
    if info.vartype in ("integer", "real"):
        return _number_refusal(info, value, major, params)
    return None


def _with_choices(info: SettingInfo, params: dict[str, object]) -> dict[str, object]:
    return {**params, "choices": ", ".join(info.enumvals)}


def parse_bool(value: str) -> bool | None:
    """As the server's parse_bool: a prefix of true/false/yes/no (t, fa, y), on, of(f), 1, 0; any case."""
    lowered = value.lower()
    if lowered in ("1", "0"):
        return lowered == "1"
    if lowered in ("on", "of", "off"):
        return lowered == "on"
    for word, meaning in (("true", True), ("false", False), ("yes", True), ("no", False)):
        if lowered and word.startswith(lowered):
            return meaning
    return None


_BOOL_SPELLINGS = ("true", "false", "yes", "no", "1", "0")


def enum_choice(info: SettingInfo, value: str) -> str | None:
    """The enum value `value` names (any case). An enum that offers on and off also takes the boolean
    spellings the server keeps hidden from pg_settings (true, yes, 1 ...)."""
    choices = {choice.lower(): choice for choice in info.enumvals}
    if {"on", "off"} <= choices.keys():
        choices.update({spelling: spelling for spelling in _BOOL_SPELLINGS})
    return choices.get(value.lower())


# -- numbers and their units ------------------------------------------------------------------------
_WHOLE_RE = re.compile(r"[+-]?(?:0|[1-9][0-9]*)", re.ASCII)
_DECIMAL_RE = re.compile(r"[+-]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_SPACE = " \t\n\r\f\v"
# Each unit in bytes or in milliseconds, largest first (the order the server rounds fractions in).
_MEMORY_UNITS = {"TB": 1024.0**4, "GB": 1024.0**3, "MB": 1024.0**2, "kB": 1024.0, "B": 1.0}
_TIME_UNITS = {"d": 86400000.0, "h": 3600000.0, "min": 60000.0, "s": 1000.0, "ms": 1.0, "us": 0.001}
_BASE_UNITS = {"B": 1.0, "kB": 1024.0, "8kB": 8192.0, "MB": 1024.0**2, "ms": 1.0, "s": 1000.0, "min": 60000.0}
_MEMORY_BASE_UNITS = ("B", "kB", "8kB", "MB")


def _unit_table(base_unit: str, major: int) -> dict[str, float]:
    """The units this major accepts for a setting measured in base_unit: bytes came in 11, microseconds in 12."""
    if base_unit in ("ms", "s", "min"):
        return {unit: size for unit, size in _TIME_UNITS.items() if unit != "us" or major >= 12}
    return {unit: size for unit, size in _MEMORY_UNITS.items() if unit != "B" or major >= 11}


def parse_quantity(info: SettingInfo, value: str, major: int) -> float | None:
    """`value` in the setting's own unit (as pg_settings counts it), or None when the server would refuse
    its form. Integers are rounded as the server does: to the nearest (12 and later) or toward zero."""
    whole_only = info.vartype == "integer" and major < 12
    match = (_WHOLE_RE if whole_only else _DECIMAL_RE).match(value)
    if match is None:
        return None
    number = float(match.group())
    if whole_only and abs(number) > INT_MAX:
        return None
    # The server allows white space between the number and its unit, and after the unit.
    unit = value[match.end() :].strip(_SPACE)
    if unit:
        converted = _converted(info, number, unit, major)
        if converted is None:
            return None
        number = converted
    if info.vartype == "integer":
        number = float(math.trunc(number)) if whole_only else _rint(number)
    return number if math.isfinite(number) else None


def _takes_units(info: SettingInfo, major: int) -> bool:
    return info.unit in _BASE_UNITS and not (info.vartype == "real" and major < 12)


def _converted(info: SettingInfo, number: float, unit: str, major: int) -> float | None:
    """number `unit` in the setting's base unit; units on a setting without one, or of the other kind, fail."""
    if not _takes_units(info, major):
        return None
    table = _unit_table(info.unit, major)
    if unit not in table:
        return None
    base = _BASE_UNITS[info.unit]
    converted = number * table[unit] / base
    units = list(table)
    smaller = units.index(unit) + 1
    if major >= 12 and smaller < len(units):
        step = table[units[smaller]] / base
        converted = _rint(converted / step) * step
    return converted


def _rint(number: float) -> float:
    """C's rint: to the nearest integer, halves to even (Python's round does the same)."""
    return float(round(number)) if math.isfinite(number) else number


def _number_refusal(info: SettingInfo, value: str, major: int, params: dict[str, object]) -> Refusal | None:
    number = parse_quantity(info, value, major)
    if number is None:
        units = ", ".join(_unit_table(info.unit, major))
        return Refusal(_form_message(info, major), {**params, "units": units})
    too_low = info.min is not None and number < info.min
    too_high = info.max is not None and number > info.max
    if too_low or too_high or (info.vartype == "integer" and abs(number) > INT_MAX):
        minimum, maximum = quantity_text(info.min, info.unit), quantity_text(info.max, info.unit)
        return Refusal(OUT_OF_RANGE, {**params, "minimum": minimum, "maximum": maximum})
    return None


def _form_message(info: SettingInfo, major: int) -> str:
    whole = info.vartype == "integer" and major < 12
    if _takes_units(info, major):
        return NOT_WHOLE_QUANTITY if whole else NOT_QUANTITY
    return NOT_WHOLE_NUMBER if whole else NOT_NUMBER


def quantity_text(number: float | None, base_unit: str) -> str:
    """A bound as a person reads it: 16 blocks of 8kB -> '128kB', 86400 s -> '1d'; plain numbers as they are."""
    if number is None:
        return "-"
    if base_unit not in _BASE_UNITS or not float(number).is_integer():
        return _plain(number) + base_unit
    amount = number * _BASE_UNITS[base_unit]
    units = _TIME_UNITS if base_unit in ("ms", "s", "min") else _MEMORY_UNITS
    for unit, size in units.items():
        if size >= 1 and amount % size == 0:
            return f"{_plain(amount / size)}{unit}"
    return _plain(number) + base_unit


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() and abs(number) < 1e15 else f"{number:g}"
