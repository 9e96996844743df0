from django import template
from django.utils.safestring import SafeString

from benchdash.studies.conclusions_text import conclusions_html

register = template.Library()


@register.filter
def conclusions(text: str) -> SafeString:
    """A study's notes and conclusions, Markdown rendered as safe HTML (studies/conclusions_text.py)."""
    return conclusions_html(text)
