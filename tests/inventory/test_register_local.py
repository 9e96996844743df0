"""`manage.py register_local`: the host `local` and a build per installed PostgreSQL, idempotently."""

import glob
import io
import os
import pwd
import stat

import pytest
from django.core.management import call_command

from benchdash.inventory.models import Build, Host
from tests.factories import HostFactory
from workers.local_transport import local_run_user

pytestmark = pytest.mark.django_db


def register_local() -> str:
    out = io.StringIO()
    call_command("register_local", stdout=out)
    return out.getvalue()


def test_it_registers_the_local_host_with_a_private_work_dir_in_the_run_user_s_home():
    register_local()
    host = Host.objects.get(name="local")
    account = pwd.getpwnam(local_run_user()) if local_run_user() else pwd.getpwuid(os.geteuid())
    info = os.stat(host.work_dir)
    assert host.is_local
    assert host.work_dir == f"{account.pw_dir}/benchdash-work"
    assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (account.pw_uid, 0o700)


def test_a_local_host_left_with_a_shared_work_dir_moves_to_the_private_one():
    HostFactory(name="local", work_dir="/tmp")
    output = register_local()
    assert Host.objects.get(name="local").work_dir.endswith("/benchdash-work")
    assert "its work dir /tmp is not private to the account benchdash runs as" in output


def test_it_registers_a_build_per_installed_postgresql_with_its_real_version():
    register_local()
    installed = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    builds = Build.objects.filter(kind=Build.Kind.INSTALLED).order_by("bin_dir")
    assert [build.bin_dir for build in builds] == installed
    assert all(build.version.startswith(build.bin_dir.split("/")[-2] + ".") for build in builds)


def test_running_it_twice_changes_nothing():
    register_local()
    before = list(Build.objects.values_list("pk", "name", "version"))
    output = register_local()
    assert list(Build.objects.values_list("pk", "name", "version")) == before
    assert Host.objects.filter(name="local").count() == 1
    assert "build unchanged" in output and "created" not in output
