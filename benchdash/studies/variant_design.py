"""A study's variants as its designer writes them: one axis per line, `name=value,value` (the form's "vary" box
and `queue_study --vary`), crossed with the chosen builds into unsaved Variant rows.

Axes: checksums=off,on; wal_segsize=16,64 (MB); locale=C,ja_JP.UTF-8; encoding=UTF8,EUC_JP; cpus=1,2;
fillfactor=100,80; host=local,target2; transactions=10,100 (pgbench -t); connect=off,on (pgbench -C);
load=alone,at_once (with host=: each trial alone, or at the same moment on every DB host);
wal_dir=pgdata,/mnt/wal (initdb -X: the WAL under a directory of the DB host; pgdata: inside the data directory);
setting:NAME=value,value (a postgresql.conf setting on top of the study's).
"""

import itertools
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.models import Build, Host
from benchdash.studies.models import Load, Variant
from benchdash.studies.models.variant import WAL_SEGMENT_SIZES_MB

SETTING_PREFIX = "setting:"
_SWITCH = {"off": False, "on": True}
_LOCALE_RE = re.compile(r"[A-Za-z0-9_.@-]{1,64}")
_ENCODING_RE = re.compile(r"[A-Za-z0-9_-]{1,32}")
_SETTING_NAME_RE = re.compile(r"[a-z_][a-z0-9_.]{0,62}")
_WAL_DIR_RE = re.compile(r"/[A-Za-z0-9_./-]{1,250}")
IN_PGDATA = "pgdata"


@dataclass(frozen=True)
class Axis:
    """One thing a study varies and its values, in the order written (the first is the baseline's by default)."""

    name: str
    values: tuple[str, ...]


def _switch(value: str) -> bool:
    if value not in _SWITCH:
        raise ValidationError(_("%(value)s: write off or on."), params={"value": value})
    return _SWITCH[value]


def _whole(value: str, low: int, high: int) -> int:
    if not value.isascii() or not value.isdigit() or not low <= int(value) <= high:
        message = _("%(value)s: a whole number from %(low)s to %(high)s.")
        raise ValidationError(message, params={"value": value, "low": low, "high": high})
    return int(value)


def _wal_segment(value: str) -> int:
    size = _whole(value, 1, 1024)
    if size not in WAL_SEGMENT_SIZES_MB:
        raise ValidationError(_("%(value)s: a power of 2 from 1 to 1024 (MB)."), params={"value": value})
    return size


def _matching(pattern: re.Pattern[str], value: str) -> str:
    if not pattern.fullmatch(value):
        raise ValidationError(_("%(value)s: letters, digits and . _ @ - only."), params={"value": value})
    return value


def _load(value: str) -> str:
    if value not in Load.values:
        raise ValidationError(_("%(value)s: write alone or at_once."), params={"value": value})
    return value


def _wal_dir(value: str) -> str:
    """An absolute path of the DB host, normalized; "pgdata": the WAL inside the data directory (initdb's default).
    Whether the host has it, and whose it is, the engine checks there (workers/wal_dir.py)."""
    if value == IN_PGDATA:
        return ""
    if not _WAL_DIR_RE.fullmatch(value) or ".." in value.split("/") or posixpath.normpath(value) == "/":
        message = _("%(value)s: an absolute path of the DB host (letters, digits and / . _ - only, no ..), or pgdata.")
        raise ValidationError(message, params={"value": value})
    return posixpath.normpath(value)


def _host(value: str) -> Host:
    host = Host.objects.filter(name=value).first()
    if host is None:
        raise ValidationError(_("%(value)s: no host of that name (see the hosts page)."), params={"value": value})
    return host


# axis name -> (Variant field, how a written value becomes the field's value)
_FIELDS: dict[str, tuple[str, Any]] = {
    "checksums": ("data_checksums", _switch),
    "wal_segsize": ("wal_segment_mb", _wal_segment),
    "locale": ("locale", lambda value: _matching(_LOCALE_RE, value)),
    "encoding": ("encoding", lambda value: _matching(_ENCODING_RE, value)),
    "cpus": ("cpus", lambda value: _whole(value, 1, 4096)),
    "fillfactor": ("fillfactor", lambda value: _whole(value, 10, 100)),
    "host": ("db_host", _host),
    "transactions": ("transactions", lambda value: _whole(value, 1, 10**9)),
    "connect": ("connect_each_transaction", _switch),
    "load": ("load", _load),
    "wal_dir": ("wal_dir", _wal_dir),
}


def axis_name(line: str) -> str:
    """The axis a `name=value,value` line names, as parse_axis reads it."""
    return line.partition("=")[0].strip().lower()


