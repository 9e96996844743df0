"""A study whose pgbench host cannot reach its DB host is refused at queueing with the reason (a real sshd as the
pgbench host, probing real addresses), and one whose pgbench host reaches it is queued."""

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from benchdash.studies.forms import StudyForm
from benchdash.studies.models import Study
from tests.factories import BuildFactory, HostFactory, ScenarioFactory
from tests.sshd import free_port

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


@pytest.fixture
def rows(ssh_target):
    fields = {name: getattr(ssh_target, name) for name in ("address", "port", "username", "key_path", "host_key")}
    return {
        "pgbench": HostFactory(name="pgbench-host", work_dir=ssh_target.work_dir, **fields),
        "local": HostFactory(name="local", address="", facts={"cpu_threads": 2}),
        "build": BuildFactory(name="pg15", version="15.20", bin_dir="/usr/lib/postgresql/15/bin"),
        "scenario": ScenarioFactory(slug="tpcb", builtin="tpcb-like", reset="once"),
    }


def study_form(rows, db_host, **changes) -> StudyForm:
    data = {
        "title": "reach",
        "year": "2026",
        "db_host": db_host.pk,
        "client_host": rows["pgbench"].pk,
        "builds": [rows["build"].pk],
        "baseline": rows["build"].pk,
        "scenarios": [rows["scenario"].pk],
        "client_levels": "1",
        "repetitions": "1",
        "duration_s": "1",
        "scale": "1",
        "seed": "1",
        **changes,
    }
    return StudyForm(data)


def test_a_pgbench_host_that_cannot_reach_the_db_host_is_refused_with_the_reason(rows):
    closed = free_port()
    db_host = HostFactory(name="db-closed", address="127.0.0.1", port=closed)
    form = study_form(rows, db_host)
    assert not form.is_valid()
    assert form.errors["client_host"] == [
        f"pgbench-host, the pgbench host, cannot reach the DB host db-closed at 127.0.0.1:{closed}: "
        f"connect: Connection refused; /dev/tcp/127.0.0.1/{closed}: Connection refused."
    ]
    assert Study.objects.count() == 0


def test_a_db_host_whose_name_does_not_resolve_there_is_refused_naming_the_resolver_s_answer(rows):
    HostFactory(name="db-nowhere", address="db.invalid")
    args = ["--builds", "pg15", "--scenarios", "tpcb", "--clients", "1", "--host", "db-nowhere"]
    with pytest.raises(CommandError) as refused:
        call_command("queue_study", *args, "--client-host", "pgbench-host", stdout=io.StringIO())
    assert "the study was not queued: client_host: pgbench-host, the pgbench host, cannot reach the DB host" in str(
        refused.value
    )
    assert "db-nowhere at db.invalid:22: db.invalid: Name or service not known" in str(refused.value)
    assert Study.objects.count() == 0


def test_a_pgbench_host_that_reaches_the_db_host_is_accepted(rows, ssh_target):
    db_host = HostFactory(name="db-ssh", address="127.0.0.1", port=ssh_target.port)
    assert study_form(rows, db_host).is_valid()


def test_the_db_host_local_is_probed_at_the_worker_s_address_as_the_pgbench_host_sees_it(rows):
    assert study_form(rows, rows["local"]).is_valid()


def test_a_pgbench_host_that_cannot_be_reached_itself_is_refused_too(rows):
    rows["pgbench"].port = free_port()
    rows["pgbench"].save()
    form = study_form(rows, rows["local"])
    assert not form.is_valid()
    assert form.errors["client_host"][0].startswith(
        "pgbench-host, the pgbench host, cannot be reached to check that it reaches the DB host: cannot connect to"
    )


def test_a_study_whose_pgbench_runs_on_its_db_host_probes_nothing(rows):
    assert study_form(rows, rows["local"], client_host=rows["local"].pk).is_valid()


def test_a_db_host_address_reaches_the_probe_as_data_never_as_shell_text(rows, ssh_target):
    marker = Path(ssh_target.work_dir, "pwned")
    hostile = HostFactory(name="db-hostile", address=f"x$(touch {marker});touch {marker}")  # stored past the admin
    form = study_form(rows, hostile)
    assert not form.is_valid()
    assert "cannot reach the DB host db-hostile" in form.errors["client_host"][0]
    assert not marker.exists()


def test_one_host_after_another_probes_the_first_host_only_as_the_next_may_be_down_until_it_is_done(rows, ssh_target):
    """A dual-boot server: while Linux runs, Windows does not answer; together, the same study is refused."""
    linux = HostFactory(name="linux", address=ssh_target.address, port=ssh_target.port)
    HostFactory(name="windows", address="127.0.0.1", port=free_port())  # down: its port closed
    changes = {"vary": "host=linux,windows"}
    in_turn = study_form(rows, linux, **changes, host_order="in_turn")
    together = study_form(rows, linux, **changes, host_order="together")
    assert in_turn.is_valid(), in_turn.errors
    assert not together.is_valid() and "cannot reach the DB host windows" in together.errors["client_host"][0]
