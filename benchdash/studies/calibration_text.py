"""A calibration in words, as the host page and the new-study preview say it (issue 42, point 3):
"on this host, 3 runs a side call 5% in 9 of 10 and 2% in 3 of 10; 8 a side call 2% in 8 of 10"."""

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from benchdash.studies.calibration_match import CalibrationMatch
from benchdash.studies.models import Calibration


def replace_detections(calibration: Calibration, detections: list[dict]) -> Calibration:
    """An unsaved copy of the calibration with only these detections, to say some of them."""
    copy = Calibration(
        **{field.attname: getattr(calibration, field.attname) for field in Calibration._meta.concrete_fields}
    )
    copy.detections = detections
    return copy


def detections_text(calibration: Calibration, *, where: str = "", with_effects: bool = True) -> str:
    """Each number of runs a side: the share of studies that called each size (largest first), then the A/A's false
    alarms; `where` ("on this host") goes first; then, with_effects, each size's effect as measured."""
    parts = [_runs_text(detection, index == 0) for index, detection in enumerate(calibration.detections)]
    said = "; ".join(parts) or _("no complete round to resample")
    said = f"{where}, {said}" if where else said
    return f"{said} {_real_effects_text(calibration)}" if with_effects and calibration.real_effects else said


def _real_effects_text(calibration: Calibration) -> str:
    """Each size asked beside the slowdown it made (a quota cuts a bursty server by more than its size)."""
    effects = ", ".join(
        _("%(size)s%%: %(real).1f%%") % {"size": size, "real": 100 * abs(real)}
        for size, real in sorted(calibration.real_effects.items(), key=lambda item: float(item[0]))
    )
    return _("(each slowdown as measured: %(effects)s)") % {"effects": effects}


def _runs_text(detection: dict, first: bool) -> str:
    studies = detection["studies"]
    calls = sorted(detection["called"].items(), key=lambda item: -int(item[0]))
    called = _(" and ").join(
        _("%(size)s%% in %(count)s of %(studies)s") % {"size": size, "count": count, "studies": studies}
        for size, count in calls
    )
    runs = detection["runs"]
    alarms = _("A/A false alarms %(alarms)s of %(studies)s") % {"alarms": detection["false_alarms"], "studies": studies}
    if not calls:  # a duet's calibration: its A/A alone
        head = ngettext("%(runs)s run a side", "%(runs)s runs a side", runs) if first else _("%(runs)s a side")
        return f"{head % {'runs': runs}} ({alarms})"
    if first:
        head = ngettext("%(runs)s run a side call %(called)s", "%(runs)s runs a side call %(called)s", runs)
    else:
        head = _("%(runs)s a side call %(called)s")
    return f"{head % {'runs': runs, 'called': called}} ({alarms})"


def match_text(match: CalibrationMatch | None) -> str:
    """What the preview says of a design's calibration, or how to get one."""
    if match is None:
        return _(
            "No calibration of this design on this host or its kind: `manage.py calibrate HOST --builds ... "
            "--scenarios ... --clients ...` (or the host page's button) measures what it detects."
        )
    calibration = match.calibration
    if match.own_host:
        where = _("on this host")
    else:
        where = _("on hosts of its kind (%(host)s)") % {"host": calibration.host.name}
    return detections_text(calibration, where=where)
