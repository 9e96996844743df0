"""Form fields that read a study's text the one way every form does (the new-study form, the admin).

Numbers are ASCII digits only: Python's int() and Django's IntegerField also take '１２', '٣' or
'1_000', and str.isdigit() says yes to '²', which int() then refuses with a ValueError.
"""

import re
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import ProhibitNullCharactersValidator
from django.utils.translation import gettext_lazy as _

from benchdash.studies.pg_settings import check_settings, parse_settings, settings_text

DIGITS_RE = re.compile(r"[0-9]+", re.ASCII)
# Longer than any bound a study has: a longer run of digits is refused before it becomes a huge int.
MAX_DIGITS = 12
MAX_CLIENT_LEVELS = 32
SETTINGS_TEXT_LIMIT = 20_000


def ascii_whole_number(text: str) -> int | None:
    """'16' -> 16; None for anything but 1 to MAX_DIGITS digits 0-9 (no sign, no other script's digits)."""
    text = text.strip()
    return int(text) if DIGITS_RE.fullmatch(text) and len(text) <= MAX_DIGITS else None


class WholeNumberField(forms.IntegerField):
    """An IntegerField that takes only the digits 0 to 9."""

    default_error_messages = {"invalid": _("Enter a whole number, written with the digits 0 to 9.")}

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        number = ascii_whole_number(str(value))
        if number is None:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return number


def parse_client_levels(text: str) -> list[int]:
    """'1, 16,32' -> [1, 16, 32]; refuses what is not a positive whole number in digits 0-9, repeats, and
    more than MAX_CLIENT_LEVELS levels."""
    levels: list[int] = []
    for part in text.replace(" ", "").split(","):
        number = ascii_whole_number(part)
        if number is None or number < 1:
            raise ValidationError(_("%(value)s is not a positive whole number."), params={"value": part or '""'})
        if number in levels:
            raise ValidationError(_("%(value)s is given twice."), params={"value": part})
        levels.append(number)
    if len(levels) > MAX_CLIENT_LEVELS:
        message = _("At most %(limit)s client levels, not %(count)s.")
        raise ValidationError(message, params={"limit": MAX_CLIENT_LEVELS, "count": len(levels)})
    return levels


class ClientLevelsField(forms.CharField):
    """Client levels typed as '1,16,32', cleaned to [1, 16, 32]."""

    def prepare_value(self, value: Any) -> Any:
        return ",".join(map(str, value)) if isinstance(value, list | tuple) else value

    def to_python(self, value: Any) -> list[int]:  # type: ignore[override]
        if isinstance(value, list | tuple):
            value = ",".join(map(str, value))
        text = super().to_python(value) or ""
        return parse_client_levels(text) if text else []


class SettingsField(forms.CharField):
    """postgresql.conf settings typed one 'name = value' a line, cleaned to {name: value} (pg_settings.py)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("widget", forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}))
        super().__init__(**kwargs)
        self.widget.attrs["maxlength"] = str(SETTINGS_TEXT_LIMIT)

    def prepare_value(self, value: Any) -> Any:
        return settings_text(value) if isinstance(value, dict) else value

    def to_python(self, value: Any) -> dict[str, str]:  # type: ignore[override]
        if isinstance(value, dict):
            return check_settings(value)
        text = super().to_python(value) or ""
        ProhibitNullCharactersValidator()(text)
        if len(text) > SETTINGS_TEXT_LIMIT:
            message = _("At most %(limit)s characters of settings, not %(count)s.")
            raise ValidationError(message, params={"limit": SETTINGS_TEXT_LIMIT, "count": len(text)})
        return parse_settings(text)
