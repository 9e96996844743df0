"""One migrated template of the test database, from which each pytest-xdist worker's test database is copied.

Running every migration in each worker's first database test cost every worker seconds of CPU, the four at once at the
start of a run. The first worker to need its database now migrates a template, under an advisory lock, and every
worker's database is created from it (Django's TEST["TEMPLATE"]: CREATE DATABASE ... TEMPLATE), where migrate then finds
everything applied. The template's name ends in a digest of the migrations and requirements-dev.txt, the lock the tests
run on (production's packages among its pins): a change to either makes a new one, and this checkout's older ones are
dropped. A template is renamed into place only once migrated.
"""

import contextlib
import hashlib
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import psycopg
from django.conf import settings
from psycopg import sql

ROOT = Path(__file__).resolve().parents[1]
MIGRATE_TIMEOUT_S = 300


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


def migrated_template(test_database: str) -> str:
    """The name of the migrated template for test databases named `test_database` (and its _gwN), made if missing."""
    prefix = f"{test_database}_template_"
    name = prefix + migrations_digest()
    with psycopg.connect(store_url("postgres"), autocommit=True) as maintenance:
        maintenance.execute("SELECT pg_advisory_lock(hashtext(%s))", [prefix])
        if maintenance.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            _drop_templates(maintenance, prefix)
            _migrate_into(maintenance, name)
    return name


def _drop_templates(maintenance: psycopg.Connection, prefix: str) -> None:
    """This test database's older templates, and one whose migration was cut short; one still being copied stays."""
    rows = maintenance.execute("SELECT datname FROM pg_database WHERE starts_with(datname, %s)", [prefix]).fetchall()
    for (database,) in rows:
        with contextlib.suppress(psycopg.errors.ObjectInUse):
            maintenance.execute(sql.SQL("DROP DATABASE {}").format(sql.Identifier(database)))


def _migrate_into(maintenance: psycopg.Connection, name: str) -> None:
    building = f"{name}_building"
    maintenance.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(building)))
    migrate = [sys.executable, "manage.py", "migrate", "--no-input", "--skip-checks", "--verbosity", "0"]
    environment = {**os.environ, "DATABASE_URL": store_url(building)}
    subprocess.run(migrate, cwd=ROOT, env=environment, check=True, timeout=MIGRATE_TIMEOUT_S)
    rename = sql.SQL("ALTER DATABASE {} RENAME TO {}").format(sql.Identifier(building), sql.Identifier(name))
    maintenance.execute(rename)
