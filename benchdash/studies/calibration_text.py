"""A calibration in words, as the host page and the new-study preview say it (issue 42, point 3):
"on this host, 3 runs a side call 5% in 9 of 10 and 2% in 3 of 10; 8 a side call 2% in 8 of 10"."""

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from benchdash.studies.models import Calibration


def detections_text(calibration: Calibration, *, where: str = "") -> str:
    """Each number of runs a side: the share of studies that called each size (largest first), then the A/A's false
    alarms; `where` ("on this host") goes first."""
    parts = [_runs_text(detection, index == 0) for index, detection in enumerate(calibration.detections)]
    said = "; ".join(parts) or _("no complete round to resample")
    return f"{where}, {said}" if where else said


def _runs_text(detection: dict, first: bool) -> str:
    studies = detection["studies"]
    calls = sorted(detection["called"].items(), key=lambda item: -int(item[0]))
    called = _(" and ").join(
        _("%(size)s%% in %(count)s of %(studies)s") % {"size": size, "count": count, "studies": studies}
        for size, count in calls
    )
    runs = detection["runs"]
    if first:
        head = ngettext("%(runs)s run a side call %(called)s", "%(runs)s runs a side call %(called)s", runs)
    else:
        head = _("%(runs)s a side call %(called)s")
    alarms = _("A/A false alarms %(alarms)s of %(studies)s") % {"alarms": detection["false_alarms"], "studies": studies}
    return f"{head % {'runs': runs, 'called': called}} ({alarms})"
