"""`manage.py settings_catalog MAJOR...`: write the settings catalog of a registered build's major.

Starts a throwaway cluster of the build on a host (default `local`), reads its pg_settings, stops and
removes it, and writes workers/settings_catalog/<major>.json (see workers/settings_catalog.py). The
files are part of the repository: commit them. The cluster runs under the host-wide lock, never beside another
installation's trial (benchdash/inventory/host_commands.py).
"""

import posixpath
import uuid
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchdash.inventory.host_commands import host_held
from benchdash.inventory.models import LOCAL_HOST_NAME, Build, Host
from benchdash.studies.lifecycle.specs import build_spec, host_spec
from workers.builds import BuildInstallError, install_build
from workers.cluster import Cluster, ClusterError
from workers.settings_catalog import CATALOG_DIR, SettingsCatalog, catalog_text
from workers.transport import Transport, TransportError


class Command(BaseCommand):
    help = "Write the settings catalog (pg_settings) of PostgreSQL majors from their registered builds."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("builds", nargs="+", help="build names or majors, e.g. 10 11 12 (see fetch_build)")
        parser.add_argument("--host", default=LOCAL_HOST_NAME, help="the host that runs the throwaway cluster")
        parser.add_argument("--output-dir", default=str(CATALOG_DIR), help="where the <major>.json files go")

    def handle(self, *args: Any, **options: Any) -> None:
        host = Host.objects.filter(name=options["host"]).first()
        if host is None:
            raise CommandError(f"unknown host {options['host']!r} (register_local registers `local`)")
        builds = [_resolve(token) for token in options["builds"]]
        output_dir = Path(options["output_dir"])
        output_dir.mkdir(parents=True, exist_ok=True)
        try:
            with host_held(host_spec(host)) as transport:
                for build in builds:
                    catalog = _catalog_of(transport, build)
                    path = output_dir / f"{catalog.major}.json"
                    path.write_text(catalog_text(catalog, source=f"pg_settings of {build.name}"), encoding="utf-8")
                    self.stdout.write(f"{path}: PostgreSQL {catalog.version}, {len(catalog.settings)} settings")
            Host.note_answered(host.name)
        except (BuildInstallError, ClusterError, TransportError) as error:
            raise CommandError(str(error)) from error


def _resolve(token: str) -> Build:
    build = Build.objects.resolve(token)
    if build is None:
        raise CommandError(f"no registered build named or of major {token!r} (see register_local, fetch_build)")
    return build


def _catalog_of(transport: Transport, build: Build) -> SettingsCatalog:
    installed = install_build(transport, build_spec(build))
    scratch = posixpath.join(transport.host.work_dir, f"settings-catalog-{uuid.uuid4().hex[:8]}")
    cluster = Cluster(transport, installed, posixpath.join(scratch, "data"))
    try:
        cluster.initdb()
        cluster.start()
        return cluster.settings_catalog()
    finally:
        cluster.stop(mode="immediate")
        transport.run(["rm", "-rf", scratch], check=False)
