from django import template

from benchdash.studies.models.scenario import in_reader_language
from benchdash.studies.seed_data import FINDING_WORDS

register = template.Library()


@register.filter
def finding_text(text: str) -> str:
    """A published finding's words, or its source's title, in the reader's language (data/published_findings.toml's
    [japanese]); a text it does not hold (a version, a command, a unit) as it is."""
    return in_reader_language(text, FINDING_WORDS.get(text, ""))
