from django import template

from benchdash.studies import engine_text as engine

register = template.Library()


@register.filter
def engine_text(text: str) -> str:
    """The engine's notes or a collector's reason in the reader's language (studies/engine_text.py)."""
    return engine.engine_text(text)
