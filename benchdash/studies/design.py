"""A study design: everything a study asks for, as one typed, frozen value, and the one check of it.

Each entry (the new-study form, queue_study, the bisect, "run again", the cloud form) builds a StudyDesign from
its own input; design_problems says what is wrong with it against the DB host's facts, keyed by the field it is
about; services.study_create(design=...) saves it. A new design option is a field here plus one line in each
entry's mapping (CONTRIBUTING.md, "Adding a design option").
"""

from __future__ import annotations

import dataclasses
import random
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from benchdash.studies.client_reach import client_reach_problems
from benchdash.studies.contention import contention_note
from benchdash.studies.duet_design import aa_sides, duet_problems, half_the_memory
from benchdash.studies.host_comparison import host_order_problems
from benchdash.studies.models import DUETS, Arrangement, HostOrder, Statistic
from benchdash.studies.results.uncertainty import DEFAULT_THRESHOLD
from benchdash.studies.validation import SEED_MAX, check_study, host_facts
from benchdash.studies.variant_checks import variant_problems
from benchdash.studies.variant_design import Axis, design_variants
from workers.spec import RunOrder

if TYPE_CHECKING:
    from benchdash.inventory.models import Build, Host
    from benchdash.studies.models import Scenario, Study, StudyPreset, Variant

MAX_VARIANTS = 64
Problems = dict[str, list[ValidationError]]
# The design's fields that a Study stores as they are, under the same name.
_SAVED_AS_IS = (
    "title",
    "year",
    "db_host",
    "baseline",
    "repetitions",
    "max_repetitions",
    "threshold",
    "run_order",
    "host_order",
    "duration_s",
    "scale",
    "fillfactor",
    "keep_data",
    "seed",
    "preset",
    "statistic",
    "threads",
    "pgbench_vacuum",
    "pgbench_build",
    "warmup_runs",
    "arrangement",
)


class DesignRefused(ValueError):
    """A design with problems, said in one line: for the entries that have no field to show them on."""

    def __init__(self, problems: Problems) -> None:
        super().__init__(problems_text(problems))
        self.problems = problems


def draw_seed() -> int:
    """A fresh seed of the run order, for a design that was given none."""
    return random.SystemRandom().randrange(SEED_MAX + 1)


def problems_text(problems: Mapping[str, Sequence[ValidationError | str]]) -> str:
    """Every problem, as `field: message message; field: message`."""
    return "; ".join(f"{name}: {' '.join(_messages(errors))}" for name, errors in problems.items())


def _messages(errors: Sequence[ValidationError | str]) -> list[str]:
    return [message for error in errors for message in ValidationError(error).messages]


@dataclass(frozen=True)
class Collectors:
    """What each trial collects beside pgbench's own output: sar, perf stacks, wait-event samples."""

    sar: bool = False
    perf: bool = False
    wait_events: bool = False

    @classmethod
    def of(cls, study: Study) -> Collectors:
        return cls(study.collect_sar, study.collect_perf, study.collect_wait_events)

    def study_fields(self) -> dict[str, bool]:
        """The Study model's fields of these collectors."""
        return {"collect_sar": self.sar, "collect_perf": self.perf, "collect_wait_events": self.wait_events}


