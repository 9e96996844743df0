"""Member roles as groups, each holding what the one before holds: browse, queue, cancel and retry, administer.

| role | may |
| --- | --- |
| Members: browse | read every page (what a logged-in account may always do; with BENCHDASH_PUBLIC_READ off, only it) |
| Members: queue | and queue a study (`studies.add_study`) |
| Members: cancel and retry | and cancel a study, run its failed trials again (`studies.cancel_study`) |
| Members: administer | and every permission of the inventory and studies apps (mark official, conclusions ...) |

The admin also needs the account's staff flag.

Migration studies 0013 creates them; `roles_ensure` is idempotent, so tests (whose transactional cases empty the
tables) call it too.
"""

from typing import Any

from django.contrib.auth.management import create_permissions

BROWSE = [("studies", "view_study"), ("studies", "view_trial"), ("inventory", "view_host"), ("inventory", "view_build")]
QUEUE = [*BROWSE, ("studies", "add_study")]
CANCEL_AND_RETRY = [*QUEUE, ("studies", "cancel_study")]
ROLES = {"Members: browse": BROWSE, "Members: queue": QUEUE, "Members: cancel and retry": CANCEL_AND_RETRY}
ADMINISTER = "Members: administer"
ADMINISTERED_APPS = ("inventory", "studies")


def _ensure_permissions(apps: Any) -> None:
    """Permissions are made after migrations (post_migrate); the groups need them now. A migration's app
    registry has no models modules, which create_permissions asks for."""
    for app_config in apps.get_app_configs():
        stub = getattr(app_config, "models_module", None) is None
        if stub:
            app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        if stub:
            app_config.models_module = None


def roles_ensure(apps: Any) -> None:
    """Create the role groups with their permissions (`apps`: a migration's registry, or django.apps.apps)."""
    _ensure_permissions(apps)
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    for name, pairs in ROLES.items():
        group, _created = group_model.objects.get_or_create(name=name)
        group.permissions.add(
            *(permission_model.objects.get(content_type__app_label=app, codename=code) for app, code in pairs)
        )
    administer, _created = group_model.objects.get_or_create(name=ADMINISTER)
    administer.permissions.add(*permission_model.objects.filter(content_type__app_label__in=ADMINISTERED_APPS))
