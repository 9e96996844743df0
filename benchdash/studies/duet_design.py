"""What a duet design needs: two sides on one DB host, run at the same moment, each server and its pgbench in its
own half of the host's CPUs (workers/duet.py). design.design_problems runs duet_problems for a duet design.

An A/A duet (Arrangement.DUET_AA) is one build on both sides: its one variant becomes two, labelled A and B, the
A side the baseline; what it measures is the host's noise for the duet (a calibration's A/A).
"""

import copy
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from benchdash.studies.models import Arrangement, Variant
from benchdash.studies.validation import host_facts

if TYPE_CHECKING:
    from benchdash.studies.design import StudyDesign

SIDES = 2
Problem = tuple[str, ValidationError]


def aa_sides(variants: list[Variant]) -> list[Variant]:
    """An A/A duet's one variant as its two sides, A (the baseline) and B; anything else as it is (its problem is
    said by duet_problems)."""
    if len(variants) != 1:
        return variants
    sides = []
    for position, letter in enumerate("AB"):
        side = copy.copy(variants[0])
        side.label, side.baseline, side.position = f"{side.label} ({letter})", position == 0, position
        sides.append(side)
    return sides


def half_the_memory(facts: Mapping[str, object]) -> Mapping[str, object]:
    """The DB host's facts as each side of a duet sees them: half its memory (the settings checks size one server)."""
    memory = facts.get("memory_bytes")
    return {**facts, "memory_bytes": memory // SIDES} if isinstance(memory, int) else facts


def duet_problems(design: "StudyDesign", facts: Mapping[str, object] | None = None) -> Iterator[Problem]:
    """What keeps the design from running as a duet, each keyed by the field it is about."""
    if design.arrangement == Arrangement.DUET_AA and (len(design.builds) != 1 or design.vary):
        message = _("An A/A duet runs one build on both sides: choose one build, vary none.")
        yield "arrangement", ValidationError(message)
    variants = design.variants()
    if len(variants) != SIDES:
        message = _("A duet runs exactly two sides at once (two builds, or two variants), not %(count)s.")
        yield "arrangement", ValidationError(message, params={"count": len(variants)})
    if design.client_host is not None and design.client_host != design.db_host:
        yield "client_host", ValidationError(_("A duet runs each side's pgbench on the DB host, in that side's CPUs."))
    if design.max_repetitions is not None:
        message = _("A duet runs its planned rounds only: leave adaptive repetitions off.")
        yield "max_repetitions", ValidationError(message)
    yield from _side_problems(design, variants)
    if design.db_host is not None:
        yield from _cpu_problems(variants, host_facts({"db_host": design.db_host} | _given(facts)))


def _given(facts: Mapping[str, object] | None) -> dict[str, object]:
    return {} if facts is None else {"host_facts": facts}


def _side_problems(design: "StudyDesign", variants: list[Variant]) -> Iterator[Problem]:
    if any(variant.db_host is not None and variant.db_host != design.db_host for variant in variants):
        yield "vary", ValidationError(_("A duet runs both sides on one DB host: vary no host."))
    if any(variant.load for variant in variants):
        yield "vary", ValidationError(_("A duet already runs its sides at once: vary no load."))


def _cpu_problems(variants: list[Variant], facts: Mapping[str, object]) -> Iterator[Problem]:
    threads = facts.get("cpu_threads")
    if not isinstance(threads, int):
        return
    if threads < SIDES:
        message = _("A duet needs a DB host of at least 2 CPUs, one half for each side; this one has %(threads)s.")
        yield "db_host", ValidationError(message, params={"threads": threads})
        return
    half = threads // SIDES
    for variant in variants:
        if variant.cpus and variant.cpus > half:
            message = _("%(variant)s: %(cpus)s CPUs do not fit in a half of the DB host (%(half)s CPUs).")
            params = {"variant": variant.label, "cpus": variant.cpus, "half": half}
            yield "vary", ValidationError(message, params=params)
