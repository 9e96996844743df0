"""The member roles (studies/roles.py) in the admin under names in the reader's language. The groups keep their
English names, by which the code finds them; the admin's group list and a member's groups show the translation."""

from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import ManyToManyField
from django.forms import ModelMultipleChoiceField
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

ROLE_NAMES = {
    "Members: browse": _("Members: browse"),
    "Members: queue": _("Members: queue"),
    "Members: cancel and retry": _("Members: cancel and retry"),
    "Members: administer": _("Members: administer"),
}


def role_name(group: Group) -> str:
    """A role's name in the reader's language; any other group's as it was named."""
    return str(ROLE_NAMES.get(group.name, group.name))


class RoleGroupAdmin(GroupAdmin):
    list_display = ["translated_name"]

    @admin.display(description=_("name"), ordering="name")
    def translated_name(self, group: Group) -> str:
        return role_name(group)


class RoleUserAdmin(UserAdmin):
    def formfield_for_manytomany(
        self, db_field: "ManyToManyField[Any, Any]", request: HttpRequest, **kwargs: Any
    ) -> "ModelMultipleChoiceField[Any] | None":
        field = super().formfield_for_manytomany(db_field, request, **kwargs)
        if field is not None and db_field.name == "groups":
            field.label_from_instance = role_name  # type: ignore[assignment,method-assign]
        return field


admin.site.unregister(Group)
admin.site.register(Group, RoleGroupAdmin)
admin.site.unregister(User)
admin.site.register(User, RoleUserAdmin)
