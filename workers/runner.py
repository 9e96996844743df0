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
5. Stop the collectors; parse pgbench's output (a failure_reason makes the trial not ok); gather the
   artifacts; checkpoint + vacuum when the scenario says.
6. Always, also after an error or a cancel: stop pgbench and the collectors, remove the trial's files
   on the targets, and stop the server, unless spec.keep_server and the trial went well and was not
   cancelled: then the next trial takes it over.

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
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from functools import partial

from workers.builds import InstalledBuild, find_client_tool, install_build
from workers.cluster import Cluster
from workers.collectors import (
    Collector,
    CollectorSet,
    PerfCollector,
    SarCollector,
    WaitEventCollector,
    missing_tool_notes,
)
from workers.facts import collect_host_facts
from workers.parallel import concurrently
from workers.pgbench import PgbenchOutputError, parse_pgbench_output, pgbench_command
from workers.spec import TrialOutcome, TrialSpec
from workers.transport import CommandResult, CommandTimeout, Transport, TransportError
from workers.transport_base import CommandStopped, Fence
from workers.trial_cluster import cluster_for, data_marker, prepare_cluster, stop_leftover_servers
from workers.work_dir import ensure_private_work_dir

logger = logging.getLogger(__name__)

PGBENCH = "pgbench"  # the background command's name on the client host
POLL_S = 1.0
PROBE_S = 5.0
PROBE_WAIT_S = 0.1
# pgbench may run this long past its duration (connections, a slow last transaction) before it is stopped.
OVERRUN_S = 120.0
STOP_GRACE_S = 5.0
SERVER_LOG_LINES = 200


class TrialCancelled(Exception):
    """should_cancel said so."""


class TrialOverran(Exception):
    """pgbench was still running long after its duration."""


