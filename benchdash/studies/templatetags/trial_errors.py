"""A trial's error, where benchdash knows the fix, explained in the reader's language above the engine's own words."""

import re

from django import template
from django.utils.translation import gettext

from workers.local_transport import SUDO_REFUSED

register = template.Library()

_SUDO_REFUSED_RE = re.compile(re.escape(SUDO_REFUSED) + r" (\S+) without a password: .* it writes (\S+)\.")


@register.filter
def error_fix(error: str) -> str:
    """The translated fix for an error benchdash recognises; "" for any other."""
    refused = _SUDO_REFUSED_RE.search(error or "")
    if refused is None:
        return ""
    message = gettext(
        "The worker may not run commands as %(account)s: sudo asked for a password, so the sudoers rule is "
        "missing. Run `make setup` as root; it writes %(rule_file)s."
    )
    return message % {"account": refused.group(1), "rule_file": refused.group(2)}
