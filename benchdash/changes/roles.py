"""Who may acknowledge a change: the members who may cancel and retry studies, and administrators
(`changes.add_acknowledgement`). A bisect queues studies, so it asks for `studies.add_study`, as the form does."""

from typing import Any

from benchdash.studies.roles import ADMINISTER, roles_ensure

ACKNOWLEDGE_PERMISSION = "changes.add_acknowledgement"
BISECT_PERMISSION = "studies.add_study"
ACKNOWLEDGING_ROLES = ("Members: cancel and retry", ADMINISTER)


def acknowledgers_ensure(apps: Any) -> None:
    """Give the acknowledging roles their permission (`apps`: a migration's registry, or django.apps.apps)."""
    roles_ensure(apps)
    permission = apps.get_model("auth", "Permission").objects.get(
        content_type__app_label="changes", codename="add_acknowledgement"
    )
    for group in apps.get_model("auth", "Group").objects.filter(name__in=ACKNOWLEDGING_ROLES):
        group.permissions.add(permission)