def parse_axis(line: str) -> Axis:
    """`name=value,value` as an Axis; a name or value it does not know is refused, naming it."""
    equals, values_text = line.partition("=")[1:]
    name = axis_name(line)
    values = tuple(value.strip() for value in values_text.split(",") if value.strip())
    if not equals or not values:
        raise ValidationError(_("%(line)s: write name=value,value (e.g. checksums=off,on)."), params={"line": line})
    if len(set(values)) != len(values):
        raise ValidationError(_("%(line)s: a value is given twice."), params={"line": line})
    if not name.startswith(SETTING_PREFIX) and name not in _FIELDS:
        known = ", ".join([*_FIELDS, SETTING_PREFIX + "NAME"])
        raise ValidationError(
            _("%(name)s: not an axis benchdash can vary (%(known)s)."), params={"name": name, "known": known}
        )
    if name.startswith(SETTING_PREFIX) and not _SETTING_NAME_RE.fullmatch(name.removeprefix(SETTING_PREFIX)):
        raise ValidationError(_("%(name)s: not a setting name."), params={"name": name})
    axis = Axis(name, values)
    for value in values:
        axis_value(axis.name, value)
    return axis


def parse_axes(lines: Iterable[str]) -> list[Axis]:
    """Every non-empty line as an Axis; an axis given twice is refused."""
    axes = [parse_axis(line) for line in lines if line.strip()]
    names = [axis.name for axis in axes]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValidationError(_("%(names)s: one line per axis."), params={"names": ", ".join(twice)})
    return axes


def axis_value(name: str, value: str) -> tuple[str, Any]:
    """The Variant field an axis sets, and the value it sets it to."""
    if name.startswith(SETTING_PREFIX):
        return "pg_settings", {name.removeprefix(SETTING_PREFIX): value}
    field, convert = _FIELDS[name]
    return field, convert(value)


def design_variants(
    builds: Sequence[Build], baseline_build: Build | None, axes: Sequence[Axis], baseline_picks: Mapping[str, str]
) -> list[Variant]:
    """Every build x every value of every axis, as unsaved variants in that order (builds in id order). The
    baseline is the baseline build's variant with the picked value of each axis (else its first value)."""
    ordered_builds = sorted(builds, key=lambda build: build.pk)
    picks = tuple(baseline_picks.get(axis.name, axis.values[0]) for axis in axes)
    combinations = itertools.product(ordered_builds, itertools.product(*(axis.values for axis in axes)))
    return [
        _variant(build, axes, values, baseline=build == baseline_build and values == picks)
        for build, values in combinations
    ]


def build_variants(builds: Iterable[Build], baseline_build: Build | None) -> list[Variant]:
    """A study of builds only: one variant per build (in id order), labelled with its name."""
    return design_variants(list(builds), baseline_build, [], {})


def _variant(build: Build, axes: Sequence[Axis], values: tuple[str, ...], *, baseline: bool) -> Variant:
    variant = Variant(build=build, label=variant_label(build, axes, values), baseline=baseline)
    for axis, value in zip(axes, values, strict=True):
        field, converted = axis_value(axis.name, value)
        setattr(variant, field, {**variant.pg_settings, **converted} if field == "pg_settings" else converted)
    return variant


def variant_label(build: Build, axes: Sequence[Axis], values: Sequence[str]) -> str:
    """'PostgreSQL 16.4 checksums=on cpus=2': the build's name, then each axis that has more than one value."""
    varied = [f"{axis.name}={value}" for axis, value in zip(axes, values, strict=True) if len(axis.values) > 1]
    return " ".join([build.name, *varied])


def parse_picks(text: str, axes: Sequence[Axis]) -> dict[str, str]:
    """The baseline's picks, `checksums=off cpus=1` (space-separated), each an axis and one of its values."""
    values = {axis.name: axis.values for axis in axes}
    picks: dict[str, str] = {}
    for pick in text.split():
        name, _equals, value = pick.partition("=")
        if value not in values.get(name.lower(), ()):
            raise ValidationError(_("%(pick)s: not one of the variants' axes and values."), params={"pick": pick})
        picks[name.lower()] = value
    return picks


def variant_levels(variants: Sequence[Variant]) -> dict[int, dict[str, str]]:
    """Each variant's level of every axis its study varies, by the variant's id, as the vary box writes them
    (`{"checksums": "on", "setting:shared_buffers": "1GB"}`): the axes on which the study's variants differ. A
    study of builds varies none (its builds are its lines); a level a variant leaves to the study's is ""."""
    written = {variant.pk: _written_levels(variant) for variant in variants}
    names = {name for levels in written.values() for name in levels}
    varied = sorted(name for name in names if len({levels.get(name, "") for levels in written.values()}) > 1)
    return {pk: {name: levels.get(name, "") for name in varied} for pk, levels in written.items()}


def _written_levels(variant: Variant) -> dict[str, str]:
    """What the variant sets of each axis, as written: on/off, a number, a name; nothing for what it leaves."""
    levels = {name: _written(getattr(variant, field)) for name, (field, _convert) in _FIELDS.items()}
    levels |= {SETTING_PREFIX + name: str(value) for name, value in variant.pg_settings.items()}
    return {name: text for name, text in levels.items() if text}


def _written(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "on" if value else "off"
    return value.name if isinstance(value, Host) else str(value)
