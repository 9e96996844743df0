"""The cluster a trial needs: where it lives on the DB host, and its data made ready as the trial's scenario says
(created, reused, restored from its snapshot, or taken over from the previous trial's running server).

The cluster itself (initdb, settings, start, stop, pgbench -i, snapshots) is workers/cluster.py.
"""

import posixpath

from workers.builds import InstalledBuild, install_build
from workers.cluster import Cluster
from workers.cpu_quota import ServerCgroup
from workers.cpu_set import chosen_cpus, cpu_list_text
from workers.paths import path_safe_name
from workers.postmaster import pg_ctl_stop
from workers.pristine import PristineData, pristine_for
from workers.spec import Prewarm, Reset, TrialSpec
from workers.transport import Transport

RESET_METHODS = ("restore", "init")
ONLINE_CPUS = "/sys/devices/system/cpu/online"


def cluster_dir(spec: TrialSpec) -> str:
    """<work_dir>/clusters/<build>-<scenario>-s<scale>-f<fillfactor>[-k1-w64...], names reduced to characters safe in
    any path; the tail names the variant's initdb options, when it has any.

    Each scenario has its own data: an update workload's writes must never change what a read-only
    workload of the same study measures. Each set of initdb options has its own cluster, and each side of a duet
    its own (an A/A duet runs one build on both sides at once).
    """
    name = "-".join(
        [path_safe_name(spec.build.name) or "build", path_safe_name(spec.scenario.slug) or "scenario"]
        + [f"s{int(spec.scale)}", f"f{int(spec.fillfactor or 100)}"]
        + ([path_safe_name(spec.initdb_options.tag)] if spec.initdb_options.tag else [])
        + ([f"duet{spec.duet_side}"] if spec.duet_side is not None else [])
    )
    return posixpath.join(spec.db_host.work_dir, "clusters", name)


def data_marker(spec: TrialSpec, version: str) -> dict:
    """What the data directory must have been built for to be reused by this trial."""
    return {
        "study_id": spec.study_id,
        "build": spec.build.name,
        "scenario": spec.scenario.slug,
        "version": version,
        "scale": spec.scale,
        "fillfactor": spec.fillfactor or 100,
    } | ({"initdb": spec.initdb_options.tag} if spec.initdb_options.tag else {})


def cluster_for(transport: Transport, spec: TrialSpec, installed: InstalledBuild) -> Cluster:
    """The trial's cluster; when pgbench runs on another host, the server also listens on the DB host's address."""
    data_dir = posixpath.join(cluster_dir(spec), "data")
    listen, clients = ["127.0.0.1"], []
    if spec.client_host.name != spec.db_host.name:
        listen += [spec.db_host.address] if spec.db_host.address else ["*"]
        # The worker itself has no address of record: then any host on the DB host's own subnets.
        clients = [spec.client_host.address or "samenet"]
    cpus = list(spec.cpu_set)
    if spec.cpus:
        online = cpu_list_text(cpus) if cpus else transport.run(["cat", ONLINE_CPUS], timeout=60).text
        cpus = chosen_cpus(spec.cpus, online)
    return Cluster(
        transport,
        installed,
        data_dir,
        listen_addresses=listen,
        client_addresses=clients,
        initdb_options=spec.initdb_options,
        cpus=cpus,
        cgroup=ServerCgroup(transport, spec.db_host.work_dir) if spec.cpu_quota else None,
    )


def prepare_cluster(
    transport: Transport,
    spec: TrialSpec,
    *,
    reset_method: str = "restore",
    installed: InstalledBuild | None = None,
) -> Cluster:
    """A running cluster with the trial's data and settings.

    1. Install the build, unless the caller passes it installed.
    2. No reset asked, and the server of this data (same study, build, scale, fillfactor per the
       marker) still runs with the same settings because the previous trial kept it up: take it over,
       stopping any other server.
    3. Otherwise stop every server earlier trials left running, then:
       a. no data for this (study, build, scale, fillfactor): a copy of the host's pristine data of this build,
          scale, fillfactor, initdb options and maintenance (workers/pristine.py), or initdb and pgbench -i, then
          kept as that pristine data; and a snapshot when the scenario resets data again later. reset_method
          "init" neither copies nor keeps pristine data, nor takes a snapshot;
       b. data there and spec.reset_data: restore the snapshot, or run pgbench -i again;
       c. write the study's settings and start.
    4. Prewarm where the plan says (spec.prewarm: every run, or the first of a round, as the scenario's rule
       says), on a server taken over too; and whenever the server started cold here while the rule prewarms
       at all: the procedure measures from a warm cache, so a restart must not leave it cold.
    """
    if reset_method not in RESET_METHODS:
        raise ValueError(f"reset_method must be one of {RESET_METHODS}, not {reset_method!r}")
    installed = installed or install_build(transport, spec.build)
    cluster = cluster_for(transport, spec, installed)
    marker, state = data_marker(spec, installed.version), cluster.data_state()
    same_data = state.marker == marker
    taken_over = same_data and not spec.reset_data and cluster.take_over(spec.pg_settings)
    if spec.duet_side is None:  # a duet round stopped the others before its sides: the partner's server stays up
        stop_leftover_servers(transport, installed, keep=cluster.data_dir if taken_over else "")
    if not taken_over:
        have_data, has_snapshot = same_data and state.has_data, state.has_snapshot
        _ready_data(cluster, spec, marker, have_data=have_data, has_snapshot=has_snapshot, reset_method=reset_method)
    if spec.prewarm or (spec.scenario.prewarm != Prewarm.NONE and not taken_over):
        cluster.prewarm()
    return cluster


