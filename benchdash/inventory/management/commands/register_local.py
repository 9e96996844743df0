"""`manage.py register_local`: the host `local` with its facts, and a Build for every PostgreSQL installed here.
Idempotent."""

import glob
import os
import pwd
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from benchdash.inventory.host_facts import COMMAND_LOCK_WAIT_S, facts_outcome_line, host_facts_read
from benchdash.inventory.models import LOCAL_HOST_NAME, Build, Host
from workers.builds import server_version
from workers.local_transport import LocalTransport, local_run_user
from workers.paths import unsafe_path_reason
from workers.spec import HostSpec
from workers.transport import TransportError
from workers.work_dir import check_work_dir

INSTALLED_GLOB = "/usr/lib/postgresql/*/bin"
WORK_DIR_NAME = "benchdash-work"


def installed_bin_dirs() -> list[str]:
    return sorted(path for path in glob.glob(INSTALLED_GLOB) if os.access(Path(path, "postgres"), os.X_OK))


def _local() -> LocalTransport:
    """This machine, with commands run as the unprivileged run user when we are root."""
    return LocalTransport(HostSpec(name=LOCAL_HOST_NAME))


def postgres_version(bin_dir: str) -> str:
    """'postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)' -> '15.20'."""
    return server_version(_local(), bin_dir)


def local_work_dir() -> str:
    """benchdash-work in the home of the account that commands on `local` run as (the run user when we are
    root, else ourselves): a directory only it can change, as workers/work_dir.py requires."""
    run_user = local_run_user()
    home = pwd.getpwnam(run_user).pw_dir if run_user else str(Path.home())
    return str(Path(home, WORK_DIR_NAME))


def private_work_dir_problem(work_dir: str) -> str:
    """Make work_dir (mode 0700, as the run user) if it is missing; why it is not private, or ""."""
    try:
        check_work_dir(LocalTransport(HostSpec(name=LOCAL_HOST_NAME, work_dir=work_dir)))
    except TransportError as error:
        return str(error)
    return ""


class Command(BaseCommand):
    help = "Register the host `local` and a build for every PostgreSQL installed under /usr/lib/postgresql."

    def handle(self, *args: Any, **options: Any) -> None:
        host = self._register_host()
        for bin_dir in installed_bin_dirs():
            self._register_build(bin_dir)
        self.stdout.write(f"local host: work_dir {host.work_dir}")
        self.stdout.write(facts_outcome_line(host_facts_read(host_id=host.pk, wait_s=COMMAND_LOCK_WAIT_S)))

    def _register_host(self) -> Host:
        work_dir = local_work_dir()
        if reason := unsafe_path_reason("the local work directory", work_dir):
            raise CommandError(f"{reason} (it is benchdash-work in the home of {local_run_user() or 'this account'})")
        host, created = Host.objects.get_or_create(
            name=LOCAL_HOST_NAME, defaults={"work_dir": work_dir, "notes": "The worker's own machine."}
        )
        if not created and host.work_dir != work_dir and (problem := private_work_dir_problem(host.work_dir)):
            self.stdout.write(f"local host: {problem}; using {work_dir} instead")
            host.work_dir = work_dir
            host.save(update_fields=["work_dir"])
        if problem := private_work_dir_problem(host.work_dir):
            raise CommandError(problem)
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
