"""One trial from start to finish: run_trial(spec, db, client) -> TrialOutcome.

1. Fence the hosts for this attempt (spec.fence): from here on an attempt replaced by a later one finds
   its commands refused. Stop whatever an earlier trial or attempt left running there (pgbench,
   collectors, a data load).
2. Read the hosts' facts (or take the known ones); install the build; prepare the cluster (data reset
   as the spec says, settings, start or take over the server the previous trial kept, prewarm); record SHOW ALL.
3. Upload the custom script to the pgbench host.
4. Start pgbench in the background and the collectors on the DB host, together. Check should_cancel
   every second (a cancel stops pgbench within seconds), leaving the targets alone while pgbench
   measures but for a short probe every PROBE_S, which catches a run that ended early.
   A pgbench host that stops answering meanwhile (ConnectionLost) is waited for as a host that does not
   answer (patience), and pgbench's results are fetched from it once it answers: a run that finished there is
   not lost to a late network fault.
5. Parse pgbench's output (a failure_reason makes the trial not ok); stop the collectors; gather the
   artifacts; checkpoint + vacuum when the scenario says. A host that stops answering during these steps (frozen
   after the run) is waited for the same way, and the steps taken again once it answers: the run is kept.
6. Always, also after an error or a cancel: stop pgbench and the collectors, remove the trial's files
   on the targets, and stop the server, unless spec.keep_server and the trial went well and was not
   cancelled: then the next trial takes it over. A host that lost its connection and does not answer a
   probe is left alone, so that clean-up takes seconds, not minutes: the next attempt stops what is left.

should_cancel is asked before every step, and every second inside the long ones (the data load, copies
of data, VACUUM: Transport.run_long), so a cancel stops any step within seconds. It also says True once
a later attempt took the trial over.

A failure of a target is an outcome (ok False, error set), never an exception: the study goes on.
"""

import json
import logging
import posixpath
import re
import shlex
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING

from workers.builds import InstalledBuild, build_pgbench, find_client_tool, install_build
from workers.cluster import Cluster
from workers.collectors import (
    Collector,
    CollectorSet,
    PerfCollector,
    SarCollector,
    WaitEventCollector,
    missing_tool_notes,
)
from workers.cpu_quota import CpuQuotaError
from workers.cpu_set import PGBENCH_AFFINITY_SCRIPT, CpuSetError, cpu_list_text, escaped_processes, taskset_prefix
from workers.error_kinds import failure_kind_of
from workers.facts import collect_host_facts
from workers.failure_kind import FailureKind
from workers.host_wait import HostGaveUp, HostPatience, WaitReport, answered_again, unheard
from workers.initdb_options import InitdbOptionUnknown
from workers.parallel import concurrently
from workers.pg_conf import RefusedSetting, ServerCannotStart
from workers.pgbench import pgbench_command
from workers.pgbench_run import PgbenchRun, TrialCancelled
from workers.spec import TrialOutcome, TrialSpec
from workers.table_health import TableHealth
from workers.transport import ConnectionLost, Transport, TransportError
from workers.transport_base import CommandStopped, Fence
from workers.trial_cluster import cluster_for, data_marker, prepare_cluster, stop_leftover_servers
from workers.work_dir import ensure_private_work_dir

if TYPE_CHECKING:
    from workers.duet import DuetSide

logger = logging.getLogger(__name__)

SERVER_LOG_LINES = 200
ANSWER_PROBE_S = 10.0


def run_trial(
    spec: TrialSpec,
    db: Transport,
    client: Transport | None = None,
    *,
    should_cancel: Callable[[], bool] | None = None,
    patience: HostPatience | None = None,
    on_wait: WaitReport | None = None,
    duet: "DuetSide | None" = None,
) -> TrialOutcome:
    """Run one trial; client None means pgbench runs on the DB host. Never raises for a target's failure.
    patience and on_wait: how a pgbench host that stopped answering is waited for (workers/host_wait.py).
    duet: the trial is one side of a duet round (workers/duet.py), which says when it sets up and starts pgbench."""
    run = TrialRun(spec, db, client or db, should_cancel or (lambda: False))
    run.patience, run.on_wait, run.duet = patience or HostPatience(), on_wait or unheard, duet
    started = time.monotonic()
    try:
        run.execute()
    except (TrialCancelled, CommandStopped) as stopped:
        run.cancelled = True
        run.outcome.error, run.outcome.failure_kind = f"cancelled during {run.step_name}", FailureKind.CANCELLED
        if isinstance(stopped, CommandStopped):
            run.outcome.notes.append(str(stopped))
    except Exception as error:  # whatever a target did, it becomes the outcome
        logger.warning("trial %s failed: %s", spec.trial_id, error, exc_info=True)
        run.connection_lost = isinstance(error, ConnectionLost | HostGaveUp)
        run.outcome.host_unreachable = isinstance(error, HostGaveUp)  # as when it could not be reached at all
        # another attempt would be refused the same
        repeats = RefusedSetting | ServerCannotStart | InitdbOptionUnknown | CpuSetError | CpuQuotaError
        run.outcome.deterministic = isinstance(error, repeats)
        run.outcome.ok = False
        run.outcome.error, run.outcome.failure_kind = f"{type(error).__name__}: {error}", failure_kind_of(error)
    finally:
        if duet is not None:
            duet.leave()
        run.clean_up()
        run.outcome.timings["total"] = round(time.monotonic() - started, 3)
        run.outcome.finished_at = datetime.now(UTC)
    return run.outcome


