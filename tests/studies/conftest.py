"""Fixtures of the studies tests."""

import pytest
from django.contrib.auth.models import Group, User


@pytest.fixture
def member(client, member_roles: None) -> User:
    """A logged-in member of the role "cancel and retry": may queue, cancel and retry."""
    user = User.objects.create_user("member", password="pw-member-1")
    user.groups.add(Group.objects.get(name="Members: cancel and retry"))
    client.force_login(user)
    return user
