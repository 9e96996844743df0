"""A DB host's pristine data (workers/pristine.py): made once by initdb and pgbench -i, copied into every new
cluster of the same build, scale, fillfactor, initdb options and maintenance, on real clusters of the local target."""

import json
import posixpath
import time
from dataclasses import replace

from tests.engine.test_cluster import LOGGED, count_accounts, statements, trial
from workers.builds import install_build
from workers.initdb_options import InitdbOptions
from workers.pristine import KEY_FILE, pristine_for
from workers.trial_cluster import prepare_cluster
from workers.work_dir_cleanup import pristine_on_host, remove_pristine, work_dir_usage


def loads(cluster) -> int:  # noqa: ANN001
    """How many times pgbench -i filled pgbench_accounts on this cluster's server, by its log."""
    return sum(statement.startswith("copy pgbench_accounts") for statement in statements(cluster))


def test_a_new_cluster_of_the_same_data_is_a_copy_of_the_pristine_data_not_a_new_load(
    local_target, local_transport, installed_build, running_clusters
):
    first_spec = replace(trial(local_target, installed_build, reset="once"), pg_settings=LOGGED)
    first = prepare_cluster(local_transport, first_spec)
    running_clusters.append(first)
    first.psql("UPDATE pgbench_accounts SET abalance = 7 WHERE aid <= 10;")
    pristine = pristine_for(local_transport, first_spec, first.installed)
    assert pristine.present() and loads(first) == 1
    made_at = local_transport.run(["stat", "-c", "%Y", posixpath.join(pristine.path, KEY_FILE)]).text.strip()

    time.sleep(1.1)  # the key file's time (seconds) is the entry's last use
    # Another study, another scenario: the same build, scale and fillfactor.
    other_spec = replace(first_spec, study_id=8, scenario=replace(first_spec.scenario, slug="read-only"))
    other = prepare_cluster(local_transport, other_spec)
    running_clusters.append(other)

    assert other.cluster_dir != first.cluster_dir
    assert loads(other) == 0  # no pgbench -i on the new cluster's server
    assert count_accounts(other) == 100000
    assert other.psql("SELECT count(*) FROM pgbench_accounts WHERE abalance <> 0;").strip() == "0"
    assert other.show_all()["shared_buffers"] == "64MB"
    used_at = local_transport.run(["stat", "-c", "%Y", posixpath.join(pristine.path, KEY_FILE)]).text.strip()
    assert int(used_at) > int(made_at)
    [entry] = pristine_on_host(local_transport)
    assert (entry.path, entry.whole, entry.idle_s < 5) == (pristine.path, True, True)
    assert entry.size_bytes > 10 * 2**20 and work_dir_usage(local_transport)["pristine"] >= entry.size_bytes


def test_other_data_has_pristine_data_of_its_own(local_target, local_transport, installed_build):
    installed = install_build(local_transport, installed_build)
    spec = trial(local_target, installed_build, reset="once")
    same = pristine_for(
        local_transport, replace(spec, study_id=9, scenario=replace(spec.scenario, slug="x")), installed
    )
    others = [
        replace(spec, scale=2),
        replace(spec, fillfactor=90),
        replace(spec, initdb_options=InitdbOptions(data_checksums=True)),
        replace(spec, scenario=replace(spec.scenario, reset_vacuum_full=True)),
        replace(spec, pg_settings={**spec.pg_settings, "default_toast_compression": "lz4"}),
        replace(spec, build=replace(installed_build, name="twin")),
    ]
    paths = {pristine_for(local_transport, other, installed).path for other in others}
    assert same.path == pristine_for(local_transport, spec, installed).path
    assert len(paths) == len(others) and same.path not in paths


def test_a_reset_by_pgbench_i_neither_copies_nor_keeps_pristine_data(
    local_target, local_transport, installed_build, running_clusters
):
    cluster = prepare_cluster(local_transport, trial(local_target, installed_build, reset="once"), reset_method="init")
    running_clusters.append(cluster)
    assert pristine_on_host(local_transport) == []


def test_a_copy_cut_short_is_not_taken_and_the_next_cluster_makes_the_data_again(
    local_target, local_transport, installed_build, running_clusters
):
    spec = replace(trial(local_target, installed_build, reset="once"), pg_settings=LOGGED)
    installed = install_build(local_transport, installed_build)
    pristine = pristine_for(local_transport, spec, installed)
    # What a worker killed while keeping the data leaves: the entry's part, data and no key.
    local_transport.run(["mkdir", "-p", posixpath.join(f"{pristine.path}.part-dead", "data")])
    local_transport.run(["mkdir", "-p", posixpath.join(pristine.path, "data")])
    cluster = prepare_cluster(local_transport, spec)
    running_clusters.append(cluster)

    assert loads(cluster) == 1 and count_accounts(cluster) == 100000
    assert json.loads(local_transport.get_bytes(posixpath.join(pristine.path, KEY_FILE))) == pristine.key
    entries = {entry.path: entry.whole for entry in pristine_on_host(local_transport)}
    assert entries == {pristine.path: True, f"{pristine.path}.part-dead": False}
    assert remove_pristine(local_transport, [e for e in pristine_on_host(local_transport) if not e.whole]) == [
        f"{pristine.path}.part-dead"
    ]
    assert [entry.path for entry in pristine_on_host(local_transport)] == [pristine.path]
