"""`manage.py settings_catalog`: reads pg_settings from a throwaway cluster of a build and writes its catalog."""

import json
from pathlib import Path
from unittest.mock import patch

import pytest
from django.core.management import CommandError, call_command

from benchdash.inventory import host_facts
from tests.queue.support import own_work_dir, register_build, register_host
from workers.host_lock import host_lock
from workers.settings_catalog import load_catalog
from workers.transport import connect

pytestmark = pytest.mark.django_db


def test_it_writes_what_the_repository_holds_for_that_major(local_target, installed_build, tmp_path):
    host = register_host(local_target)
    build = register_build(installed_build)
    call_command("settings_catalog", build.major, "--output-dir", str(tmp_path))
    written = json.loads((tmp_path / f"{build.major}.json").read_text(encoding="utf-8"))
    committed = load_catalog(int(build.major))
    rows = {row["name"]: row for row in written["settings"]}
    assert written["major"] == int(build.major) and written["version"] == build.version
    assert set(rows) == {info.name for info in committed.settings.values()}
    assert (rows["shared_buffers"]["unit"], rows["shared_buffers"]["min"]) == ("8kB", "16")
    assert "remote_apply" in rows["synchronous_commit"]["enumvals"]
    assert list(Path(own_work_dir(host)).glob("settings-catalog-*")) == [], "the throwaway cluster is gone"


def test_it_refuses_a_build_it_does_not_know(local_target):
    register_host(local_target)
    with pytest.raises(CommandError, match="no registered build named or of major '8.4'"):
        call_command("settings_catalog", "8.4")


def test_it_never_starts_its_cluster_beside_another_installation_s_trial(local_target, installed_build, tmp_path):
    """The throwaway cluster would load the host under the other installation's run: the command waits for the
    host-wide lock (workers/host_lock.py), then refuses, nothing run there."""
    host = register_host(local_target)
    build = register_build(installed_build)
    staging = "6f1d3a52-0000-4000-8000-000000000001"  # another installation sharing the host
    with (
        patch.object(host_facts, "COMMAND_LOCK_WAIT_S", 0),
        connect(host.whole_spec().for_installation(staging)) as other,
        host_lock(other),
        pytest.raises(CommandError) as refused,
    ):
        call_command("settings_catalog", build.major, "--output-dir", str(tmp_path))
    assert str(refused.value) == (
        f"host local is busy with another benchdash installation ({staging}): nothing was run there; "
        "run this again once it is free"
    )
    assert list(tmp_path.iterdir()) == [] and list(Path(own_work_dir(host)).glob("settings-catalog-*")) == []
