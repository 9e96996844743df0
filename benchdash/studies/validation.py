"""One validation of a study, for every way one is made or changed: every study design (design.design_problems,
whichever entry built it) and the admin.

The fields (fields.py) read each value from its text; check_study checks the values against each other,
against the settings catalog of each chosen build's major, against the DB host's facts and against the
site's limits. Every problem goes to the field it is about, in words that say why.
"""

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from benchdash.inventory.facts_display import latest_facts
from benchdash.inventory.models import Build, Host
from benchdash.studies.capacity import (
    BYTES_PER_CLIENT,
    ClusterPlan,
    DiskEstimate,
    MemoryNeed,
    client_bound_by_memory,
    disk_estimate,
    shared_memory_bytes,
    size_text,
)
from benchdash.studies.models import MEASURED_STATISTICS, Scenario
from benchdash.studies.pg_settings import refusal_errors
from benchdash.studies.threads import threads_problems
from workers.settings_catalog import SettingsCatalog, load_catalog
from workers.settings_rules import NO_CATALOG, Refusal, setting_bytes, setting_number, settings_refusals
from workers.spec import Reset

SEED_MAX = 2**31 - 1
SCALE_MAX = 100_000
AddError = Callable[[str, Any], None]


def max_duration_s() -> int:
    """A trial's pgbench run may take the trial's time limit less what setting the trial up needs."""
    return int(settings.TRIAL_TIME_LIMIT - settings.TRIAL_SETUP_MARGIN_S)


def build_problem(build: Build) -> ValidationError | None:
    """Why this build cannot run anywhere, or None when it can.

    Whether its files are where they should be is the worker's to find out (an installed bin directory
    on the target, an archive on the worker's machine): the web server may be another machine.
    """
    if build.kind == Build.Kind.PUBLISHED:
        return ValidationError(_("%(build)s is a published figure, not a build that can run."), params={"build": build})
    return None


def pgbench_build_problem(build: Build) -> ValidationError | None:
    """Why this build's own pgbench cannot run a study's pgbench, or None: only an installed build ships one that the
    pgbench host reaches (an npm archive holds none, a published figure is no build)."""
    if build.kind == Build.Kind.INSTALLED:
        return None
    message = _("%(build)s ships no pgbench the pgbench host can run: pick an installed build, or the host's pgbench.")
    return ValidationError(message, params={"build": build})


