"""`manage.py register_local`: the host `local` and a Build for every PostgreSQL installed here. Idempotent."""

import glob
import os
import shutil
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from benchdash.inventory.models import LOCAL_HOST_NAME, Build, Host
from workers.builds import server_version
from workers.local_transport import LocalTransport, local_run_user
from workers.spec import HostSpec

INSTALLED_GLOB = "/usr/lib/postgresql/*/bin"
FALLBACK_WORK_DIR = "/var/tmp/benchdash"


def installed_bin_dirs() -> list[str]:
    return sorted(path for path in glob.glob(INSTALLED_GLOB) if os.access(Path(path, "postgres"), os.X_OK))


def _local() -> LocalTransport:
    """This machine, with commands run as the unprivileged run user when we are root."""
    return LocalTransport(HostSpec(name=LOCAL_HOST_NAME))


def postgres_version(bin_dir: str) -> str:
    """'postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)' -> '15.20'."""
    return server_version(_local(), bin_dir)


def local_work_dir() -> str:
    """var/targets in the project when the unprivileged user can reach it, else /var/tmp/benchdash."""
    preferred = settings.VAR_DIR / "targets"
    return str(preferred) if _run_user_can_enter(settings.VAR_DIR.parent) else FALLBACK_WORK_DIR


def _run_user_can_enter(path: Path) -> bool:
    return _local().run(["test", "-x", str(path)], timeout=30, check=False).ok


def ensure_owned_dir(path: str) -> None:
    os.makedirs(path, exist_ok=True)
    if run_user := local_run_user():
        shutil.chown(path, user=run_user)


class Command(BaseCommand):
    help = "Register the host `local` and a build for every PostgreSQL installed under /usr/lib/postgresql."

    def handle(self, *args: Any, **options: Any) -> None:
        host = self._register_host()
        for bin_dir in installed_bin_dirs():
            self._register_build(bin_dir)
        self.stdout.write(f"local host: work_dir {host.work_dir}")

    def _register_host(self) -> Host:
        work_dir = local_work_dir()
        ensure_owned_dir(work_dir)
        host, created = Host.objects.get_or_create(
            name=LOCAL_HOST_NAME, defaults={"work_dir": work_dir, "notes": "The worker's own machine."}
        )
        if not created and not _run_user_can_enter(Path(host.work_dir).parent):
            host.work_dir = work_dir
            host.save(update_fields=["work_dir"])
        return host

    def _register_build(self, bin_dir: str) -> None:
        version = postgres_version(bin_dir)
        build = Build.objects.filter(kind=Build.Kind.INSTALLED, bin_dir=bin_dir).first()
        if build is None:
            build = Build.objects.create(
                name=f"PostgreSQL {version} installed", version=version, kind=Build.Kind.INSTALLED, bin_dir=bin_dir
            )
            self.stdout.write(f"build created: {build.name} ({bin_dir})")
        elif build.version != version:
            build.version = version
            build.save()
            self.stdout.write(f"build updated: {build.name} is now {version}")
        else:
            self.stdout.write(f"build unchanged: {build.name}")