def stop_kept_server(spec: TrialSpec, db: Transport) -> bool:
    """Stop the server of spec's cluster if it holds this study's data: a trial kept it running for a
    next trial that will not come (its study was cancelled). Returns True when it holds the study's data."""
    installed = install_build(db, spec.build)
    cluster = cluster_for(db, spec, installed)
    if cluster.read_marker() != data_marker(spec, installed.version):
        return False
    cluster.stop()
    return True


class TrialRun:
    """The state of one trial while it runs; `execute` does steps 1-5, `clean_up` step 6."""

    def __init__(self, spec: TrialSpec, db: Transport, client: Transport, should_cancel: Callable[[], bool]) -> None:
        self.spec = spec
        self.db = db
        self.client = client
        self.should_cancel = should_cancel
        self.outcome = TrialOutcome(ok=False, started_at=datetime.now(UTC))
        self.cluster: Cluster | None = None
        self.installed: InstalledBuild | None = None
        self.collectors = CollectorSet([])
        self.table_health: TableHealth | None = None
        self.pgbench_run: PgbenchRun | None = None
        self.pgbench = ""
        self.step_name = "start"
        self.cancelled = False
        self.connection_lost = False
        self.patience = HostPatience()
        self.on_wait: WaitReport = unheard
        self.duet: DuetSide | None = None

    @property
    def same_host(self) -> bool:
        return self.client is self.db or self.spec.client_host == self.spec.db_host

    def trial_dir(self, transport: Transport) -> str:
        return posixpath.join(transport.host.work_dir, "trials", f"trial-{self.spec.trial_id}")

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.outcome.timings[name] = round(self.outcome.timings.get(name, 0.0) + time.monotonic() - started, 3)

    def step(self, name: str) -> None:
        """Begin a step that a cancel may stop: asked here, and inside the step's long commands."""
        self.step_name = name
        if self.should_cancel():
            raise TrialCancelled()

    # -- steps ----------------------------------------------------------------------------------
    def execute(self) -> None:
        if self.duet is not None:
            self.duet.take_turn()
        self.step("fence")
        for transport in self.transports():
            ensure_private_work_dir(transport)
        self.take_fences()
        self.step("setup")
        # Independent round trips go out together: each costs tens of ms over SSH.
        concurrently(self.kill_leftovers, self.read_facts, self.install)
        self.record_build()
        self.step("reset")
        with self.phase("reset"):
            self.cluster = prepare_cluster(self.db, self.spec, installed=self.installed)
        self.step("settings")
        concurrently(self.record_settings, self.make_trial_dirs, self.find_pgbench)
        argv = self.pgbench_argv()
        self.step("collect")
        with self.phase("collect"):
            self.collectors = CollectorSet(self.wanted_collectors())
        self.read_table_health("before")
        self.step("pgbench")
        run = self.pgbench_run = PgbenchRun(
            self.spec,
            self.client,
            self.outcome,
            should_cancel=self.should_cancel,
            patience=self.patience,
            on_wait=self.on_wait,
            while_running=self.check_server_processes,
        )
        if self.duet is not None:
            run.name, run.after_start, argv = self.duet.pgbench_name, self.duet.release, self.duet.gated(argv)
        with self.phase("pgbench"), self.cpu_quota():
            result = run.run(argv, env=self.pgbench_env(), alongside=self.collectors.start)
        if self.duet is not None:
            self.outcome.pgbench_started_at, self.outcome.pgbench_ended_at = self.duet.started_at(), datetime.now(UTC)
        with self.phase("parse"):
            self.riding_out(self.client, partial(run.record, result, self.pgbench))
        with self.duet.turn() if self.duet is not None else nullcontext():  # its long commands' names are the other's
            self.riding_out(self.db, self.after_the_run)

    def riding_out(self, transport: Transport, step: Callable[[], object]) -> None:
        """A step once pgbench ended: a host that stops answering now (a freeze) costs no finished run, the step is
        taken again once the host answers, within its patience."""
        patience, on_wait, should_stop = self.patience, self.on_wait, self.should_cancel
        _, lost = answered_again(step, transport, patience, on_wait=on_wait, should_stop=should_stop)
        if lost:
            self.outcome.notes.append(
                f"{transport.host.name} stopped answering after the run ({lost}); the run was kept"
            )

    def after_the_run(self) -> None:
        """Step 5 on the DB host; taken again whole after a freeze (a collector that stopped is not stopped again)."""
        with self.phase("collect"):
            self.collectors.stop()
            self.outcome.artifacts.update(self.collectors.artifacts())
        self.read_table_health("after")
        self.finish_data()

    def take_fences(self) -> None:
        """Fence each host for this attempt, then let its long commands ask should_cancel (run_long)."""
        for transport in self.transports():
            if self.spec.fence:
                transport.take_fence(Fence(self.fence_path(transport), self.spec.fence))
            transport.should_stop = self.should_cancel

    def fence_path(self, transport: Transport) -> str:
        """One fence per DB host, also on a pgbench host that serves several DB hosts."""
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", self.spec.db_host.name).strip("-.") or "host"
        return posixpath.join(transport.host.work_dir, "fences", name)

    def kill_leftovers(self) -> None:
        if self.duet is not None:  # the round stopped them before its sides: the partner's pgbench may wait already
            return
        with self.phase("leftovers"):
            for transport in self.transports():
                stopped = transport.kill_leftovers()
                if stopped:
                    self.outcome.notes.append(f"stopped leftovers on {transport.host.name}: {', '.join(stopped)}")

    def transports(self) -> list[Transport]:
        return [self.db] if self.same_host else [self.db, self.client]

    def read_facts(self) -> None:
        if self.spec.known_facts and not self.spec.collect_facts:
            self.outcome.host_facts = dict(self.spec.known_facts)
            return
        with self.phase("facts"):
            self.outcome.host_facts = collect_host_facts(self.db, self.spec.db_host.work_dir)
            if not self.same_host:
                self.outcome.host_facts["client_host"] = collect_host_facts(self.client, self.spec.client_host.work_dir)

    def record_build(self) -> None:
        """The build's configure options, and whether perf can name its functions, join the host's facts: the trial's
        environment fingerprint."""
        self.outcome.host_facts["configure"] = self.built().configure
        self.outcome.host_facts["symbols"] = self.built().symbols

    def built(self) -> InstalledBuild:
        if self.installed is None:
            raise RuntimeError("the build is not installed")
        return self.installed

    def install(self) -> None:
        with self.phase("install"):
            self.installed = install_build(self.db, self.spec.build)
            self.outcome.server_version = self.installed.version

    def record_settings(self) -> None:
        with self.phase("settings"):
            self.outcome.server_settings = self.require_cluster().show_all()
            self.outcome.artifacts["settings"] = json.dumps(self.outcome.server_settings, indent=1).encode()

    def make_trial_dirs(self) -> None:
        with self.phase("setup"):
            for transport in self.transports():
                # sadc appends to an existing file: an earlier attempt's data must not mix in.
                transport.run(["sh", "-c", 'rm -rf -- "$1" && mkdir -p -- "$1"', "sh", self.trial_dir(transport)])

    def find_pgbench(self) -> None:
        """The study's build's own pgbench, installed on the pgbench host, when it names one; else on the DB host the
        DB build's own where it ships one (an installed build), else the host's."""
        if self.spec.pgbench_build is not None:
            self.pgbench = build_pgbench(self.client, self.spec.pgbench_build)
            return
        self.pgbench = find_client_tool(self.client, "pgbench", self.built() if self.same_host else None)

    def pgbench_argv(self) -> list[str]:
        spec, cluster = self.spec, self.require_cluster()
        script_path = None
        with self.phase("setup"):
            if spec.scenario.script:
                script_path = posixpath.join(self.trial_dir(self.client), "script.sql")
                self.client.put_bytes(spec.scenario.script.encode(), script_path)
        argv = pgbench_command(
            pgbench=self.pgbench,
            host=cluster.socket_dir if self.same_host else spec.db_host.address or self.client.worker_address(),
            port=int(cluster.port or 0),
            user=cluster.user,
            dbname=cluster.dbname,
            builtin=spec.scenario.builtin,
            script_path=script_path,
            clients=spec.clients,
            threads=spec.threads,
            duration_s=spec.duration_s,
            scale=spec.scale,
            protocol=spec.scenario.protocol,
            transactions=spec.transactions,
            connect_each_transaction=spec.connect_each_transaction,
            vacuum=spec.pgbench_vacuum,
        )
        if self.duet is not None:  # each side's pgbench in its half too
            argv = [*taskset_prefix(cluster.cpus), *argv]
        self.outcome.command = shlex.join(argv)
        return argv

    @contextmanager
    def cpu_quota(self) -> Iterator[None]:
        """A calibration's trial: the spec's quota on the server's cgroup during pgbench alone (reset, prewarm and
        the next trial's start run unthrottled), and the CPU the server used meanwhile."""
        quota = self.spec.cpu_quota
        cgroup = self.require_cluster().cgroup
        if quota is None or cgroup is None:
            yield
            return
        self.require_cluster().check_cgroup()
        cgroup.set_quota(quota.quota_us)
        try:
            used_before, uptime_before = cgroup.usage()
            yield
            used_after, uptime_after = cgroup.usage()
        finally:
            cgroup.set_quota(None)
        self.outcome.server_cpu_s = round(used_after - used_before, 3)
        # Over pgbench's -T, not the time between the two reads, which adds their round trips: on a 2 s run that
        # understated the cores by a third, and every quota set from it slowed far more than its size.
        run_s = (
            uptime_after - uptime_before
            if self.spec.transactions
            else min(self.spec.duration_s, uptime_after - uptime_before)
        )
        self.outcome.server_cores = round(self.outcome.server_cpu_s / max(run_s, 0.01), 4)
        self.outcome.notes.append(f"cgroup {cgroup.dirs.quota_dir}: quota {quota.quota_us or 'none'} us a 100 ms")

    def check_server_processes(self) -> None:
        """While pgbench runs: the CPU set and the cgroup still hold every server process."""
        self.check_cpu_set()
        self.require_cluster().check_cgroup()

    def check_cpu_set(self) -> None:
        """While pgbench runs: every server process, its backends included, inside the variant's CPU set."""
        cluster = self.require_cluster()
        inside = cluster.check_cpu_set()
        if inside:
            cpus = cpu_list_text(cluster.cpus)
            self.outcome.notes.append(f"CPU set {cpus}: {len(inside)} server processes inside it during the run")
        if self.duet is not None:
            self.check_pgbench_cpu_set(cluster.cpus)

    def check_pgbench_cpu_set(self, cpus: list[int]) -> None:
        """A duet side's pgbench processes, inside the side's half as its server's are."""
        assert self.pgbench_run is not None
        group = self.client.background_group(self.pgbench_run.name)
        lines = self.client.run(["sh", "-c", PGBENCH_AFFINITY_SCRIPT, "sh", group], timeout=60).text
        escaped = escaped_processes(lines, cpus)
        if escaped or not lines.strip():
            found = ", ".join(escaped) or "no pgbench process found"
            raise CpuSetError(f"pgbench is not inside CPUs {cpu_list_text(cpus)}: {found}")
        self.outcome.notes.append(f"CPU set {cpu_list_text(cpus)}: pgbench inside it during the run")

    def pgbench_env(self) -> dict[str, str]:
        """pgbench on the DB host uses the private socket (peer); on another host it connects over TCP and
        gives the cluster's password from a 0600 file in its trial dir, named by PGPASSFILE, never on argv."""
        if self.same_host:
            return {}
        passfile = posixpath.join(self.trial_dir(self.client), "pgpass")
        self.client.put_bytes(self.require_cluster().passfile_text().encode(), passfile, mode=0o600)
        return {"PGPASSFILE": passfile}

    def require_cluster(self) -> Cluster:
        if self.cluster is None:
            raise RuntimeError("the cluster is not prepared")
        return self.cluster

    def wanted_collectors(self) -> list[Collector]:
        """perf only in a profiling run, sar and wait events only in a measured one."""
        spec, cluster, trial_dir = self.spec, self.require_cluster(), self.trial_dir(self.db)
        tools = {"sar": spec.collect_sar and not spec.profile_only, "perf": spec.profile_only}
        missing = missing_tool_notes(self.outcome.host_facts, tools)
        self.outcome.notes.extend(missing.values())
        chosen: list[Collector] = []
        if tools["sar"] and "sar" not in missing:
            chosen.append(SarCollector(self.db, trial_dir))
        if spec.collect_wait_events and not spec.profile_only:
            psql = find_client_tool(self.db, "psql", cluster.installed)
            connection = ["-h", cluster.socket_dir, "-p", str(cluster.port), "-U", cluster.user, "-d", cluster.dbname]
            chosen.append(WaitEventCollector(self.db, trial_dir, psql, connection))
        if tools["perf"] and "perf" not in missing:
            perf = str(self.outcome.host_facts.get("perf_path") or "perf")
            duration = spec.duration_s
            chosen.append(PerfCollector(self.db, trial_dir, perf=perf, data_dir=cluster.data_dir, duration_s=duration))
        return chosen

    def read_table_health(self, moment: str) -> None:
        """Sizes, dead tuples and HOT updates of the pgbench tables, in a measured run only."""
        if self.spec.profile_only:
            return
        self.step("table_health")
        with self.phase("table_health"):
            if self.table_health is None:
                self.table_health = TableHealth(self.require_cluster())
            self.table_health.read(moment)
            if moment == "after":
                self.outcome.artifacts.update(self.table_health.artifact())

    def finish_data(self) -> None:
        cluster = self.require_cluster()
        with self.phase("server_log"):
            self.outcome.artifacts["server_log"] = cluster.server_log_tail(SERVER_LOG_LINES)
        if self.spec.scenario.checkpoint_vacuum and cluster.is_running():
            self.step("checkpoint_vacuum")
            with self.phase("checkpoint_vacuum"):
                cluster.checkpoint_vacuum()

    # -- step 6 ---------------------------------------------------------------------------------
    def clean_up(self) -> None:
        """Best effort on every part, so that one failing part does not leave the others running. After a
        cancel the server stops at once (immediate): its data is of no use, and the cancel must be quick."""
        for transport in self.transports():
            if self.duet is None:  # a duet's transport asks its round, which ends after both sides
                transport.should_stop = None  # cleanup runs to its end, a cancel or not
        if self.connection_lost and not all(self.answers(transport) for transport in self.transports()):
            self.outcome.notes.append(
                "cleanup: a host does not answer; the next attempt stops what this one left there"
            )
            return
        with self.phase("cleanup"):
            if self.pgbench_run is not None and self.pgbench_run.started:
                self.attempt("stop pgbench", self.pgbench_run.stop_keeping_output)
            self.attempt("stop collectors", self.collectors.stop)
            self.outcome.notes.extend(self.collectors.notes)
            if self.table_health is not None:
                self.outcome.notes.extend(self.table_health.notes)
            parts = [
                partial(self.attempt, "remove trial files", partial(self.remove_trial_dir, transport))
                for transport in self.transports()
            ]
            cluster, mode = self.cluster, "immediate" if self.cancelled else "fast"
            if cluster is not None:
                if "server_log" not in self.outcome.artifacts:
                    self.attempt("read the server log", partial(self.keep_server_log, cluster))
                if self.keeps_server():
                    self.outcome.notes.append("server left running for the next trial")
                else:
                    parts.append(partial(self.attempt, "stop the server", partial(cluster.stop, mode)))
            elif self.installed is not None:
                # The cluster was being made when the trial stopped: stop whatever server it had started.
                stop_servers = partial(stop_leftover_servers, self.db, self.installed, mode=mode)
                parts.append(partial(self.attempt, "stop the servers", stop_servers))
            concurrently(*parts)

    def answers(self, transport: Transport) -> bool:
        """One short probe: a host that lost its connection and stays silent is not worth minutes of clean-up."""
        try:
            transport.run(["true"], timeout=ANSWER_PROBE_S)
        except TransportError:
            return False
        return True

    def keeps_server(self) -> bool:
        """Only a trial that went well hands its server on; a failure, an error or a cancel stops it."""
        if not (self.spec.keep_server and self.outcome.ok):
            return False
        try:
            return not self.should_cancel()
        except Exception:  # cannot tell: the safe side is a stopped server
            return False

    def remove_trial_dir(self, transport: Transport) -> None:
        transport.run(["rm", "-rf", "--", self.trial_dir(transport)], timeout=120)

    def keep_server_log(self, cluster: Cluster) -> None:
        self.outcome.artifacts["server_log"] = cluster.server_log_tail(SERVER_LOG_LINES)

    def attempt(self, what: str, action: Callable[[], object]) -> None:
        try:
            action()
        except Exception as error:  # cleanup goes on whatever one part did
            self.outcome.notes.append(f"cleanup: could not {what}: {type(error).__name__}: {error}")
