"""pgbench in the background on the pgbench host, watched until it ends (steps 4 and 5 of workers/runner.py).

A cancel stops it within a second and a run far past its duration is stopped, both keeping what it printed; a
pgbench host that stops answering meanwhile (ConnectionLost) is waited for as a host that does not answer, and the
run's results are fetched from it once it answers: a run that finished there is not lost to a late network fault.
What pgbench printed, and what it says (TPS, latency, failures), goes onto the trial's outcome.
"""

import json
import time
from collections.abc import Callable, Mapping
from contextlib import suppress
from functools import partial

from workers.failure_kind import FailureKind
from workers.host_wait import HostPatience, WaitReport, answered_again
from workers.parallel import concurrently
from workers.pgbench import PgbenchOutputError, parse_pgbench_output
from workers.repeating_failure import REPEATS, SCRIPT_CAUSES, repeating_cause
from workers.spec import TrialOutcome, TrialSpec
from workers.transport import CommandResult, CommandTimeout, Transport, TransportError

PGBENCH = "pgbench"  # the background command's name on the pgbench host
POLL_S = 1.0
PROBE_S = 5.0
PROBE_WAIT_S = 0.1
# pgbench may run this long past its duration (connections, a slow last transaction) before it is stopped.
OVERRUN_S = 120.0
WHILE_RUNNING_AFTER_S = 0.3
STOP_GRACE_S = 5.0


class TrialCancelled(Exception):
    """should_cancel said so."""


class TrialOverran(Exception):
    """pgbench was still running long after its duration."""


