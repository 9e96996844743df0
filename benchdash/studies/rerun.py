"""Running a study's design again: the new-study form's initial values taken from a study (a report's "run this
design again" link opens /studies/new/?from=<id>). Its year is this year's and its seed a fresh one's (the form's
defaults); builds, hosts and scenarios are filled where they still exist; a published study gives what its source
states."""

from __future__ import annotations

from typing import Any

from benchdash.studies.models import Study


def design_initial(study: Study) -> dict[str, Any]:
    initial: dict[str, Any] = {
        "title": study.title,
        "builds": list(study.builds.values_list("pk", flat=True)),
        "baseline": study.baseline_id,
        "scenarios": list(study.scenarios.values_list("pk", flat=True)),
        "client_levels": study.client_levels,
        "repetitions": study.repetitions or 3,
        "max_repetitions": study.max_repetitions,
        "threshold": round(study.threshold * 100, 2),
        "run_order": study.run_order,
        "duration_s": study.duration_s,
        "scale": study.scale,
        "fillfactor": study.fillfactor,
        "pg_settings": study.pg_settings,
        "collect_sar": study.collect_sar,
        "collect_perf": study.collect_perf,
        "collect_wait_events": study.collect_wait_events,
        "keep_data": study.keep_data,
    }
    hosts = {"db_host": study.db_host_id, "client_host": study.client_host_id}
    return initial | {name: pk for name, pk in hosts.items() if pk}


def rerun_initial(source: str | None) -> dict[str, Any] | None:
    """The initial values of ?from=<id>: {} without the parameter, None where it names no study."""
    if source is None:
        return {}
    study = Study.objects.filter(pk=int(source)).first() if source.isascii() and source.isdigit() else None
    return None if study is None else design_initial(study)
