"""LocalTransport: the worker's own machine, as the unprivileged run user when the worker is root."""

import os
import pwd

import pytest

from tests.sshd import run_user_account
from workers.transport import CommandTimeout, LocalTransport

RUN_USER = run_user_account().pw_name


def test_it_connects_locally_for_the_host_named_local(local_transport):
    assert isinstance(local_transport, LocalTransport)


def test_it_runs_commands_as_the_unprivileged_user(local_transport):
    assert local_transport.run(["id", "-un"]).text == f"{RUN_USER}\n"


def test_its_commands_get_the_run_user_s_environment_and_none_of_the_worker_s(local_transport, monkeypatch):
    """A server on local runs what a study's custom script asks (COPY ... TO PROGRAM): its environment must hold
    nothing of the worker's, whose store and broker URLs carry their passwords."""
    if not local_transport.run_as:
        pytest.skip("the worker's own account runs local's commands: nothing to keep apart")
    monkeypatch.setenv("DATABASE_URL", "postgres://benchdash:store-password@127.0.0.1:5432/benchdash")
    monkeypatch.setenv("SECRET_KEY", "the-app-s-secret-key")
    environment = dict(line.split("=", 1) for line in local_transport.run(["env"]).text.splitlines())
    assert "store-password" not in str(environment) and "SECRET_KEY" not in environment
    assert (environment["USER"], environment["HOME"]) == (RUN_USER, pwd.getpwnam(RUN_USER).pw_dir)
    assert "/usr/bin" in environment["PATH"].split(":")


def test_files_it_writes_belong_to_the_run_user(local_transport, local_target):
    path = f'{local_target.work_dir}/nested/it\'s "here".txt'
    local_transport.put_bytes(b"data", path)
    assert pwd.getpwuid(os.stat(path).st_uid).pw_name == RUN_USER
    assert local_transport.get_bytes(path) == b"data"


def test_it_passes_hostile_arguments_as_data_and_runs_nothing(local_transport, local_target):
    marker = f"{local_target.work_dir}/pwned"
    hostile = [f"; touch {marker}", f"$(touch {marker})", f"`touch {marker}`", f"x\ntouch {marker}"]
    assert local_transport.run(["printf", "%s|", *hostile]).text == "|".join(hostile) + "|"
    assert not os.path.exists(marker)


def test_it_stops_a_command_over_its_timeout(local_transport):
    with pytest.raises(CommandTimeout):
        local_transport.run(["sleep", "30"], timeout=1)


def test_it_reports_a_missing_file_as_absent(local_transport, local_target):
    assert local_transport.exists(f"{local_target.work_dir}/missing") is False