class PgbenchRun:
    def __init__(
        self,
        spec: TrialSpec,
        client: Transport,
        outcome: TrialOutcome,
        *,
        should_cancel: Callable[[], bool],
        patience: HostPatience,
        on_wait: WaitReport,
        while_running: Callable[[], object] = lambda: None,
    ) -> None:
        self.spec = spec
        self.client = client
        self.outcome = outcome
        self.should_cancel = should_cancel
        self.patience = patience
        self.on_wait = on_wait
        # Called once, WHILE_RUNNING_AFTER_S into the run, once its clients have connected (the CPU set check).
        self.while_running: Callable[[], object] | None = while_running
        self.started = False  # from its start on, the runner's clean-up stops it, whatever happens
        # Its background command's name, and what runs once it started, before it is watched (a duet side's gate).
        self.name = PGBENCH
        self.after_start: Callable[[], object] = lambda: None

    def run(self, argv: list[str], *, env: Mapping[str, str], alongside: Callable[[], object]) -> CommandResult:
        """Start pgbench and `alongside` (the collectors) together, a round trip less; at one sample per second they
        still cover the run from its first second. Returns once pgbench ended."""
        self.started = True
        concurrently(alongside, partial(self.client.start_background, self.name, argv, env=env))
        self.after_start()
        started = last_probe = time.monotonic()
        while True:
            if self.should_cancel():
                self.stop_keeping_output()
                raise TrialCancelled()
            check = self.while_running
            if check is not None:
                time.sleep(max(0.0, WHILE_RUNNING_AFTER_S - (time.monotonic() - started)))
                self.while_running = None
                check()
            elapsed = time.monotonic() - started
            if elapsed > self.spec.duration_s + OVERRUN_S:
                self.stop_keeping_output()
                raise TrialOverran(f"pgbench still ran {OVERRUN_S:g}s after its duration; stopped")
            wait_s = poll_wait(self.expected_duration_s or 0, elapsed, time.monotonic() - last_probe)
            if wait_s is None:
                time.sleep(POLL_S)
                continue
            last_probe = time.monotonic()
            with suppress(CommandTimeout):
                return self.wait(wait_s)

    @property
    def expected_duration_s(self) -> int | None:
        """How long the run should take: its -T, or unknown with -t (duration_s then only bounds it)."""
        return None if self.spec.transactions else self.spec.duration_s

    def wait(self, wait_s: float) -> CommandResult:
        """client.wait_background, riding out a pgbench host that stops answering: pgbench goes on there, and its
        output waits in its run dir until the host answers again (within the host's patience)."""
        fetch = partial(self.client.wait_background, self.name, timeout=wait_s)
        result, lost = answered_again(
            fetch, self.client, self.patience, on_wait=self.on_wait, should_stop=self.should_cancel
        )
        if lost:
            self.outcome.notes.append(
                f"{self.client.host.name} stopped answering during the run ({lost}); "
                "its results were fetched once it answered again"
            )
        return result

    def stop_keeping_output(self) -> None:
        self.client.stop_background(self.name, "INT", grace_s=STOP_GRACE_S)
        self.started = False
        with suppress(TransportError):
            self.keep_output(self.client.wait_background(self.name, timeout=STOP_GRACE_S))

    def keep_output(self, result: CommandResult) -> None:
        self.outcome.artifacts["pgbench_stdout"] = result.stdout
        self.outcome.artifacts["pgbench_stderr"] = result.stderr

    def record(self, result: CommandResult, pgbench: str) -> None:
        """What pgbench printed, and what it says, onto the outcome; pgbench is its path (for its version). A
        script pgbench cannot read or run fails the trial for good (workers/repeating_failure.py)."""
        self.started = False
        self.keep_output(result)
        self.read_result(result, pgbench)
        cause = repeating_cause(result.stderr.decode("utf-8", "replace"), SCRIPT_CAUSES)
        if not self.outcome.ok and cause is not None:
            self.outcome.deterministic, self.outcome.error = True, f"{self.outcome.error} ({REPEATS}): {cause}"
            self.outcome.failure_kind = FailureKind.CAUSE_REPEATS

    def read_result(self, result: CommandResult, pgbench: str) -> None:
        try:
            parsed = parse_pgbench_output(
                result.stdout.decode("utf-8", "replace"),
                result.stderr.decode("utf-8", "replace"),
                result.exit_status,
                expected_duration_s=self.expected_duration_s,
            )
        except PgbenchOutputError as error:
            self.outcome.error = f"{error} (exit status {result.exit_status})"
            self.outcome.failure_kind = FailureKind.PGBENCH_FAILED
            return
        self.outcome.artifacts["progress"] = json.dumps(parsed.to_dict()["progress"]).encode()
        outcome = self.outcome
        outcome.tps, outcome.tps_including_connections = parsed.tps, parsed.tps_including_connections
        outcome.latency_avg_ms, outcome.latency_stddev_ms = parsed.latency_avg_ms, parsed.latency_stddev_ms
        outcome.transactions, outcome.failed_transactions = parsed.transactions, parsed.failed_transactions
        outcome.pgbench_version = parsed.pgbench_version or self.version(pgbench)
        reason = parsed.failure_reason()
        outcome.ok, outcome.error = reason is None, reason or ""
        outcome.failure_kind = None if reason is None else FailureKind.PGBENCH_FAILED
        if parsed.scaling_factor is not None and parsed.scaling_factor != self.spec.scale:
            outcome.notes.append(
                f"pgbench reports scaling factor {parsed.scaling_factor}, the study says {self.spec.scale}"
            )

    def version(self, pgbench: str) -> str:
        """Only asked when the output does not say (pgbench before 14 prints no banner)."""
        return _version_number(self.client.run([pgbench, "--version"], timeout=60).text)


def poll_wait(duration_s: float, elapsed_s: float, since_probe_s: float) -> float | None:
    """How long to wait on the target now; None: leave it alone (sleep here, keep watching for a cancel).

    Asking the target runs processes there (ssh, sh, ps), which take CPU from the run being measured: while
    pgbench measures, only a short probe every PROBE_S catches an early failure.
    """
    if elapsed_s >= duration_s - POLL_S:
        return 2 * POLL_S  # one wait usually sees the end: fewer round trips
    return PROBE_WAIT_S if since_probe_s >= PROBE_S else None


def _version_number(version_line: object) -> str:
    """'pgbench (PostgreSQL) 15.14 (Debian ...)' -> '15.14'."""
    words = str(version_line or "").split()
    return next((word for word in words if word[:1].isdigit()), "")
