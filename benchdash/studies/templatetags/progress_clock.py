"""The live panel's times as its script writes them (static/js/study_live.js, `duration`), for the page's first
paint and a reader without JavaScript: m:ss, or h:mm:ss past an hour; "—" when there is none."""

from django import template

register = template.Library()


@register.filter
def clock(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    hours, rest = divmod(round(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
