"""`manage.py register_local`: the host `local` and a build per installed PostgreSQL, idempotently."""

import glob
import io
import os
import pwd

import pytest
from django.core.management import call_command

from benchdash.inventory.models import Build, Host

pytestmark = pytest.mark.django_db


def register_local() -> str:
    out = io.StringIO()
    call_command("register_local", stdout=out)
    return out.getvalue()


def test_it_registers_the_local_host_with_a_work_dir_the_run_user_owns():
    register_local()
    host = Host.objects.get(name="local")
    assert host.is_local
    assert os.path.isdir(host.work_dir)
    if os.geteuid() == 0:
        assert pwd.getpwuid(os.stat(host.work_dir).st_uid).pw_name == "benchdash"


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