@dataclass(frozen=True)
class StudyDesign:
    """A study as asked for, before it is saved. db_host is None only on the cloud form, whose hosts are made later.
    vary and baseline_picks make the variants (variant_design.py): empty, one per build."""

    title: str
    year: int
    db_host: Host | None
    builds: tuple[Build, ...]
    baseline: Build
    scenarios: tuple[Scenario, ...]
    client_levels: tuple[int, ...]
    repetitions: int
    seed: int
    client_host: Host | None = None
    vary: tuple[Axis, ...] = ()
    baseline_picks: Mapping[str, str] = field(default_factory=dict)
    max_repetitions: int | None = None
    threshold: float = DEFAULT_THRESHOLD
    run_order: str = RunOrder.RANDOM
    host_order: str = HostOrder.TOGETHER
    duration_s: int = 60
    scale: int = 1
    fillfactor: int | None = None
    pg_settings: Mapping[str, str] = field(default_factory=dict)
    collectors: Collectors = Collectors()
    keep_data: bool = False
    preset: StudyPreset | None = None  # the seeds' design it was made from, what the quality gate holds it against
    # What the study reports of each cell's runs, as its seed states it: the median, or the mean (seeds 002, 003).
    statistic: str = Statistic.MEDIAN
    threads: str = ""
    pgbench_vacuum: bool = False
    pgbench_build: Build | None = None
    # Uncounted runs of each cell before the counted rounds (0 or 1): round 0, marked warm-up (plan.py).
    warmup_runs: int = 0
    # Sequential, or both sides at once on one DB host (duet, or an A/A duet of one build: duet_design.py).
    arrangement: str = Arrangement.SEQUENTIAL

    @property
    def is_duet(self) -> bool:
        return self.arrangement in DUETS

    @classmethod
    def from_study(cls, study: Study, **changes: Any) -> StudyDesign:
        """The design of a saved study (its builds alone: a study's axes are not kept apart from its variants),
        with `changes` in place of its own values."""
        own: dict[str, Any] = {name: getattr(study, name) for name in _SAVED_AS_IS}
        own |= {
            "client_host": study.client_host,
            "builds": tuple(study.builds.order_by("pk")),
            "scenarios": tuple(study.scenarios.order_by("pk")),
            "client_levels": tuple(study.client_levels),
            "pg_settings": dict(study.pg_settings),
            "collectors": Collectors.of(study),
        }
        return cls(**(own | changes))

    def study_fields(self) -> dict[str, Any]:
        """The Study model's fields of this design (its scenarios and variants are saved beside them)."""
        fields = {name: getattr(self, name) for name in _SAVED_AS_IS}
        fields |= {"client_host": self.client_host or self.db_host, "client_levels": list(self.client_levels)}
        return fields | {"pg_settings": dict(self.pg_settings), **self.collectors.study_fields()}

    def replace(self, **changes: Any) -> StudyDesign:
        return dataclasses.replace(self, **changes)

    def variants(self) -> list[Variant]:
        """The designed variants, unsaved and made afresh on each call (saving one sets its study)."""
        designed = design_variants(self.builds, self.baseline, self.vary, self.baseline_picks)
        return aa_sides(designed) if self.arrangement == Arrangement.DUET_AA else designed

    def contention_note(self) -> str | None:
        """The note a TPC-B-like design with more clients than its scale carries (validation.contention_note)."""
        return contention_note(self.scenarios, self.scale, self.client_levels)

    def values(self) -> dict[str, Any]:
        """The design by field name, as validation.check_study and the variant checks read a study."""
        values = {item.name: getattr(self, item.name) for item in dataclasses.fields(self)}
        values.update(builds=list(self.builds), scenarios=list(self.scenarios), client_levels=list(self.client_levels))
        return values | {"pg_settings": dict(self.pg_settings)}


def design_problems(design: StudyDesign, facts: Mapping[str, object] | None = None) -> Problems:
    """What is wrong with the design (design_problems_offline), and, when nothing else is, whether the pgbench host
    reaches the DB hosts: a probe over the network, so never called inside a transaction."""
    return design_problems_offline(design, facts) or _reach_problems(design)


def _reach_problems(design: StudyDesign) -> Problems:
    reach = client_reach_problems({**design.values(), "variants": design.variants()})
    return {"client_host": reach} if reach else {}


def design_problems_offline(design: StudyDesign, facts: Mapping[str, object] | None = None) -> Problems:
    """What is wrong with the design, by field, without reaching any host: its values against each other, the
    builds' settings catalogs, the DB host's facts (given, or the latest read) and the site's limits; each variant on
    its host."""
    problems: Problems = defaultdict(list)
    values = design.values() | ({} if facts is None else {"host_facts": facts})
    if design.is_duet:  # each side's server has half the host's memory
        values["host_facts"] = half_the_memory(host_facts(values))
    check_study(values, lambda name, error: problems[name].append(ValidationError(error)))
    _cap_problems(design, problems)
    if design.is_duet:
        for name, error in duet_problems(design, facts):
            problems[name].append(error)
    for name, error in host_order_problems(design.host_order, design.vary):
        problems[name].append(error)
    _variant_problems(design.variants(), values, problems)
    return {name: errors for name, errors in problems.items() if errors}


def design_checked(design: StudyDesign, problems: Callable[[StudyDesign], Problems] = design_problems) -> StudyDesign:
    """The design, or DesignRefused with its problems (those design_problems finds, or the given check's)."""
    found = problems(design)
    if found:
        raise DesignRefused(found)
    return design


def _cap_problems(design: StudyDesign, problems: Problems) -> None:
    if design.max_repetitions is not None and design.max_repetitions <= design.repetitions:
        problems["max_repetitions"].append(ValidationError(_("More than the planned repetitions, or empty (off).")))


def _variant_problems(variants: list[Variant], values: Mapping[str, Any], problems: Problems) -> None:
    if len(variants) > MAX_VARIANTS:
        message = _("%(count)s variants: at most %(maximum)s in one study.")
        problems["vary"].append(ValidationError(message, params={"count": len(variants), "maximum": MAX_VARIANTS}))
        return
    for variant in variants:
        problems["vary"] += variant_problems(variant, values)