def run_trial(
    spec: TrialSpec,
    db: Transport,
    client: Transport | None = None,
    *,
    should_cancel: Callable[[], bool] | None = None,
) -> TrialOutcome:
    """Run one trial; client None means pgbench runs on the DB host. Never raises for a target's failure."""
    run = TrialRun(spec, db, client or db, should_cancel or (lambda: False))
    started = time.monotonic()
    try:
        run.execute()
    except (TrialCancelled, CommandStopped) as stopped:
        run.cancelled = True
        run.outcome.error = f"cancelled during {run.step_name}"
        if isinstance(stopped, CommandStopped):
            run.outcome.notes.append(str(stopped))
    except Exception as error:  # whatever a target did, it becomes the outcome
        logger.warning("trial %s failed: %s", spec.trial_id, error, exc_info=True)
        run.outcome.ok = False
        run.outcome.error = f"{type(error).__name__}: {error}"
    finally:
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
        self.pgbench_started = False
        self.pgbench = ""
        self.step_name = "start"
        self.cancelled = False

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
        self.step("fence")
        for transport in self.transports():
            ensure_private_work_dir(transport)
        self.take_fences()
        self.step("setup")
        # Independent round trips go out together: each costs tens of ms over SSH.
        concurrently(self.kill_leftovers, self.read_facts, self.install)
        self.step("reset")
        with self.phase("reset"):
            self.cluster = prepare_cluster(self.db, self.spec, installed=self.installed)
        self.step("settings")
        concurrently(self.record_settings, self.make_trial_dirs, self.find_pgbench)
        argv = self.pgbench_argv()
        self.step("collect")
        with self.phase("collect"):
            self.collectors = CollectorSet(self.wanted_collectors())
        self.step("pgbench")
        result = self.run_pgbench(argv)
        with self.phase("collect"):
            self.collectors.stop()
            self.outcome.artifacts.update(self.collectors.artifacts())
        with self.phase("parse"):
            self.record_pgbench(result)
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
        self.pgbench = find_client_tool(self.client, "pgbench")

    def pgbench_argv(self) -> list[str]:
        spec, cluster = self.spec, self.require_cluster()
        script_path = None
        with self.phase("setup"):
            if spec.scenario.script:
                script_path = posixpath.join(self.trial_dir(self.client), "script.sql")
                self.client.put_bytes(spec.scenario.script.encode(), script_path)
        argv = pgbench_command(
            pgbench=self.pgbench,
            host=cluster.socket_dir if self.same_host else spec.db_host.address,
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
        )
        self.outcome.command = shlex.join(argv)
        return argv

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

    def run_pgbench(self, argv: list[str]) -> CommandResult:
        with self.phase("pgbench"):
            # The collectors start together with pgbench (a round trip less); at one sample per second
            # they still cover the run from its first second.
            self.pgbench_started = True  # from here on the cleanup stops it, whatever happens
            start_pgbench = partial(self.client.start_background, PGBENCH, argv, env=self.pgbench_env())
            concurrently(self.collectors.start, start_pgbench)
            started = last_probe = time.monotonic()
            while True:
                if self.should_cancel():
                    self.stop_pgbench_keeping_output()
                    raise TrialCancelled()
                elapsed = time.monotonic() - started
                if elapsed > self.spec.duration_s + OVERRUN_S:
                    self.stop_pgbench_keeping_output()
                    raise TrialOverran(f"pgbench still ran {OVERRUN_S:g}s after its duration; stopped")
                wait_s = self.poll_wait(elapsed, time.monotonic() - last_probe)
                if wait_s is None:
                    time.sleep(POLL_S)
                    continue
                last_probe = time.monotonic()
                with suppress(CommandTimeout):
                    return self.client.wait_background(PGBENCH, timeout=wait_s)

    def poll_wait(self, elapsed_s: float, since_probe_s: float) -> float | None:
        """How long to wait on the target now; None: leave it alone (sleep here, keep watching for a cancel).

        Asking the target runs processes there (ssh, sh, ps), which take CPU from the run being
        measured: while pgbench measures, only a short probe every PROBE_S catches an early failure.
        """
        if elapsed_s >= self.spec.duration_s - POLL_S:
            return 2 * POLL_S  # one wait usually sees the end: fewer round trips
        return PROBE_WAIT_S if since_probe_s >= PROBE_S else None

    def stop_pgbench_keeping_output(self) -> None:
        self.client.stop_background(PGBENCH, "INT", grace_s=STOP_GRACE_S)
        self.pgbench_started = False
        with suppress(TransportError):
            self.keep_pgbench_output(self.client.wait_background(PGBENCH, timeout=STOP_GRACE_S))

    def keep_pgbench_output(self, result: CommandResult) -> None:
        self.outcome.artifacts["pgbench_stdout"] = result.stdout
        self.outcome.artifacts["pgbench_stderr"] = result.stderr

    def record_pgbench(self, result: CommandResult) -> None:
        self.pgbench_started = False
        self.keep_pgbench_output(result)
        try:
            parsed = parse_pgbench_output(
                result.stdout.decode("utf-8", "replace"),
                result.stderr.decode("utf-8", "replace"),
                result.exit_status,
                expected_duration_s=self.spec.duration_s,
            )
        except PgbenchOutputError as error:
            self.outcome.error = f"{error} (exit status {result.exit_status})"
            return
        self.outcome.artifacts["progress"] = json.dumps(parsed.to_dict()["progress"]).encode()
        outcome = self.outcome
        outcome.tps, outcome.tps_including_connections = parsed.tps, parsed.tps_including_connections
        outcome.latency_avg_ms, outcome.latency_stddev_ms = parsed.latency_avg_ms, parsed.latency_stddev_ms
        outcome.transactions, outcome.failed_transactions = parsed.transactions, parsed.failed_transactions
        outcome.pgbench_version = parsed.pgbench_version or self.pgbench_version()
        reason = parsed.failure_reason()
        outcome.ok, outcome.error = reason is None, reason or ""
        if parsed.scaling_factor is not None and parsed.scaling_factor != self.spec.scale:
            outcome.notes.append(
                f"pgbench reports scaling factor {parsed.scaling_factor}, the study says {self.spec.scale}"
            )

    def pgbench_version(self) -> str:
        """Only asked when the output does not say (pgbench before 14 prints no banner)."""
        return _version_number(self.client.run([self.pgbench, "--version"], timeout=60).text)

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
            transport.should_stop = None  # cleanup runs to its end, a cancel or not
        with self.phase("cleanup"):
            if self.pgbench_started:
                self.attempt("stop pgbench", self.stop_pgbench_keeping_output)
            self.attempt("stop collectors", self.collectors.stop)
            self.outcome.notes.extend(self.collectors.notes)
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


def _version_number(version_line: object) -> str:
    """'pgbench (PostgreSQL) 15.14 (Debian ...)' -> '15.14'."""
    words = str(version_line or "").split()
    return next((word for word in words if word[:1].isdigit()), "")
