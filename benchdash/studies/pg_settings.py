"""postgresql.conf settings as a study takes them: one 'name = value' per line, parsed and checked here
for every way a study or a trial is made (the form, queue_study, run_trial)."""

from functools import cache
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

GUC_NAMES_FILE = Path(__file__).with_name("guc_names.txt")


@cache
def known_setting_names() -> frozenset[str]:
    """Setting names PostgreSQL knows (from `postgres --describe-config`), lower-cased."""
    lines = GUC_NAMES_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().lower() for line in lines if line.strip() and not line.startswith("#"))


def parse_settings(text: str) -> dict[str, str]:
    """'name = value' per line ('#' starts a comment) -> {name: value}; refuses unknown names.

    Raises ValidationError naming the line or the setting.
    """
    parsed: dict[str, str] = {}
    for number, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.strip()
        if not line or line.startswith("#"):
            continue
        name, equals, value = line.partition("=")
        name, value = name.strip(), value.strip()
        if not equals or not name:
            raise ValidationError(_("Line %(number)s is not 'name = value'."), params={"number": number})
        if "." not in name and name.lower() not in known_setting_names():
            raise ValidationError(_("Unknown setting name: %(name)s."), params={"name": name})
        parsed[name] = _unquote(value)
    return parsed


def settings_text(pg_settings: dict[str, Any]) -> str:
    """The settings as the lines parse_settings reads back."""
    return "\n".join(f"{name} = {value}" for name, value in pg_settings.items())


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value
