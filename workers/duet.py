"""A duet round: both sides of a comparison at the same moment on one DB host, each in its own half of the CPUs.

run_duet(specs, db) -> (leader's outcome, partner's outcome):
1. The halves: the host's NUMA nodes when it has two or more (the first half of the nodes, and the rest), else its
   online CPUs split in two, core by core: a core's hyperthreads (its thread siblings) go to the same half, so that
   the sides share no core (a Linux host numbers siblings apart: on 8 cores of 2 threads, CPUs 0 and 8 are one core).
   Only an odd number of cores splits the middle one, one thread to each half.
2. Once for both sides: stop what earlier trials left running (background commands, servers), and open no gate.
3. Each side runs as a trial (runner.run_trial) in a thread of its own: its own cluster directory and port, its server
   started under `taskset` of its half (spec.duet_half, drawn by the plan), its pgbench too. The sides set up one
   after the other (two data loads or pristine copies at once would race), each starting its pgbench held at a gate
   (it waits for a file), then waits for the other at a barrier; once both wait, the gate file is made and both
   pgbench runs start within a few milliseconds, for the same duration.
4. While they run, every server process and each pgbench process is checked inside its half (as cpu_set does).
   Memory: each server is sized for half the host: the design's settings were checked against half its memory
   (duet_design.half_the_memory), and effective_cache_size is half its MemTotal unless the study sets it.
5. A side that fails fails the round: the other side's outcome fails with it (nothing half-recorded), so the store
   retries or fails the round as a whole. A cancel (should_cancel) stops both.
Collectors stay off in a duet (both sides share the host's sar and perf); the servers are never kept between rounds.
"""

import posixpath
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial

from workers.builds import install_build
from workers.cpu_set import cpu_list_text, parse_cpu_list
from workers.failure_kind import FailureKind
from workers.host_wait import HostPatience, WaitReport
from workers.parallel import concurrently
from workers.runner import run_trial
from workers.spec import TrialOutcome, TrialSpec
from workers.transport import Transport
from workers.trial_cluster import ONLINE_CPUS, stop_leftover_servers

NUMA_NODES = "/sys/devices/system/node"
CPUS = "/sys/devices/system/cpu"
# The NUMA nodes' CPU lists, one a line; each online CPU's thread siblings ("core ..."); the online CPUs ("online ...").
HALVES_SCRIPT = f"""cat {NUMA_NODES}/node[0-9]*/cpulist 2>/dev/null
for siblings in {CPUS}/cpu[0-9]*/topology/thread_siblings_list; do
  [ -r "$siblings" ] && echo "core $(cat "$siblings")"
done
echo "online $(cat {ONLINE_CPUS})"
"""
SIDES = 2
# How long a side that is ready waits for the other: its setup (a data load of a large scale) may take long.
BARRIER_S = 3600.0
GATE_POLL_S = "0.005"
# $1 the gate file, $2 the stamp file, then the command: wait for the gate, write the time, become the command.
GATE_SCRIPT = rf"""
gate=$1 stamp=$2
shift 2
while [ ! -e "$gate" ]; do sleep {GATE_POLL_S}; done
date +%s.%N > "$stamp"
exec "$@"
"""


def half_memory_kb(transport: Transport) -> int | None:
    """Half the host's memory (MemTotal), in kB: what each side's server may take for its cache."""
    meminfo = transport.run(["cat", "/proc/meminfo"], timeout=60).text
    total = next((line.split()[1] for line in meminfo.splitlines() if line.startswith("MemTotal:")), "")
    return int(total) // SIDES if total.isdigit() else None


def cpu_halves(transport: Transport) -> tuple[list[int], list[int]]:
    """Step 1: the host's two halves of CPUs, its NUMA nodes' where it has two or more, else whole cores to each."""
    lines = transport.run(["sh", "-c", HALVES_SCRIPT], timeout=60).text.splitlines()
    online = parse_cpu_list(lines.pop().removeprefix("online "))
    cores = [parse_cpu_list(line.removeprefix("core ")) for line in lines if line.startswith("core ")]
    node_cpus = [parse_cpu_list(line) for line in lines if line.strip() and not line.startswith("core ")]
    return halves_of(node_cpus, online, cores)


