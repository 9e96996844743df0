"""The procedure a measured study ran, step by step, as its page lists it: what the study fixes (run order,
repetitions, scale, duration) and what each of its scenarios does around pgbench."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.translation import gettext as _

from benchdash.studies.models import Scenario, Study
from workers.spec import RunOrder


@dataclass(frozen=True)
class Step:
    name: str
    value: str


@dataclass(frozen=True)
class ScenarioProcedure:
    scenario: Scenario
    steps: list[Step]


def study_steps(study: Study) -> list[Step]:
    order = str(study.get_run_order_display())
    if study.run_order == RunOrder.RANDOM:
        order += " " + _("(seed %(seed)s)") % {"seed": study.seed}
    return [
        Step(_("run order"), order),
        *_host_steps(study),
        Step(_("repetitions"), str(study.repetitions)),
        Step(_("scale"), str(study.scale)),
        Step(_("duration"), _("%(seconds)s s") % {"seconds": study.duration_s}),
    ]


def _host_steps(study: Study) -> list[Step]:
    """How a study on several DB hosts ran them (studies/lifecycle/host_turns.py); nothing for one host."""
    variants = study.variants.values_list("db_host_id", "load")
    if len({host or study.db_host_id for host, _load in variants}) < 2:
        return []
    if any(load for _host, load in variants):
        return [Step(_("host variants"), _("one trial at a time, alone, or at the same moment on every DB host"))]
    return [Step(_("host variants"), str(study.get_host_order_display()))]


def scenario_procedures(study: Study, scenarios: Iterable[Scenario]) -> list[ScenarioProcedure]:
    return [ScenarioProcedure(scenario, _scenario_steps(study, scenario)) for scenario in scenarios]


def _scenario_steps(study: Study, scenario: Scenario) -> list[Step]:
    fillfactor = scenario.data_fillfactor(study.fillfactor)
    reset = str(scenario.get_reset_display())
    if scenario.reset_vacuum_full:
        reset += "; " + _("then VACUUM FULL, CHECKPOINT, ANALYZE")
    return [
        Step(_("threads (-j)"), study.threads_text if study.threads else str(scenario.get_thread_rule_display())),
        Step(_("prewarm (pg_prewarm)"), str(scenario.get_prewarm_display())),
        Step(_("fillfactor"), str(fillfactor) if fillfactor else _("100 (pgbench's default)")),
        Step(_("data rebuilt"), reset),
        Step(_("after each run"), _("CHECKPOINT, then VACUUM") if scenario.checkpoint_vacuum else _("nothing")),
    ]
