"""A calibration in words on the host page (studies/calibration_text.py): a filter, since the page is inventory's."""

from django import template

from benchdash.studies.calibration_text import detections_text
from benchdash.studies.models import Calibration

register = template.Library()


@register.filter
def detections_said(calibration: Calibration) -> str:
    return detections_text(calibration, with_effects=False)  # the page lists each size's effect beside it
