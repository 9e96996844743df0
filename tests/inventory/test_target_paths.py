"""A host's work directory and a build's bin directory: absolute, letters, digits and / . _ - only, no `..`;
the same rule in the admin, the model, the commands and the worker, which refuses a stored row that breaks it."""

import io
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from benchdash.inventory.management.commands import register_local
from benchdash.inventory.models import Build, Host
from benchdash.inventory.validators import validate_target_path
from benchdash.studies.lifecycle.specs import host_spec
from tests.factories import HostFactory, ScenarioFactory, trial_spec_on
from tests.store_template import database_before
from workers.attempt import run_attempt
from workers.builds import BuildInstallError, install_build
from workers.local_transport import LocalTransport
from workers.paths import PathProblem, path_problem
from workers.spec import BuildSpec, HostSpec
from workers.transport import HostRefused, connect

MARKER = "/tmp/benchdash-issue15-pwned"
ATTACKS = [
    (f"/tmp/bd$(touch {MARKER})", PathProblem.CHARACTERS),
    (f"/tmp/bd`touch {MARKER}`", PathProblem.CHARACTERS),
    (f"/tmp/bd;touch {MARKER}", PathProblem.CHARACTERS),
    ("/tmp/bench dash", PathProblem.CHARACTERS),
    ("/tmp/bd\ntouch", PathProblem.CHARACTERS),
    ("/tmp/bd'quoted'", PathProblem.CHARACTERS),
    ('/tmp/bd"$HOME"', PathProblem.CHARACTERS),
    ("/tmp/ｂｄ", PathProblem.CHARACTERS),
    ("/var/lib/benchdash/../../etc", PathProblem.PARENT),
    ("/..", PathProblem.PARENT),
    ("tmp/benchdash", PathProblem.RELATIVE),
    ("~/benchdash", PathProblem.RELATIVE),
    ("", PathProblem.EMPTY),
    ("/" + "a" * 400, PathProblem.LENGTH),
]
SAFE = ["/var/lib/benchdash", "/home/bench/work-dir_2.0", "/tmp/..hidden/x", "/srv/bd/./w"]


@pytest.mark.parametrize(("path", "problem"), ATTACKS)
def test_it_names_what_makes_a_path_unsafe(path: str, problem: PathProblem) -> None:
    assert path_problem(path) == problem
    with pytest.raises(ValidationError) as refused:
        validate_target_path(path)
    assert refused.value.code == f"path_{problem}"


@pytest.mark.parametrize("path", SAFE)
def test_it_takes_an_absolute_path_of_safe_characters(path: str) -> None:
    assert path_problem(path) is None
    validate_target_path(path)


@pytest.mark.parametrize(("path", "problem"), ATTACKS[:4] + ATTACKS[8:9])
def test_the_worker_refuses_a_host_with_an_unsafe_work_dir_before_running_anything(path: str, problem: str) -> None:
    with pytest.raises(HostRefused) as refused:
        connect(HostSpec(name="local", work_dir=path))

    assert str(refused.value).startswith(f"host 'local': work directory {path!r} is refused: ")
    assert not Path(MARKER).exists()


def test_a_trial_on_a_host_with_an_unsafe_work_dir_fails_with_the_reason_and_runs_nothing() -> None:
    host = HostSpec(name="local", work_dir=f"/tmp/bd$(touch {MARKER})")

    outcome = run_attempt(trial_spec_on(host), should_cancel=lambda: False)

    assert not outcome.ok
    assert outcome.error == (
        f"HostRefused: host 'local': work directory '/tmp/bd$(touch {MARKER})' is refused: "
        "only letters, digits and / . _ - are allowed"
    )
    assert not Path(MARKER).exists()


