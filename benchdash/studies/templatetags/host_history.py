"""The noise history of a host, for its page: the inventory app's page shows what the studies app knows of it
without importing it (the import contracts keep inventory below studies)."""

from django import template

from benchdash.inventory.models import Host
from benchdash.studies.results.host_spread import OWN_HISTORY_MIN_STUDIES, HostHistory, host_history

register = template.Library()


@register.inclusion_tag("studies/_host_history.html")
def host_noise_history(host: Host) -> dict[str, HostHistory | int]:
    """The host's kind, its own recent studies and its kind's, and which history a study on it borrows."""
    return {"history": host_history(host), "own_minimum": OWN_HISTORY_MIN_STUDIES}