def halves_of(
    node_cpus: list[list[int]], online: list[int], cores: list[list[int]] | None = None
) -> tuple[list[int], list[int]]:
    """Two or more NUMA nodes: the first half of the nodes, and the rest; else the online CPUs in two, cores (each a
    CPU's thread siblings; a CPU of no core counts as one) whole to each half but for an odd number's middle one."""
    if len(node_cpus) >= SIDES:
        middle = len(node_cpus) // SIDES
        return sorted(sum(node_cpus[:middle], [])), sorted(sum(node_cpus[middle:], []))
    core_of = {cpu: min(core) for core in cores or [] for cpu in core}
    by_core = sorted(online, key=lambda cpu: (core_of.get(cpu, cpu), cpu))
    middle = len(by_core) // SIDES
    return sorted(by_core[:middle]), sorted(by_core[middle:])


@dataclass
class DuetRound:
    """What the two sides of one round share: who sets up now, the barrier before the gate, the gate's file."""

    gate_path: str
    transport: Transport
    setting_up: threading.Lock = field(default_factory=threading.Lock)
    barrier: threading.Barrier = field(default_factory=lambda: threading.Barrier(SIDES, timeout=BARRIER_S))

    def open_gate(self) -> None:
        self.transport.run(["touch", "--", self.gate_path], timeout=60)

    def close_gate(self) -> None:
        self.transport.run(["rm", "-f", "--", self.gate_path], timeout=60)


class DuetSide:
    """One side's part in the round: the runner asks it before its setup (take_turn), around pgbench's start
    (gated, release) and at its end (leave)."""

    def __init__(self, duet: DuetRound, side: int, stamp_path: str) -> None:
        self.duet = duet
        self.side = side
        self.stamp_path = stamp_path
        self.holds_turn = False
        self.passed = False  # through the barrier: both sides' pgbench started

    @property
    def pgbench_name(self) -> str:
        return f"pgbench-side{self.side}"

    def take_turn(self) -> None:
        self.duet.setting_up.acquire()
        self.holds_turn = True

    @contextmanager
    def turn(self) -> Iterator[None]:
        """The steps after the run, one side at a time: the long commands they run (VACUUM, pgstattuple) go by one
        name on the host."""
        self.take_turn()
        try:
            yield
        finally:
            self.give_turn()

    def gated(self, argv: list[str]) -> list[str]:
        return ["sh", "-c", GATE_SCRIPT, "sh", self.duet.gate_path, self.stamp_path, *argv]

    def release(self) -> None:
        """Its pgbench waits at the gate: let the other side set up, wait for it, then the gate opens for both."""
        self.give_turn()
        opens = self.duet.barrier.wait() == 0
        self.passed = True
        if opens:
            self.duet.open_gate()

    def give_turn(self) -> None:
        if self.holds_turn:
            self.holds_turn = False
            self.duet.setting_up.release()

    def leave(self) -> None:
        """The side ended (well or not): a partner that waits, or will wait, at the barrier stops waiting."""
        self.give_turn()
        if not self.passed:
            self.duet.barrier.abort()

    def started_at(self) -> datetime | None:
        """When the gate let its pgbench start, as the host's clock wrote it."""
        stamp = self.duet.transport.run(["cat", "--", self.stamp_path], check=False, timeout=60).text.strip()
        try:
            return datetime.fromtimestamp(float(stamp), UTC)
        except ValueError:
            return None


