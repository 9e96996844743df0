"""Links to a version's page (trends:version) wherever a build or a version is named:
`{{ build.version|version_url }}` (the minor, 14.3) and `{{ build.version|major_url }}` (its major, 14)."""

import re

from django import template
from django.urls import reverse

from benchdash.inventory.models import major_version

register = template.Library()

_VERSION = re.compile(r"\d+(?:\.\d+){0,2}")


@register.filter
def version_url(version: str) -> str:
    """The page of this version as written ('14.3', '9.4.3', '14'); empty when it holds no version number."""
    match = _VERSION.search(str(version or ""))
    return reverse("trends:version", args=[match.group()]) if match else ""


@register.filter
def major_url(version: str) -> str:
    """The page of the version's major: '14.3' -> the page of 14."""
    return version_url(major_version(str(version))) if _VERSION.search(str(version or "")) else ""
