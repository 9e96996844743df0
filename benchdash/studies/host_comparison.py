"""Host comparisons as the seeds ran them (issue 41): a study's host variants run together (each host its own trials,
the hosts at the same time) or one after another (all trials of one host, then the next: the 2020 dual-boot server,
one OS at a time); the axis `load` compares trials run alone with the same trials run at once on every DB host (the
2014 "two guests loaded at once against one alone"). Here: what a design may not combine."""

from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from benchdash.studies.models import HostOrder
from benchdash.studies.variant_design import Axis

HOST_AXIS = "host"
LOAD_AXIS = "load"


def host_order_problems(host_order: str, axes: Sequence[Axis]) -> list[tuple[str, ValidationError]]:
    """What is wrong with the host order and the load axis of a design, each with the field it is about."""
    hosts = next((len(axis.values) for axis in axes if axis.name == HOST_AXIS), 1)
    varies_load = any(axis.name == LOAD_AXIS for axis in axes)
    problems: list[tuple[str, ValidationError]] = []
    if host_order == HostOrder.IN_TURN and hosts < 2:
        problems.append(("host_order", ValidationError(_("One after another needs two DB hosts (vary host=a,b)."))))
    if varies_load and hosts < 2:
        message = _("load: at once needs two DB hosts or more (vary host=a,b as well).")
        problems.append(("vary", ValidationError(message)))
    if varies_load and host_order == HostOrder.IN_TURN:
        message = _("A study that varies the load runs its hosts at once: choose together.")
        problems.append(("host_order", ValidationError(message)))
    return problems