def stop_leftover_servers(
    transport: Transport, installed: InstalledBuild, keep: str = "", mode: str = "fast"
) -> list[str]:
    """Stop every server still running under <work_dir>/clusters but `keep`; returns their data directories.

    One DB host runs one trial at a time, so any server there belongs to a finished, failed or
    lost trial, and would take memory and CPU from the next one.
    """
    clusters_dir = posixpath.join(transport.host.work_dir, "clusters")
    found = transport.run(
        ["find", clusters_dir, "-mindepth", "3", "-maxdepth", "3", "-name", "postmaster.pid"], check=False
    )
    stopped = []
    for pid_file in found.text.splitlines():
        data_dir = posixpath.dirname(pid_file)
        if data_dir == keep:
            continue
        # pg_ctl stop fails when nothing runs there (a stale PID file): no `status` round trip first.
        if pg_ctl_stop(transport, installed, data_dir, mode).ok:
            stopped.append(data_dir)
    return stopped


def _ready_data(
    cluster: Cluster, spec: TrialSpec, marker: dict, *, have_data: bool, has_snapshot: bool, reset_method: str
) -> None:
    """Step 3 of prepare_cluster; every server on the target is stopped when this begins. Data being made
    or reset has no marker until it is whole: a reset cut short (a cancel, a lost worker) is never taken as good."""
    # A copy of data whose WAL lives elsewhere would copy only the link to it (workers/wal_dir.py): rebuilt instead.
    restore = reset_method == "restore" and not spec.initdb_options.wal_dir
    if not have_data:
        pristine = pristine_for(cluster.transport, spec, cluster.installed) if restore else None
        _create_data(
            cluster, spec, marker, keep_snapshot=restore and spec.scenario.reset != Reset.ONCE, pristine=pristine
        )
        return
    if spec.reset_data:
        cluster.clear_marker()
    by_snapshot = spec.reset_data and restore and has_snapshot
    if by_snapshot:
        cluster.replace_data_with_snapshot()
    cluster.configure(spec.pg_settings)
    cluster.start()
    if spec.reset_data and not by_snapshot:
        _build_data(cluster, spec)
    if spec.reset_data:
        cluster.write_marker(marker)


def _create_data(
    cluster: Cluster, spec: TrialSpec, marker: dict, *, keep_snapshot: bool, pristine: PristineData | None
) -> None:
    """Data for a cluster that has none: a copy of the host's pristine data when it holds this data's; otherwise
    initdb and `pgbench -i`, kept as the pristine data for the next cluster (pristine None: neither)."""
    cluster.clear_marker()
    cluster.transport.run(["rm", "-rf", cluster.snapshot_dir])
    if pristine is not None and pristine.present():
        pristine.copy_into(cluster)
        cluster.configure(spec.pg_settings)
        if keep_snapshot:
            cluster.snapshot()  # the server is stopped: only a copy
        cluster.start()
    else:
        cluster.initdb()
        cluster.configure(spec.pg_settings)
        cluster.start()
        _build_data(cluster, spec)
        if keep_snapshot or pristine is not None:
            cluster.stop()  # the copies are taken from a checkpointed, stopped data directory
            if keep_snapshot:
                cluster.snapshot()
            if pristine is not None:
                pristine.save_from(cluster)
            cluster.start()
    cluster.write_marker(marker)


def _build_data(cluster: Cluster, spec: TrialSpec) -> None:
    """pgbench -i, then the scenario's maintenance of fresh data; a snapshot taken after this restores both."""
    cluster.pgbench_init(spec.scale, spec.fillfactor)
    if spec.scenario.reset_vacuum_full:
        cluster.rebuild_maintenance()
