"""The settings catalog: what one PostgreSQL major says about each of its settings, read from a running
server of that major (pg_settings: type, unit, range, enum values, context, category, default).

`postgres --describe-config` prints neither units nor enum values, so the catalog comes from
pg_settings of a throwaway cluster (`manage.py settings_catalog MAJOR` writes it) and is kept in the
repository, one file per major under workers/settings_catalog/. The web side checks a study's values
against it before anything is queued; the engine checks them again on the target (settings_rules.py).
"""

import json
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

CATALOG_DIR = Path(__file__).with_name("settings_catalog")

PG_SETTINGS_SQL = """
SELECT json_agg(json_build_object(
    'name', name, 'vartype', vartype, 'unit', unit, 'min', min_val, 'max', max_val, 'enumvals', enumvals,
    'context', context, 'category', category, 'default', boot_val) ORDER BY name)
FROM pg_settings;
"""


@dataclass(frozen=True)
class SettingInfo:
    """One row of pg_settings. min and max are in the setting's unit, as pg_settings gives them."""

    name: str
    vartype: str  # bool, integer, real, string, enum
    context: str  # internal, postmaster, sighup, superuser-backend, backend, superuser, user
    category: str
    default: str = ""
    unit: str = ""  # "", "B", "kB", "8kB", "MB", "ms", "s", "min"
    min: float | None = None
    max: float | None = None
    enumvals: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class SettingsCatalog:
    major: int
    version: str  # the server version the catalog was read from, e.g. "15.20"
    settings: dict[str, SettingInfo]  # by lower-cased name

    def get(self, name: str) -> SettingInfo | None:
        return self.settings.get(name.lower())


def catalog_path(major: int) -> Path:
    return CATALOG_DIR / f"{int(major)}.json"


@cache
def load_catalog(major: int) -> SettingsCatalog | None:
    """The catalog of this major, or None when there is none (make it with `manage.py settings_catalog MAJOR`)."""
    path = catalog_path(major)
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return SettingsCatalog(
        major=int(data["major"]), version=data["version"], settings=_settings_by_name(data["settings"])
    )


def catalog_majors() -> list[int]:
    """The majors that have a catalog, oldest first."""
    return sorted(int(path.stem) for path in CATALOG_DIR.glob("*.json") if path.stem.isdigit())


def _settings_by_name(rows: list[dict]) -> dict[str, SettingInfo]:
    infos = {}
    for row in rows:
        info = SettingInfo(
            name=row["name"],
            vartype=row["vartype"],
            context=row["context"],
            category=row["category"],
            default=row.get("default") or "",
            unit=row.get("unit") or "",
            min=_number(row.get("min")),
            max=_number(row.get("max")),
            enumvals=tuple(row.get("enumvals") or ()),
        )
        infos[info.name.lower()] = info
    return infos


def _number(text: str | float | None) -> float | None:
    return None if text is None or text == "" else float(text)


def catalog_from_pg_settings(rows_json: str, *, major: int, version: str) -> SettingsCatalog:
    """The catalog of a running server, from what PG_SETTINGS_SQL gave on it."""
    return SettingsCatalog(major=major, version=version, settings=_settings_by_name(json.loads(rows_json)))


def catalog_text(catalog: SettingsCatalog, *, source: str) -> str:
    """The catalog as the file load_catalog reads: JSON, one setting per line so that a diff reads well."""
    lines = [
        "{",
        f'"major": {catalog.major},',
        f'"version": {json.dumps(catalog.version)},',
        f'"source": {json.dumps(source)},',
        '"settings": [',
    ]
    rows = [_row(info) for _, info in sorted(catalog.settings.items())]
    lines.append(",\n".join(json.dumps(row, ensure_ascii=False) for row in rows))
    lines += ["]", "}", ""]
    return "\n".join(lines)


def _row(info: SettingInfo) -> dict[str, object]:
    row = asdict(info)
    row["enumvals"] = list(info.enumvals)
    for key in ("min", "max"):
        number = row[key]
        row[key] = None if number is None else _plain_number(number)
    return row


def _plain_number(number: float) -> str:
    """As pg_settings writes it: 16, 1073741823, 0.1, 1.79769e+308."""
    return str(int(number)) if number.is_integer() and abs(number) < 1e18 else repr(number)
