"""The seeds' presets and published findings, read from the TOML files under data/.

data/presets.toml holds the fixed-point observation's scenarios and study presets, data/variant_presets.toml the
seeds' studies that compare something other than versions, data/published_findings.toml what the seeds state about
those comparisons. Every entry names the seed document it comes from (`seed`, a file of ../shared/seeds/) and the
line there (`line`). This module is their one reader: it turns each entry into the dataclass the code uses, or
raises SeedDataError naming the file and the entry.
"""

import re
import tomllib
import types
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar, get_args, get_origin, get_type_hints

from workers.spec import Prewarm, Reset, RunOrder

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
SEED_FILE = re.compile(r"\d{3}_[0-9a-f]{16}\.txt")


class HostComparison(StrEnum):
    """What a host-axis finding compares (its `compares`), matched with what a study's hosts differ in (findings.py)."""

    GUEST = "guest"  # a physical server against a virtual machine on it
    CONTAINER = "container"  # a server against containers on it
    OS = "os"  # one operating system against another on the same hardware
    LOAD = "load"  # DB hosts loaded at once against one alone (the axis `load`)


CHOICES: dict[str, tuple[str, ...]] = {
    "reset": tuple(Reset),
    "prewarm": tuple(Prewarm),
    "run_order": tuple(RunOrder),
    "statistic": ("median", "mean"),
    "compares": tuple(HostComparison),
    "host_order": ("together", "in_turn"),  # HostOrder's values: the models are not read here
}
FINDING_TABLES = {"sources", "finding", "japanese"}
TYPE_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "a table",
}


class SeedDataError(ValueError):
    """A data file or one of its entries is malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class ScenarioPreset:
    """Field values of one benchdash.studies.models.Scenario row, keyed by its slug."""

    slug: str
    seed: str
    line: int
    name: str
    description: str
    source: str
    name_ja: str = ""
    description_ja: str = ""
    builtin: str = ""
    script: str = ""
    scale: int = 2000
    fillfactor: int | None = None
    reset: str = Reset.ONCE.value
    prewarm: str = Prewarm.NONE.value
    checkpoint_vacuum: bool = False
    reset_vacuum_full: bool = False
    protocol: str = "simple"
    thread_rule: str = "one"


@dataclass(frozen=True)
class StudyPresetData:
    """Field values of one StudyPreset row; `scenario_slugs` name its scenarios."""

    slug: str
    seed: str
    line: int
    name: str
    scenario_slugs: tuple[str, ...]
    client_levels: tuple[int, ...]
    pg_settings: dict[str, str]
    source: str
    procedure: str
    run_order: str = RunOrder.RANDOM.value
    # How a study on several DB hosts runs them (HostOrder): "in_turn" for a dual-boot server.
    host_order: str = "together"
    repetitions: int = 3
    scale: int = 2000
    # No seed states the run length: the model's default, stated as such in `procedure`, to change in the form.
    duration_s: int = 60
    # What the seed compares besides builds, as the vary box takes it; empty: builds only.
    vary: str = ""
    name_ja: str = ""
    # What the seed reports of its runs: the median (PGECons), or the mean (seeds 002 and 003 average 10 runs).
    statistic: str = "median"
    # One uncounted run per cell before the counted rounds: no seed states a warm-up run or its absence, so on.
    warmup_runs: int = 1


@dataclass(frozen=True)
class SeedSource:
    """How findings name a seed: `title` on the page, `published_as` the words of a published study's source."""

    title: str
    published_as: str


@dataclass(frozen=True)
class Finding:
    """One statement of a source: `value` in `unit` as `qualifier` says (e.g. "up to about" 10 %), or None."""

    seed: str
    line: int
    source: str
    published_as: str
    axis: str
    workload: str
    versions: str
    compared: str
    measure: str
    value: float | None
    unit: str
    qualifier: str
    quote: str
    unstated: str
    # A host-axis finding: what its hosts differed in (HostComparison); "" on other axes.
    compares: str = ""

    @property
    def figure(self) -> str:
        """The number as the source prints it: 34,000, 8.66, 1.7; "" without one."""
        if self.value is None:
            return ""
        return f"{int(self.value):,}" if self.value == int(self.value) else str(self.value)


Entry = TypeVar("Entry", ScenarioPreset, StudyPresetData, SeedSource, Finding)


def load_presets(path: Path) -> tuple[tuple[ScenarioPreset, ...], tuple[StudyPresetData, ...]]:
    """The file's [[scenario]] and [[study_preset]] entries."""
    document = _read_document(path, {"scenario", "study_preset"})
    return _entries(path, document, "scenario", ScenarioPreset), _entries(
        path, document, "study_preset", StudyPresetData
    )


def load_findings(path: Path) -> tuple[Finding, ...]:
    """The file's [[finding]] entries, each with the title its seed has in [sources]."""
    document = _read_document(path, FINDING_TABLES)
    sources = {
        seed: _entry_of(SeedSource, source, f"{_shown(path)}, [sources.{seed!r}]")
        for seed, source in _of_type(dict, document.get("sources", {}), f"{_shown(path)}: [sources]").items()
    }
    return _entries(path, document, "finding", Finding, lambda item: _source_fields(sources, item))


