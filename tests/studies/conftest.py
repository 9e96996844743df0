"""Fixtures of the studies tests."""

import pytest
from django.contrib.auth.models import Permission, User


@pytest.fixture
def member(client) -> User:
    """A logged-in member with the permission "add study"."""
    user = User.objects.create_user("member", password="pw-member-1")
    user.user_permissions.add(Permission.objects.get(codename="add_study"))
    client.force_login(user)
    return user