def build_catalogs(builds: Iterable[Build]) -> tuple[dict[int, SettingsCatalog], list[Refusal]]:
    """The settings catalog of each build's major, and a refusal for each major that has none."""
    catalogs: dict[int, SettingsCatalog] = {}
    missing: list[Refusal] = []
    for major in sorted({int(build.version_sort // 10000) for build in builds}):
        catalog = load_catalog(major)
        if catalog is None:
            missing.append(Refusal(NO_CATALOG, {"major": major or "?"}))
        else:
            catalogs[major] = catalog
    return catalogs, missing


def check_study(values: Mapping[str, Any], add_error: AddError) -> None:
    """Check a measured study's cleaned values (fields that failed to clean are absent); add_error(field,
    message) is the form's."""
    values = dict(values)  # a form's add_error drops the field from cleaned_data: read from a copy
    builds = list(values.get("builds") or [])
    pg_settings = values.get("pg_settings")
    catalogs = _check_builds(values, builds, add_error)
    settings_ok = pg_settings is not None and _check_settings(pg_settings, catalogs, add_error)
    if values.get("duration_s") is not None and values["duration_s"] > max_duration_s():
        add_error("duration_s", _duration_message())
    if values.get("seed") is not None and not 0 <= values["seed"] <= SEED_MAX:
        add_error(
            "seed",
            ValidationError(_("The seed is a whole number from 0 to %(maximum)s."), params={"maximum": SEED_MAX}),
        )
    if values.get("client_levels") and pg_settings is not None and settings_ok and catalogs:
        _check_clients(values, pg_settings, catalogs, add_error)
        _check_memory(values, pg_settings, catalogs, add_error)
    if values.get("scale") and values.get("scenarios") is not None:
        _check_scale(values, catalogs, pg_settings or {}, add_error)
    if values.get("warmup_runs") not in (None, 0, 1):
        add_error("warmup_runs", _("Warm-up runs per cell: 0 or 1."))
    if values.get("statistic") is not None and values["statistic"] not in MEASURED_STATISTICS:
        add_error("statistic", _("A study measured here reports the median or the mean of its runs."))
    if values.get("client_levels"):
        for error in threads_problems(values.get("threads") or "", values["client_levels"]):
            add_error("threads", error)
    scenarios = values.get("scenarios")
    if values.get("fillfactor") and scenarios is not None and not any(scenario.fillfactor for scenario in scenarios):
        add_error("fillfactor", _("None of the chosen scenarios sets a fillfactor."))


def _check_builds(values: Mapping[str, Any], builds: list[Build], add_error: AddError) -> dict[int, SettingsCatalog]:
    baseline = values.get("baseline")
    if baseline and builds and baseline not in builds:
        add_error("baseline", _("The baseline must be one of the chosen builds."))
    for problem in filter(None, (build_problem(build) for build in builds)):
        add_error("builds", problem)
    pgbench_problem = pgbench_build_problem(values["pgbench_build"]) if values.get("pgbench_build") else None
    if pgbench_problem:
        add_error("pgbench_build", pgbench_problem)
    catalogs, missing = build_catalogs(build for build in builds if build.kind != Build.Kind.PUBLISHED)
    for error in refusal_errors(missing):
        add_error("builds", error)
    return catalogs


def _check_settings(pg_settings: Mapping[str, str], catalogs: Mapping[int, SettingsCatalog], add: AddError) -> bool:
    """Each value against each chosen major's catalog; True when every major takes every value."""
    refusals = [refusal for catalog in catalogs.values() for refusal in settings_refusals(catalog, pg_settings)]
    # A reason that names no major (a value too long) would come once per major: say it once.
    unique = list({str(refusal): refusal for refusal in refusals}.values())
    for error in refusal_errors(unique):
        add("pg_settings", error)
    return not refusals


def _duration_message() -> ValidationError:
    message = _(
        "At most %(maximum)s s: a trial may take %(time_limit)s s (BENCHDASH_TRIAL_TIME_LIMIT), of which "
        "%(margin)s s are kept for setting it up (BENCHDASH_TRIAL_SETUP_MARGIN_S)."
    )
    params = {"maximum": max_duration_s(), "time_limit": settings.TRIAL_TIME_LIMIT}
    return ValidationError(message, params={**params, "margin": settings.TRIAL_SETUP_MARGIN_S})


def host_facts(values: Mapping[str, Any]) -> Mapping[str, object]:
    """The DB host's facts: those the caller gives (design_problems' facts), else the latest read of the host."""
    if "host_facts" in values:
        return values["host_facts"]
    host: Host | None = values.get("db_host")
    return latest_facts(host)[0] if host else {}


# -- clients -------------------------------------------------------------------------------------
def connection_limit(pg_settings: Mapping[str, str], catalogs: Mapping[int, SettingsCatalog]) -> int | None:
    """max_connections less the connections kept for superusers (and, from 16, reserved_connections): what
    pgbench clients may use, the study's own values or each major's defaults; the lowest over the majors."""
    limits = []
    for catalog in catalogs.values():
        maximum = setting_number(catalog, pg_settings, "max_connections")
        reserved = [setting_number(catalog, pg_settings, name) or 0 for name in _RESERVED]
        if maximum is not None:
            limits.append(int(maximum - sum(reserved)))
    return min(limits) if limits else None


_RESERVED = ("superuser_reserved_connections", "reserved_connections")


def _check_clients(
    values: Mapping[str, Any], pg_settings: Mapping[str, str], catalogs: Mapping[int, SettingsCatalog], add: AddError
) -> None:
    levels = values["client_levels"]
    limit = connection_limit(pg_settings, catalogs)
    too_many = [level for level in levels if limit is not None and level > limit]
    if too_many:
        message = _("%(levels)s is above max_connections less the reserved connections (%(limit)s).")
        add("client_levels", ValidationError(message, params={"levels": _listed(too_many), "limit": limit}))
    host: Host | None = values.get("db_host")
    memory_limit = client_bound_by_memory(host_facts(values)) if host else None
    beyond_memory = [level for level in levels if memory_limit is not None and level > memory_limit]
    if beyond_memory and host:
        message = _(
            "%(levels)s: %(host)s has memory for about %(limit)s clients (each has a server process; "
            "benchdash counts %(per_client)s MiB for one)."
        )
        params = {"levels": _listed(beyond_memory), "host": host, "limit": memory_limit}
        add("client_levels", ValidationError(message, params={**params, "per_client": BYTES_PER_CLIENT // 2**20}))


# -- memory ---------------------------------------------------------------------------------------
def memory_need(pg_settings: Mapping[str, str], catalog: SettingsCatalog, clients: int) -> MemoryNeed:
    """What the settings ask of the host's memory under one major (its defaults where the study sets nothing)."""

    def size(name: str) -> float:
        return setting_bytes(catalog, pg_settings, name) or 0.0

    autovacuum = size("autovacuum_work_mem")
    return MemoryNeed(
        shared_bytes=shared_memory_bytes(size("shared_buffers"), size("wal_buffers")),
        clients=clients,
        autovacuum_workers=int(setting_number(catalog, pg_settings, "autovacuum_max_workers") or 0),
        autovacuum_bytes=int(size("maintenance_work_mem") if autovacuum < 0 else autovacuum),
    )


def _check_memory(
    values: Mapping[str, Any], pg_settings: Mapping[str, str], catalogs: Mapping[int, SettingsCatalog], add: AddError
) -> None:
    """The settings against the DB host's memory (capacity.MemoryNeed), when its memory is known."""
    host: Host | None = values.get("db_host")
    memory = host_facts(values).get("memory_bytes") if host else None
    if not isinstance(memory, int) or memory <= 0:
        return
    clients = max(values["client_levels"])
    need = max((memory_need(pg_settings, catalog, clients) for catalog in catalogs.values()), key=_need_order)
    params = {"host": host, "memory": size_text(memory), "shared": size_text(need.shared_bytes)}
    if need.shared_bytes > memory:
        message = _(
            "shared_buffers and wal_buffers ask for %(shared)s of shared memory when the server starts, and "
            "%(host)s has %(memory)s: the server cannot start (could not map anonymous shared memory)."
        )
        add("pg_settings", ValidationError(message, params=params))
    elif need.total_bytes > memory:
        message = _(
            "The memory settings add up to %(total)s and %(host)s has %(memory)s: shared memory %(shared)s, "
            "%(clients)s clients at %(per_client)s MiB each, %(workers)s autovacuum workers at %(autovacuum)s each."
        )
        add("pg_settings", ValidationError(message, params={**params, **_need_params(need)}))


def _need_order(need: MemoryNeed) -> tuple[int, int]:
    return (need.shared_bytes, need.total_bytes)


def _need_params(need: MemoryNeed) -> dict[str, object]:
    return {
        "total": size_text(need.total_bytes),
        "clients": need.clients,
        "per_client": BYTES_PER_CLIENT // 2**20,
        "workers": need.autovacuum_workers,
        "autovacuum": size_text(need.autovacuum_bytes),
    }


def _listed(levels: list[int]) -> str:
    return ", ".join(map(str, levels))


# -- scale -----------------------------------------------------------------------------------------
def study_disk_estimate(values: Mapping[str, Any], catalogs: Mapping[int, SettingsCatalog]) -> DiskEstimate:
    """The disk the study's clusters take on its DB host: one cluster per build and scenario, and the pristine data
    (workers/pristine.py) of each build and data its scenarios make."""
    scenarios: list[Scenario] = list(values.get("scenarios") or [])
    chosen_fillfactor = values.get("fillfactor")
    clusters = [
        ClusterPlan(
            scenario.data_fillfactor(chosen_fillfactor),
            keeps_snapshot=scenario.reset != Reset.ONCE,
            pristine=(build.pk, scenario.data_fillfactor(chosen_fillfactor), scenario.reset_vacuum_full),
        )
        for build in values.get("builds") or []
        for scenario in scenarios
    ]
    wal = [_max_wal_bytes(catalog, values.get("pg_settings") or {}) for catalog in catalogs.values()]
    return disk_estimate(
        scale=values["scale"], clusters=clusters, wal_bytes=max(wal, default=2**30), facts=host_facts(values)
    )


def _max_wal_bytes(catalog: SettingsCatalog, pg_settings: Mapping[str, str]) -> int:
    megabytes = setting_number(catalog, pg_settings, "max_wal_size") or 1024
    return int(megabytes * 2**20)


def _check_scale(
    values: Mapping[str, Any], catalogs: Mapping[int, SettingsCatalog], pg_settings: Mapping[str, str], add: AddError
) -> None:
    scale = values["scale"]
    if scale > SCALE_MAX:
        add("scale", ValidationError(_("The scale is at most %(maximum)s."), params={"maximum": SCALE_MAX}))
        return
    estimate = study_disk_estimate({**values, "pg_settings": pg_settings}, catalogs)
    if not estimate.fits:
        message = _(
            "Scale %(scale)s needs about %(needed)s on %(host)s (a cluster for every build and scenario, twice "
            "where a snapshot is kept to reset the data, and the pristine data of each build), and %(free)s is free "
            "there."
        )
        params = {"scale": scale, "host": values.get("db_host")}
        sizes = {"needed": size_text(estimate.needed_bytes), "free": size_text(estimate.free_bytes)}
        add("scale", ValidationError(message, params={**params, **sizes}))
