"""Fixtures shared by all tests. Fixture plugins live in their own modules and are registered here."""

import pytest

pytest_plugins = ["tests.sshd", "tests.pgbuilds", "tests.browser", "tests.serving", "tests.s3"]

# Fixtures that need something running: the store (pytest-django), sshd and the local target (tests/sshd.py),
# PostgreSQL builds and clusters (tests/pgbuilds.py), Redis and Celery (tests/queue/conftest.py), gunicorn
# (tests/serving.py), moto's S3 server (tests/s3.py).
SERVER_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "client",
        "admin_client",
        "admin_user",
        "django_user_model",
        "live_server",
        "browser",
        "ssh_target",
        "local_target",
        "any_transport",
        "installed_build",
        "archive_build",
        "running_clusters",
        "broker",
        "redis_server",
        "own_redis_processes",
        "celery_processes",
        "gunicorn",
        "moto_endpoint",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `servers` every test that needs one, so that `pytest -m "not servers"` runs the rest with nothing up.

    A fixture counts wherever the test reaches it, through other fixtures too: item.fixturenames is the closure.
    A module that reaches a server without a fixture says so itself with `pytestmark = pytest.mark.servers`.
    """
    for item in items:
        fixture_names = set(getattr(item, "fixturenames", ()))
        if item.get_closest_marker("django_db") or fixture_names & SERVER_FIXTURES:
            item.add_marker(pytest.mark.servers)


@pytest.fixture
def member_roles(db: None) -> None:
    """The role groups (migration studies 0013), again: a transactional test before this one emptied the tables."""
    from django.apps import apps

    from benchdash.studies.roles import roles_ensure

    roles_ensure(apps)
