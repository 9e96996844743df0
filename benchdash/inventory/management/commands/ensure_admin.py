"""Create an administrator account if there is none, and print its password once."""

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Creates the user 'admin' with a random password when no superuser exists."

    def handle(self, *args: object, **options: object) -> None:
        user_model = get_user_model()
        if user_model.objects.filter(is_superuser=True).exists():
            return
        password = secrets.token_urlsafe(12)
        user_model.objects.create_superuser("admin", "", password)
        self.stdout.write(f"Created the administrator 'admin' with password: {password}")
        self.stdout.write("It is shown only this once; change it at /admin/password_change/.")
