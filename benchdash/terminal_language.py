"""The language of what `manage.py` commands print: the terminal's, as gettext reads it, where benchdash speaks it.

The web pages follow each reader (LocaleMiddleware); a command has no request, and without this it spoke
settings.LANGUAGE_CODE (Japanese) whatever the terminal's locale said.
"""

import os
from collections.abc import Mapping

from django.conf import settings
from django.utils import translation

# The variables gettext reads for messages, first one set wins (LANGUAGE may list several, colon-separated).
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def terminal_language(environ: Mapping[str, str] = os.environ) -> str:
    """'ja' for ja_JP.UTF-8, 'en' for en_US.UTF-8 and for the C or POSIX locale; settings.LANGUAGE_CODE when no
    variable is set or benchdash does not speak the language named."""
    for name in LOCALE_VARIABLES:
        value = environ.get(name, "")
        if not value:
            continue
        code = value.split(":")[0].split(".")[0].split("@")[0].split("_")[0].lower()
        if code in ("c", "posix"):
            return "en"
        return code if code in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE
    return settings.LANGUAGE_CODE


def activate_terminal_language() -> None:
    translation.activate(terminal_language())