def load_finding_words(path: Path) -> dict[str, str]:
    """The file's [japanese] table: each English text of a finding, or a source's title, and its Japanese."""
    table = _of_type(dict, _read_document(path, FINDING_TABLES).get("japanese", {}), f"{_shown(path)}: [japanese]")
    return {english: _of_type(str, japanese, f"[japanese] {english!r}") for english, japanese in table.items()}


def _read_document(path: Path, tables: set[str]) -> dict[str, Any]:
    """The file parsed, holding no table but `tables`."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise SeedDataError(f"{_shown(path)}: {error}") from error
    unknown = sorted(set(document) - tables)
    if unknown:
        raise SeedDataError(f"{_shown(path)}: unknown table {unknown[0]!r}; expected {', '.join(sorted(tables))}")
    return document


def _entries(
    path: Path,
    document: Mapping[str, Any],
    table: str,
    kind: type[Entry],
    added: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> tuple[Entry, ...]:
    """Each [[table]] entry as a `kind`; `added` gives the fields an entry takes from elsewhere in the file."""
    items = _of_type(list, document.get(table, []), f"{_shown(path)}: [[{table}]]")
    return tuple(
        _entry_of(kind, item, f"{_shown(path)}, [[{table}]] {index}{_named(item)}", added)
        for index, item in enumerate(items, start=1)
    )


def _entry_of(
    kind: type[Entry], item: object, where: str, added: Callable[[dict[str, Any]], dict[str, Any]] | None = None
) -> Entry:
    """The entry as a `kind`, or SeedDataError saying `where` it is and what is wrong."""
    try:
        table = _of_type(dict, item, "the entry")
        return kind(**_checked_values(kind, {**table, **(added(table) if added else {})}))
    except SeedDataError as error:
        raise SeedDataError(f"{where}: {error}") from None


def _checked_values(kind: type[Entry], item: Mapping[str, object]) -> dict[str, Any]:
    """The entry's values with the types `kind` declares; a field typed `X | None` left out is None."""
    hints = get_type_hints(kind)
    declared = {field.name: field for field in fields(kind)}
    unknown = sorted(set(item) - set(declared))
    if unknown:
        raise SeedDataError(f"unknown field {unknown[0]!r}")
    optional = {name for name, hint in hints.items() if type(None) in get_args(hint)}
    missing = [name for name, field in declared.items() if name not in item and field.default is MISSING]
    if set(missing) - optional:
        raise SeedDataError(f"missing field {sorted(set(missing) - optional)[0]!r}")
    values = {name: _typed(hints[name], value, name) for name, value in item.items()}
    _check_citation(values)
    _check_choices(values)
    return {**dict.fromkeys(missing), **values}


def _shown(path: Path) -> str:
    """The file as a message names it: relative to the checkout where it lies in it."""
    return str(path.relative_to(DATA_DIR.parent)) if path.is_relative_to(DATA_DIR.parent) else str(path)


def _named(item: object) -> str:
    slug = item.get("slug") if isinstance(item, dict) else None
    return f" ({slug})" if isinstance(slug, str) else ""


def _source_fields(sources: Mapping[str, SeedSource], item: Mapping[str, object]) -> dict[str, Any]:
    source = sources.get(str(item.get("seed")))
    if source is None:
        raise SeedDataError(f"seed {item.get('seed')!r} has no [sources] table giving its title")
    return {"source": source.title, "published_as": source.published_as}


def _typed(hint: Any, value: object, name: str) -> Any:
    origin, args = get_origin(hint), get_args(hint)
    if origin is types.UnionType:  # `X | None`: TOML has no null, so None is the field left out
        return _typed(args[0], value, name)
    if origin is tuple:
        return tuple(_typed(args[0], item, name) for item in _of_type(list, value, name))
    if origin is dict:
        table = _of_type(dict, value, name)
        return {key: _typed(args[1], item, f"{name}.{key}") for key, item in table.items()}
    return _of_type(hint, value, name)


def _of_type(kind: type, value: object, name: str) -> Any:
    accepted = (int, float) if kind is float else (kind,)
    if isinstance(value, accepted) and (kind is bool or not isinstance(value, bool)):
        return value
    raise SeedDataError(f"{name} must be {TYPE_NAMES[kind]}, not {value!r}")


def _check_citation(values: Mapping[str, Any]) -> None:
    if "seed" in values and not SEED_FILE.fullmatch(values["seed"]):
        raise SeedDataError(f"seed must name a seed document such as 000_1f0a192de1715233.txt, not {values['seed']!r}")
    if "line" in values and values["line"] < 1:
        raise SeedDataError(f"line must be a line number of the seed, 1 or more, not {values['line']}")


def _check_choices(values: Mapping[str, Any]) -> None:
    for name, allowed in CHOICES.items():
        if name in values and values[name] not in allowed:
            raise SeedDataError(f"{name} must be one of {', '.join(allowed)}, not {values[name]!r}")


SCENARIOS, STUDY_PRESETS = load_presets(DATA_DIR / "presets.toml")
VARIANT_SCENARIOS, VARIANT_PRESETS = load_presets(DATA_DIR / "variant_presets.toml")
FINDINGS = load_findings(DATA_DIR / "published_findings.toml")
FINDING_WORDS = load_finding_words(DATA_DIR / "published_findings.toml")
