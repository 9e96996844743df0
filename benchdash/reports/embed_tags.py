"""`{% embed_links "<chart>" <route values> alt="..." query="..." %}`: under a chart, its embed addresses (PNG, SVG,
iframe) as the HTML to paste, for any chart of the registry (embed_registry.py). Loaded as `{% load embeds %}`."""

from typing import Any

from django import template
from django.urls import reverse

register = template.Library()


@register.inclusion_tag("reports/_embed_snippet.html", takes_context=True)
def embed_links(context: dict[str, Any], chart: str, *route: object, alt: str = "", query: str = "") -> dict[str, Any]:
    """`query`: the chart's state in its address, such as "a=...&b=..." of a comparison."""
    suffix = f"?{query}" if query else ""
    urls = {kind: reverse(f"embeds:{chart}_{kind}", args=route) + suffix for kind in ("png", "svg", "frame")}
    return {"request": context["request"], "alt": alt, **urls}