def test_the_worker_refuses_a_build_with_an_unsafe_bin_dir() -> None:
    build = BuildSpec(name="planted", kind="installed", bin_dir=f"/usr/lib/postgresql/15/bin;touch {MARKER}")

    with pytest.raises(BuildInstallError) as refused:
        install_build(LocalTransport(HostSpec(name="local")), build)

    assert "build planted: bin directory" in str(refused.value)
    assert "only letters, digits and / . _ - are allowed" in str(refused.value)
    assert not Path(MARKER).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "problem"), ATTACKS[:4] + ATTACKS[8:11])
def test_the_admin_refuses_a_host_with_an_unsafe_work_dir(admin_client, path: str, problem: str) -> None:
    form = {"name": "db1", "address": "192.0.2.1", "port": "22", "username": "bench", "work_dir": path}

    response = admin_client.post(reverse("admin:inventory_host_add"), form)

    assert response.status_code == 200
    assert "work_dir" in response.context["adminform"].form.errors
    assert not Host.objects.filter(name="db1").exists()


@pytest.mark.django_db
def test_the_admin_takes_a_host_with_a_safe_work_dir(admin_client) -> None:
    form = {"name": "db1", "address": "192.0.2.1", "port": "22", "username": "bench", "work_dir": "/srv/bd"}

    response = admin_client.post(reverse("admin:inventory_host_add"), form)

    assert response.status_code == 302
    assert Host.objects.get(name="db1").work_dir == "/srv/bd"


@pytest.mark.django_db
def test_the_admin_refuses_a_build_with_an_unsafe_bin_dir(admin_client) -> None:
    form = {"name": "planted", "version": "15.1", "kind": "installed", "bin_dir": "/opt/pg/$(id)/bin"}

    response = admin_client.post(reverse("admin:inventory_build_add"), form)

    assert "bin_dir" in response.context["adminform"].form.errors
    assert not Build.objects.filter(name="planted").exists()


@pytest.mark.django_db
def test_register_local_refuses_a_work_dir_with_a_space(monkeypatch) -> None:
    """The local work dir is benchdash-work in the run user's home: a home with a space is refused."""
    monkeypatch.setattr(register_local, "local_work_dir", lambda: "/home/bench dash/benchdash-work")

    with pytest.raises(CommandError) as refused:
        call_command("register_local", stdout=io.StringIO())

    assert "is refused: only letters, digits and / . _ - are allowed (it is benchdash-work in the home of" in str(
        refused.value
    )
    assert not Host.objects.exists()


@pytest.mark.django_db
def test_run_trial_refuses_a_stored_host_with_an_unsafe_work_dir() -> None:
    HostFactory(name="db1")
    ScenarioFactory(slug="s")
    Host.objects.filter(name="db1").update(work_dir=f"/tmp/x`touch {MARKER}`")  # as a row from before the check

    with pytest.raises(CommandError) as refused:
        call_command("run_trial", "--host", "db1", "--build", "15", "--scenario", "s", stdout=io.StringIO())

    assert "is refused: only letters, digits and / . _ - are allowed" in str(refused.value)
    assert not Path(MARKER).exists()


@pytest.mark.django_db(transaction=True)
def test_migrating_keeps_a_stored_host_with_an_unsafe_work_dir_for_the_worker_to_refuse() -> None:
    with database_before(("inventory", "0002_target_paths_are_safe")):  # a copy at inventory 0001, dropped after
        executor = MigrationExecutor(connection)
        old_host = executor.loader.project_state([("inventory", "0001_initial")]).apps.get_model("inventory", "Host")
        old_host.objects.create(name="db1", address="192.0.2.1", work_dir="/tmp/bd$(id)")

        executor.migrate(executor.loader.graph.leaf_nodes("inventory"))

        host = Host.objects.get(name="db1")
        assert host.work_dir == "/tmp/bd$(id)"
        with pytest.raises(ValidationError) as refused:
            host.full_clean()
        assert list(refused.value.message_dict) == ["work_dir"]
        with pytest.raises(HostRefused):
            connect(host_spec(host))
