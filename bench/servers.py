"""The store and the broker a benchmark uses: those benchdash's settings name (deploy/setup.sh's, on
BENCHDASH_PG_PORT / BENCHDASH_REDIS_PORT, with the passwords set-up generated), each benchmark on a database of
its own that it makes fresh."""

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent


def _settings_urls() -> tuple[str, str]:
    # In a child process: importing the settings here would fix DATABASE_URL before the bench points it elsewhere.
    code = "import benchdash.settings as s; print(s.DATABASE_URL); print(s.REDIS_URL)"
    lines = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True)
    store, broker = lines.stdout.split()
    return store, broker


def _with_path(url: str, path: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=path))


def fresh_store(database: str, redis_db: int) -> tuple[str, str]:
    """Drop and create `database` in the store, point DATABASE_URL and REDIS_URL (db `redis_db`) at them for this
    process and the workers it starts, and return the two URLs."""
    import psycopg

    store, broker = _settings_urls()
    with psycopg.connect(_with_path(store, "/postgres"), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{database}"')
    urls = _with_path(store, f"/{database}"), _with_path(broker, f"/{redis_db}")
    os.environ.update(DATABASE_URL=urls[0], REDIS_URL=urls[1], DJANGO_SETTINGS_MODULE="benchdash.settings")
    return urls


def queue_store(database: str, redis_db: int) -> str:
    """fresh_store, then Django set up on it, the broker's db emptied, migrated, the presets and the host `local`
    registered: what a bench that runs studies through workers starts from. Returns the broker's URL."""
    _, broker = fresh_store(database, redis_db)
    import django

    django.setup()
    import redis
    from django.core.management import call_command

    redis.Redis.from_url(broker).flushdb()
    for command in ("migrate", "load_presets", "register_local"):
        call_command(command, verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115
    return broker


def drop_store(database: str) -> None:
    """Drop a bench's database once it is done (its figures printed): the store's disk is shared."""
    import psycopg

    store, _ = _settings_urls()
    with psycopg.connect(_with_path(store, "/postgres"), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
