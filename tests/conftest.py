"""Fixtures shared by all tests. Fixture plugins live in their own modules and are registered here."""

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from django.test import override_settings

if TYPE_CHECKING:
    from django.contrib.auth.models import User

MEMORY_TMP = "/dev/shm"
MEMORY_TMP_FREE_BYTES = 4 << 30


def put_temporary_files_in_memory() -> str | None:
    """The tests' temporary files (targets' work dirs and their clusters, sshd's keys, tmp_path) in a directory of the
    run's own in /dev/shm, where this machine has a writable one with room: initdb and the copies of a data directory
    wrote to the disk for seconds of system time each. The engine cannot tell; TMPDIR set by the caller wins. Set
    before pytest-xdist starts its workers, which inherit it, as do the workers, servers and targets the tests start.
    Returns the directory made (None: none was), which pytest_sessionfinish removes."""
    if "TMPDIR" in os.environ or not os.access(MEMORY_TMP, os.W_OK):
        return None
    if shutil.disk_usage(MEMORY_TMP).free < MEMORY_TMP_FREE_BYTES:
        return None
    run_tmp = tempfile.mkdtemp(prefix="benchdash-tests-", dir=MEMORY_TMP)
    # As /dev/shm itself (sticky, anyone may write): the other accounts the tests run (targets, the web server's)
    # write their temporary files here too.
    os.chmod(run_tmp, 0o1777)  # noqa: S103
    os.environ["TMPDIR"] = run_tmp
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    return run_tmp


RUN_TMP = put_temporary_files_in_memory()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The run's temporary directory goes once every worker has ended, with what killed processes could not remove
    (a Celery pool's pymp-* directories, chromium's files): about 60 directories a run were left in /dev/shm. After a
    failure it is kept, for the failed tests' worker and server logs, and named."""
    if RUN_TMP is None:
        return
    if exitstatus == pytest.ExitCode.OK:
        shutil.rmtree(RUN_TMP, ignore_errors=True)
    else:
        session.config.get_terminal_writer().line(f"the tests' temporary files are kept in {RUN_TMP}")


def pytest_configure(config: pytest.Config) -> None:
    """Each pytest-xdist worker leads a session of its own. Linux's autogroup scheduler (where
    /proc/sys/kernel/sched_autogroup_enabled is 1) shares the CPU among sessions, not processes, and every Celery
    worker, server and pgbench the tests start has a session of its own: the workers, in their controller's session,
    got one share among those (a third each, with three). Three busy loops in one session ran 4.2 million rounds each in
    4 s on a 2-core machine beside three in sessions of their own, which ran 13 million each."""
    if hasattr(config, "workerinput"):
        with contextlib.suppress(OSError):  # already a session's leader
            os.setsid()


pytest_plugins = ["tests.sshd", "tests.pgbuilds", "tests.browser", "tests.serving", "tests.s3", "tests.tls"]

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
        "shared_worker",
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


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix: None, request: pytest.FixtureRequest
) -> None:
    """Each pytest worker's test database is a copy of one migrated template (tests/store_template.py)."""
    from django.conf import settings

    from tests.store_template import migrated_template

    test = settings.DATABASES["default"]["TEST"]
    worker = getattr(request.config, "workerinput", {}).get("workerid")
    test["TEMPLATE"] = migrated_template(test["NAME"].removesuffix(f"_{worker}") if worker else test["NAME"])


@pytest.fixture(scope="session", autouse=True)
def static_files_as_in_static_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Pages name static/'s plain files, which Django's client ignores and the live server serves from static/: never
    the hashed names of whatever `make run` last collected into var/staticfiles (benchdash/static_storage.py).
    Gunicorn's tests collect their own (tests/serving.py)."""
    with override_settings(STATIC_ROOT=tmp_path_factory.mktemp("staticfiles")):
        yield


@pytest.fixture(scope="session", autouse=True)
def media_of_its_own(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Raw trial files in a folder of this pytest worker's own, and of the workers and servers it starts (they inherit
    BENCHDASH_MEDIA_ROOT): the xdist workers' test databases hand out the same trial ids, and var/media holds `make
    run`'s files under those names. A worker writes a trial's files under its id and removes those that no row of
    its own names."""
    media = tmp_path_factory.mktemp("media")
    with override_settings(MEDIA_ROOT=media), pytest.MonkeyPatch.context() as environment:
        environment.setenv("BENCHDASH_MEDIA_ROOT", str(media))
        yield


@pytest.fixture(scope="session", autouse=True)
def tasks_go_nowhere() -> None:
    """A test that sends a task without a broker of its own (a transactional test that queues a study) sends it
    nowhere (tests/queue/conftest.py, TASK_SINK): a fresh clone's tests left run_study_trial and clear_study_clusters
    on the checkout's own queue, Redis db 0, for its `make run` worker to take."""
    from tests.queue.conftest import TASK_SINK, point_app_at

    point_app_at(TASK_SINK)


@pytest.fixture(scope="session", autouse=True)
def flush_by_delete() -> Iterator[None]:
    """A transactional test's teardown empties the test database with DELETE (tests/flush.py): Django's one TRUNCATE
    of the 36 tables gives each of them, their indexes and TOAST tables new files, many times the time of
    deleting a test's few rows (bench/flush_truncate_vs_delete.py, docs/BENCHMARKS.md). A flush that resets sequences
    still truncates."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    from tests.flush import delete_flush_sql

    truncate = DatabaseOperations.sql_flush

    def sql_flush(operations, style, tables, *, reset_sequences=False, allow_cascade=False) -> list[str]:
        if reset_sequences or not tables:
            return truncate(operations, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        return delete_flush_sql(operations, tables)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DatabaseOperations, "sql_flush", sql_flush)
        yield


@pytest.fixture(scope="session", autouse=True)
def fast_password_hasher() -> Iterator[None]:
    """MD5 for the tests' passwords: the production hasher (PBKDF2, a million rounds) costs seconds a test on a slow
    machine at every create_user and login, and what it proves is Django's, not ours. Production settings keep it."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture
def member_roles(db: None) -> None:
    """The role groups with their permissions (migrations studies 0013 and changes 0003), again when a transactional
    test before this one emptied the tables: making them is a hundred queries, looking for them one."""
    from django.apps import apps
    from django.contrib.auth.models import Group

    from benchdash.changes.roles import ACKNOWLEDGING_ROLES, acknowledgers_ensure
    from benchdash.studies.roles import ADMINISTER, ROLES

    acknowledgers = Group.objects.filter(name__in=ACKNOWLEDGING_ROLES, permissions__codename="add_acknowledgement")
    groups = Group.objects.filter(name__in=[*ROLES, ADMINISTER])
    if groups.count() + acknowledgers.count() != len(ROLES) + 1 + len(ACKNOWLEDGING_ROLES):
        acknowledgers_ensure(apps)


@pytest.fixture
def member(client, member_roles: None) -> "User":
    """A logged-in member of the role "cancel and retry": may queue, cancel and retry."""
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user("member", password="pw-member-1")
    user.groups.add(Group.objects.get(name="Members: cancel and retry"))
    client.force_login(user)
    return user
