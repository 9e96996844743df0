"""One migrated template of the test database, from which each pytest-xdist worker's test database is copied.

Running every migration in each worker's first database test cost every worker seconds of CPU, the four at once at the
start of a run. The first worker to need its database now migrates a template, under an advisory lock, and every
worker's database is created from it (Django's TEST["TEMPLATE"]: CREATE DATABASE ... TEMPLATE), where migrate then finds
everything applied. The template's name ends in a digest of the migrations and requirements-dev.txt, the lock the tests
run on (production's packages among its pins): a change to either makes a new one, and this checkout's older ones are
dropped. A template is renamed into place only once migrated.

A migration's test starts from a database where only what the migration it tests depends on is applied
(`database_before`): a template of its own, migrated forward from empty to there once (not the whole schema migrated
back for each test, 36 to 40 s of CPU each), copied for the test, which then migrates that copy forward as far as it
needs; the copy is dropped after it.
"""

import contextlib
import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import psycopg
from django.conf import settings
from django.db import connection
from psycopg import sql

ROOT = Path(__file__).resolve().parents[1]
MIGRATE_TIMEOUT_S = 300
# `manage.py migrate APP MIGRATION` for each APP:MIGRATION argument, in one Python.
MIGRATE_TO = """
import sys, django
django.setup()
from django.core.management import call_command
for target in sys.argv[1:]:
    call_command("migrate", *target.split(":"), interactive=False, skip_checks=True, verbosity=0)
"""


def store_url(database: str) -> str:
    """A URL of the store's database `database`, with the tests' credentials (as DATABASE_URL takes it)."""
    db = settings.DATABASES["default"]
    credentials = f"{quote(db['USER'], safe='')}:{quote(db['PASSWORD'] or '', safe='')}"
    return f"postgres://{credentials}@{db['HOST']}:{db['PORT']}/{database}"


def migrations_digest() -> str:
    """What the migrated schema depends on: every migration of the app, and the pinned versions of the others'."""
    digest = hashlib.sha256()
    for path in [*sorted(ROOT.glob("benchdash/*/migrations/*.py")), ROOT / "requirements-dev.txt"]:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def migrated_template(test_database: str, before: tuple[str, str] | None = None) -> str:
    """The name of the migrated template for test databases named `test_database` (and its _gwN), made if missing;
    with `before` (an app and one of its migrations), of one where only that migration's dependencies are applied."""
    # A name of 63 characters at most, "_building" added: before studies 0013, "<test_database>_stu0013_<digest>".
    prefix = f"{test_database}_template_" if before is None else f"{test_database}_{before[0][:3]}{before[1][:4]}_"
    name = prefix + migrations_digest()
    with psycopg.connect(store_url("postgres"), autocommit=True) as maintenance:
        maintenance.execute("SELECT pg_advisory_lock(hashtext(%s))", [prefix])
        if maintenance.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            _drop_templates(maintenance, prefix)
            _migrate_into(maintenance, name, _dependencies(before) if before else [])
    return name


@contextlib.contextmanager
def database_before(migration: tuple[str, str]) -> Iterator[None]:
    """Django's connection, for the block, on a copy of the template where only the dependencies of `migration` (an
    app and its migration) are applied; then on the test database again, the copy dropped. For a transactional test
    (no transaction open to close)."""
    test_database = connection.settings_dict["NAME"]
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    template = migrated_template(test_database.removesuffix(f"_{worker}") if worker else test_database, migration)
    copy = f"{test_database}_migration"
    with psycopg.connect(store_url("postgres"), autocommit=True) as maintenance:
        drop_database(maintenance, copy)
        create = sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(copy), sql.Identifier(template))
        maintenance.execute(create)
    _connect_to(copy)
    try:
        yield
    finally:
        _connect_to(test_database)
        with psycopg.connect(store_url("postgres"), autocommit=True) as maintenance:
            drop_database(maintenance, copy)


def drop_database(maintenance: psycopg.Connection, name: str, tries: int = 20) -> None:
    """DROP DATABASE IF EXISTS, its clients ended. WITH (FORCE) refuses to end an autovacuum worker there (it runs as
    no role this one may signal: a fresh clone's run failed so), which a plain DROP cancels itself; so where FORCE is
    refused, a plain DROP, and FORCE again while clients are left."""
    force = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
    plain = sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name))
    for _ in range(tries - 1):
        try:
            maintenance.execute(force)
            return
        except psycopg.errors.InsufficientPrivilege:
            with contextlib.suppress(psycopg.errors.ObjectInUse):
                maintenance.execute(plain)
                return
        time.sleep(0.1)
    maintenance.execute(force)


def _connect_to(database: str) -> None:
    """Django's default connection on `database` from its next query; the content types cached from the other one
    forgotten (their ids differ between the two)."""
    from django.contrib.contenttypes.models import ContentType

    connection.close()
    connection.settings_dict["NAME"] = database
    ContentType.objects.clear_cache()


def _drop_templates(maintenance: psycopg.Connection, prefix: str) -> None:
    """This test database's older templates, and one whose migration was cut short; one still being copied stays."""
    rows = maintenance.execute("SELECT datname FROM pg_database WHERE starts_with(datname, %s)", [prefix]).fetchall()
    for (database,) in rows:
        with contextlib.suppress(psycopg.errors.ObjectInUse):
            maintenance.execute(sql.SQL("DROP DATABASE {}").format(sql.Identifier(database)))


def _dependencies(migration: tuple[str, str]) -> list[tuple[str, str]]:
    from django.db.migrations.loader import MigrationLoader

    node = MigrationLoader(None, ignore_no_migrations=True).graph.node_map[migration]
    return sorted(parent.key for parent in node.parents)


def _migrate_into(maintenance: psycopg.Connection, name: str, targets: list[tuple[str, str]]) -> None:
    """Every migration into a new database `name`, or only up to each of targets (in one Django start)."""
    building = f"{name}_building"
    maintenance.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(building)))
    migrate = [sys.executable, "manage.py", "migrate", "--no-input", "--skip-checks", "--verbosity", "0"]
    if targets:
        migrate = [sys.executable, "-c", MIGRATE_TO, *(f"{app}:{name}" for app, name in targets)]
    environment = {**os.environ, "DATABASE_URL": store_url(building), "DJANGO_SETTINGS_MODULE": "benchdash.settings"}
    subprocess.run(migrate, cwd=ROOT, env=environment, check=True, timeout=MIGRATE_TIMEOUT_S)
    rename = sql.SQL("ALTER DATABASE {} RENAME TO {}").format(sql.Identifier(building), sql.Identifier(name))
    maintenance.execute(rename)