def run_duet(
    specs: tuple[TrialSpec, TrialSpec],
    db: Transport,
    *,
    should_cancel: Callable[[], bool],
    patience: HostPatience | None = None,
    on_wait: WaitReport | None = None,
) -> tuple[TrialOutcome, TrialOutcome]:
    """Run one duet round (steps 1-5 above); specs: the leader's and the partner's trials of the round, each with
    its duet_half. Never raises for a target's failure: both outcomes say it."""
    halves, memory_kb = cpu_halves(db), half_memory_kb(db)
    _sweep(db, specs)
    gate = posixpath.join(db.host.work_dir, "trials", f"duet-{specs[0].trial_id}.gate")
    duet = DuetRound(gate, db)
    duet.close_gate()
    sides = [
        DuetSide(duet, number, posixpath.join(db.host.work_dir, "trials", f"duet-{spec.trial_id}.started"))
        for number, spec in enumerate(specs)
    ]
    side_specs = [
        side_spec(spec, number, halves, fence=specs[0].fence, memory_kb=memory_kb) for number, spec in enumerate(specs)
    ]
    runs = [
        partial(
            run_trial, spec, db, should_cancel=should_cancel, patience=patience, on_wait=on_wait, duet=sides[number]
        )
        for number, spec in enumerate(side_specs)
    ]
    try:
        leader, partner = (outcome for outcome in concurrently(*runs) if isinstance(outcome, TrialOutcome))
    finally:
        db.should_stop = None
    db.run(["rm", "-f", "--", gate, *(side.stamp_path for side in sides)], check=False, timeout=60)
    for outcome, spec in zip((leader, partner), side_specs, strict=True):
        _note_half(outcome, spec, halves)
    if should_cancel():
        cancelled_together(leader, partner)
    return fail_together(leader, partner)


def side_spec(
    spec: TrialSpec, side: int, halves: tuple[list[int], list[int]], *, fence: str, memory_kb: int | None = None
) -> TrialSpec:
    """The trial as one side of the round: its half's CPUs, the planner told of half the host's memory (unless the
    study sets effective_cache_size), its own cluster, the round's fence, no collectors, no server kept."""
    half = spec.duet_half if spec.duet_half is not None else side
    cache = {"effective_cache_size": f"{memory_kb}kB"} if memory_kb else {}
    return replace(
        spec,
        pg_settings=cache | spec.pg_settings,
        duet_side=side,
        duet_half=half,
        cpu_set=tuple(halves[half]),
        fence=fence,
        keep_server=False,
        collect_sar=False,
        collect_perf=False,
        collect_wait_events=False,
    )


def _sweep(db: Transport, specs: tuple[TrialSpec, TrialSpec]) -> None:
    """Step 2: what earlier trials left running on the host goes, before either side starts anything."""
    db.kill_leftovers()
    stop_leftover_servers(db, install_build(db, specs[0].build))


def _note_half(outcome: TrialOutcome, side: TrialSpec, halves: tuple[list[int], list[int]]) -> None:
    """The half the side ran on, as side_spec chose it."""
    half = side.duet_half or 0
    outcome.host_facts["duet_halves"] = [cpu_list_text(cpus) for cpus in halves]
    outcome.notes.append(f"duet: ran on half {half + 1} of 2 (CPUs {cpu_list_text(halves[half])})")


def cancelled_together(*outcomes: TrialOutcome) -> None:
    """A round a cancel stopped is cancelled on each side that did not finish, whatever error the side met as the
    stop reached it (a side still setting up sees its command killed, not the cancel)."""
    for outcome in outcomes:
        if not outcome.ok and outcome.failure_kind != FailureKind.CANCELLED:
            outcome.notes.append(f"stopped by the cancel: {outcome.error}")
            outcome.error, outcome.failure_kind = "cancelled", FailureKind.CANCELLED


def fail_together(leader: TrialOutcome, partner: TrialOutcome) -> tuple[TrialOutcome, TrialOutcome]:
    """A round is kept whole or not at all: a side that failed fails its partner too, with the same kind (a side
    that could never succeed makes the round fail for good)."""
    for outcome, other, name in ((leader, partner, "partner"), (partner, leader, "leader")):
        if outcome.ok and not other.ok:
            outcome.ok = False
            outcome.error = f"its {name} side failed: {other.error}"
            outcome.failure_kind = other.failure_kind or FailureKind.TARGET_FAILED
            outcome.deterministic = other.deterministic
            outcome.host_unreachable = other.host_unreachable
    return leader, partner
