"""Record sequential and duet runs of one build against itself, unthrottled and with injected slowdowns of known size.

Usage (as root, on the machine measured; stdlib only, so it runs where benchdash is not installed):
    python3 bench/duet_record.py --bin-dir PG/bin --pgbench-dir PGBENCH/bin [--lib-dir PGBENCH/libs]
        [--clients 16,64] [--sizes 0,2,5] [--rounds 16] [--duration 1] [--seconds 380] [--output runs.csv]

Two clusters A and B of the same build, initdb'd and loaded once (select-only, scale 1), each postmaster in a
cgroup of its own (v2 `cpu.max`, or v1 `cpu.cfs_quota_us`, whichever the machine mounts). A slowdown of x% is B's
CPU quota set to (1 - x) of the CPUs B's server used in its unthrottled runs of the same design and client count,
so that it binds by the size asked; where no cgroup can be made, B's server is paused (SIGSTOP) for x% of every
10 ms instead. Its real effect is what the record shows (bench/duet_vs_sequential.py compares it with A/A).

The designs, per round (one unit each of every design, client count and size, in a shuffled order, RMIT):
- sequential: A then B or B then A (shuffled), each server on every CPU, pgbench beside it;
- duet: A and B at the same moment, each server and its pgbench on its own half of the CPUs (NUMA nodes where there
  are two, else the online CPUs split in two), the halves swapped at random each round.
One warm-up unit of each design and client count runs first and is written with round 0.

Writes one CSV row per run: round, design, clients, size, side, cpus, order, started, ended, tps, server_cpus (the
CPUs the server used over the run, from its cgroup; empty without one). --seconds ends the record after the round
that passes that much time, for a machine lent for minutes. A JSON beside the CSV says what the machine was.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import pwd
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextlib

from workers.cpu_set import cpu_list_text, parse_cpu_list  # noqa: E402

ACCOUNT = "bdbench"
PERIOD_US = 100_000
PAUSE_PERIOD_S = 0.02
TPS_RE = re.compile(r"^tps = ([0-9.]+)", re.MULTILINE)
SETTINGS = {
    "max_connections": "300",
    "shared_buffers": "1GB",
    "listen_addresses": "''",
    "fsync": "off",
    "synchronous_commit": "off",
}


def run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, check=True, text=True, capture_output=True, **kwargs)  # type: ignore[call-overload]


def as_account(argv: list[str]) -> list[str]:
    return ["runuser", "-u", ACCOUNT, "--", *argv] if os.geteuid() == 0 else argv


def ensure_account() -> None:
    if os.geteuid() != 0:
        return
    try:
        pwd.getpwnam(ACCOUNT)
    except KeyError:
        run(["useradd", "--system", "--no-create-home", "--shell", "/bin/sh", ACCOUNT])


class CpuGroup:
    """One server's cgroup: its quota and its CPU time so far; a paused duty cycle where no cgroup can be made."""

    def __init__(self, name: str, throttle: str) -> None:
        self.name = name
        self.mode, self.cpu_dir, self.usage_file = _make_cgroup(name)
        self.throttle = throttle if self.cpu_dir else "pause"
        self.pids: list[int] = []
        self._pauser: threading.Thread | None = None
        self._pause_share = 0.0

    def add(self, pids: list[int]) -> None:
        self.pids = pids
        if self.cpu_dir:
            for pid in pids:
                for directory in {self.cpu_dir, self.usage_file.parent}:
                    (directory / "cgroup.procs").write_text(f"{pid}\n")

    def usage_s(self) -> float | None:
        if not self.cpu_dir:
            return None
        text = self.usage_file.read_text()
        if self.mode == "v2":
            return int(re.search(r"^usage_usec (\d+)", text, re.MULTILINE).group(1)) / 1e6  # type: ignore[union-attr]
        return int(text) / 1e9

    def limit(self, cpus: float | None, share: float) -> None:
        """cpus: the quota in CPUs (None: no quota); share: the paused share of each period, where no cgroup."""
        quota_us = None if cpus is None else max(1000, int(cpus * PERIOD_US))
        if self.throttle == "pause":
            self._pause_share = share
        elif self.mode == "v2":
            (self.cpu_dir / "cpu.max").write_text(f"{quota_us or 'max'} {PERIOD_US}\n")
        elif self.mode == "v1":
            (self.cpu_dir / "cpu.cfs_period_us").write_text(f"{PERIOD_US}\n")
            (self.cpu_dir / "cpu.cfs_quota_us").write_text(f"{quota_us or -1}\n")

    def start_pausing(self, postmaster: int) -> None:
        if self.throttle != "pause" or self._pause_share <= 0:
            return
        self._pauser = threading.Thread(target=self._pause_loop, args=(postmaster,), daemon=True)
        self._stop_pausing = threading.Event()
        self._pauser.start()

    def stop_pausing(self) -> None:
        if self._pauser:
            self._stop_pausing.set()
            self._pauser.join()
            self._pauser = None

    def _pause_loop(self, postmaster: int) -> None:
        cycle = 0
        tree: list[int] = []
        while not self._stop_pausing.is_set():
            if cycle % 2 == 0:  # backends come and go: the tree read again every other period
                tree = server_pids(postmaster)
            cycle += 1
            _signal_all(tree, signal.SIGSTOP)
            time.sleep(PAUSE_PERIOD_S * self._pause_share)
            _signal_all(tree, signal.SIGCONT)
            time.sleep(PAUSE_PERIOD_S * (1 - self._pause_share))

    def remove(self) -> None:
        for directory in {self.cpu_dir, self.usage_file.parent} if self.cpu_dir else ():
            with contextlib.suppress(OSError):
                directory.rmdir()


def _signal_all(pids: list[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)


def _make_cgroup(name: str) -> tuple[str, Path, Path]:
    root = Path("/sys/fs/cgroup")
    try:
        if (root / "cgroup.controllers").exists():
            _enable_cpu_v2(root)
            group = root / f"bdbench-{name}"
            group.mkdir(exist_ok=True)
            return "v2", group, group / "cpu.stat"
        cpu = root / "cpu" / f"bdbench-{name}"
        cpuacct = root / "cpuacct" / f"bdbench-{name}"
        cpu.mkdir(exist_ok=True)
        cpuacct.mkdir(exist_ok=True)
        return "v1", cpu, cpuacct / "cpuacct.usage"
    except OSError as error:
        print(f"no cgroup ({error}): slowdowns by pausing the server", file=sys.stderr)
        return "pause", Path(), Path()


def _enable_cpu_v2(root: Path) -> None:
    if "cpu" in (root / "cgroup.subtree_control").read_text().split():
        return
    try:
        (root / "cgroup.subtree_control").write_text("+cpu\n")
    except OSError:
        # A namespace's root with processes in it refuses controllers for its children: move them to a leaf first.
        leaf = root / "bdbench-init"
        leaf.mkdir(exist_ok=True)
        for pid in (root / "cgroup.procs").read_text().split():
            with contextlib.suppress(OSError):
                (leaf / "cgroup.procs").write_text(f"{pid}\n")
        (root / "cgroup.subtree_control").write_text("+cpu\n")


def server_pids(postmaster: int) -> list[int]:
    children = Path(f"/proc/{postmaster}/task/{postmaster}/children")
    try:
        return [postmaster, *map(int, children.read_text().split())]
    except OSError:
        listed = subprocess.run(["ps", "-o", "pid=", "--ppid", str(postmaster)], capture_output=True, text=True)
        return [postmaster, *map(int, listed.stdout.split())]


def pin(pids: list[int], cpus: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(pid, cpus)


@dataclass
class Server:
    name: str
    bin_dir: Path
    data_dir: Path
    socket_dir: Path
    port: int
    group: CpuGroup
    postmaster: int = 0
    unthrottled_cpus: dict[tuple[str, int], list[float]] = field(default_factory=dict)

    def start(self) -> None:
        run(
            as_account(
                [
                    str(self.bin_dir / "pg_ctl"),
                    "-D",
                    str(self.data_dir),
                    "-w",
                    "-l",
                    str(self.data_dir / "server.log"),
                    "start",
                ]
            )
        )
        self.postmaster = int((self.data_dir / "postmaster.pid").read_text().split()[0])
        self.group.add(server_pids(self.postmaster))

    def stop(self) -> None:
        run(as_account([str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-m", "immediate", "stop"]))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def make_server(name: str, bin_dir: Path, work: Path, throttle: str) -> Server:
    data_dir = work / name
    run(
        as_account(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(data_dir),
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ]
        )
    )
    port = free_port()
    lines = [f"{key} = {value}" for key, value in SETTINGS.items()]
    lines += [f"port = {port}", f"unix_socket_directories = '{work}'"]
    with (data_dir / "postgresql.conf").open("a") as conf:
        conf.write("\n".join(lines) + "\n")
    return Server(name, bin_dir, data_dir, work, port, CpuGroup(name, throttle))


def halves() -> tuple[list[int], list[int]]:
    """Two NUMA nodes where there are two; else the physical cores split in two, each core's hyperthreads kept
    together, so that the two sides never share a core."""
    nodes = sorted(Path("/sys/devices/system/node").glob("node[0-9]*"))
    if len(nodes) >= 2:
        return parse_cpu_list((nodes[0] / "cpulist").read_text()), parse_cpu_list((nodes[1] / "cpulist").read_text())
    cores = sorted({tuple(siblings(cpu)) for cpu in sorted(os.sched_getaffinity(0))})
    middle = len(cores) // 2
    return sorted(c for core in cores[:middle] for c in core), sorted(c for core in cores[middle:] for c in core)


def siblings(cpu: int) -> list[int]:
    path = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list")
    try:
        return [c for c in parse_cpu_list(path.read_text()) if c in os.sched_getaffinity(0)]
    except OSError:
        return [cpu]


class Recorder:
    def __init__(self, options: argparse.Namespace, servers: dict[str, Server], writer: csv.DictWriter) -> None:
        self.options = options
        self.servers = servers
        self.writer = writer
        self.all_cpus = sorted(os.sched_getaffinity(0))
        self.halves = halves()
        env = dict(os.environ)
        if options.lib_dir:
            env["LD_LIBRARY_PATH"] = options.lib_dir
        self.env = env

    def pgbench(self, server: Server, clients: int, cpus: list[int]) -> subprocess.Popen[str]:
        threads = max(1, min(clients, len(cpus)) // 2)
        argv = [
            "taskset",
            "-c",
            cpu_list_text(cpus),
            str(Path(self.options.pgbench_dir) / "pgbench"),
            "-n",
            "-b",
            "select-only",
            "-c",
            str(clients),
            "-j",
            str(threads),
            "-T",
            str(self.options.duration),
            "-h",
            str(server.socket_dir),
            "-p",
            str(server.port),
            "-U",
            "postgres",
            "postgres",
        ]
        return subprocess.Popen(
            as_account(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env
        )

    def measure(self, jobs: list[tuple[Server, list[int], int]]) -> list[tuple[float, float, float, float | None]]:
        """Runs the jobs' pgbench at once: (started, ended, tps, server CPUs used) each."""
        before = [server.group.usage_s() for server, _cpus, _clients in jobs]
        started = time.time()
        for server, _cpus, _clients in jobs:
            server.group.start_pausing(server.postmaster)
        processes = [self.pgbench(server, clients, cpus) for server, cpus, clients in jobs]
        results = []
        for (server, _cpus, _clients), process, used_before in zip(jobs, processes, before, strict=True):
            out, err = process.communicate()
            ended = time.time()
            server.group.stop_pausing()
            match = TPS_RE.search(out)
            if process.returncode or not match:
                raise RuntimeError(f"pgbench on {server.name} exited {process.returncode}: {err[-300:]} {out[-600:]}")
            used_after = server.group.usage_s()
            used = None if used_before is None or used_after is None else (used_after - used_before) / (ended - started)
            results.append((started, ended, float(match.group(1)), used))
        return results

    def unit(self, round_: int, design: str, clients: int, size: float) -> None:
        a, b = self.servers["A"], self.servers["B"]
        unthrottled = a.unthrottled_cpus.get((design, clients))
        nominal = statistics.median(unthrottled) if unthrottled else None
        b.group.limit(None if size == 0 or nominal is None else nominal * (1 - size / 100), size / 100)
        if design == "duet":
            swapped = random.random() < 0.5
            a_cpus, b_cpus = self.halves[::-1] if swapped else self.halves
            pin(server_pids(a.postmaster), a_cpus)
            pin(server_pids(b.postmaster), b_cpus)
            outcomes = list(
                zip(
                    ("A", "B"),
                    (a_cpus, b_cpus),
                    self.measure([(a, a_cpus, clients), (b, b_cpus, clients)]),
                    strict=True,
                )
            )
            order = "together"
        else:
            for server in (a, b):
                pin(server_pids(server.postmaster), self.all_cpus)
            sides = [("A", a), ("B", b)]
            random.shuffle(sides)
            outcomes = [
                (name, self.all_cpus, self.measure([(server, self.all_cpus, clients)])[0]) for name, server in sides
            ]
            order = "".join(name for name, _server in sides)
        b.group.limit(None, 0)
        for side, cpus, (started, ended, tps, used) in outcomes:
            if used is not None and (side == "A" or size == 0):
                a.unthrottled_cpus.setdefault((design, clients), []).append(used)
            self.writer.writerow(
                {
                    "round": round_,
                    "design": design,
                    "clients": clients,
                    "size": size,
                    "side": side,
                    "cpus": cpu_list_text(cpus),
                    "order": order,
                    "started": f"{started:.3f}",
                    "ended": f"{ended:.3f}",
                    "tps": f"{tps:.3f}",
                    "server_cpus": "" if used is None else f"{used:.3f}",
                }
            )


def record(options: argparse.Namespace) -> None:
    random.seed(options.seed)
    ensure_account()
    work = Path(tempfile.mkdtemp(prefix="bdbench-"))
    if os.geteuid() == 0:
        shutil.chown(work, ACCOUNT)
    bin_dir = Path(options.bin_dir)
    servers = {name: make_server(name, bin_dir, work, options.throttle) for name in ("A", "B")}
    output = Path(options.output)
    units = [
        (design, clients, size)
        for clients in options.clients
        for design in ("sequential", "duet")
        for size in options.sizes
    ]
    try:
        for server in servers.values():
            server.start()
            env = {**os.environ, "LD_LIBRARY_PATH": options.lib_dir} if options.lib_dir else None
            subprocess.run(
                as_account(
                    [
                        str(Path(options.pgbench_dir) / "pgbench"),
                        "-i",
                        "-s",
                        "1",
                        "-q",
                        "-h",
                        str(work),
                        "-p",
                        str(server.port),
                        "-U",
                        "postgres",
                        "postgres",
                    ]
                ),
                check=True,
                capture_output=True,
                env=env,
            )
        write_machine(options, servers, output)
        with output.open("w", newline="") as file:
            writer = csv.DictWriter(
                file,
                [
                    "round",
                    "design",
                    "clients",
                    "size",
                    "side",
                    "cpus",
                    "order",
                    "started",
                    "ended",
                    "tps",
                    "server_cpus",
                ],
            )
            writer.writeheader()
            recorder = Recorder(options, servers, writer)
            for design, clients, _size in {(d, c, 0) for d, c, _s in units}:
                recorder.unit(0, design, clients, 0)
            began = time.monotonic()
            for round_ in range(1, options.rounds + 1):
                if time.monotonic() - began > options.seconds:
                    break
                random.shuffle(units)
                for design, clients, size in units:
                    try:
                        recorder.unit(round_, design, clients, size)
                    except RuntimeError as error:  # one unit lost, the record goes on
                        print(f"round {round_} {design} {clients} {size}: {error}", file=sys.stderr)
                file.flush()
                print(f"round {round_} done at {time.monotonic() - began:.0f} s", file=sys.stderr)
    finally:
        for server in servers.values():
            if server.postmaster:
                server.group.stop_pausing()
                server.stop()
            server.group.remove()
        shutil.rmtree(work, ignore_errors=True)


def pause_check(seconds: float = 1.5) -> dict[str, float]:
    """The CPU share a busy loop gets under each pause share: how exactly pausing removes what it is asked to."""
    shares = {}
    for share in (0.0, 0.02, 0.05, 0.10):
        loop = subprocess.Popen(["sh", "-c", "while :; do :; done"])
        group = CpuGroup(f"check-{loop.pid}", "pause")
        group.limit(None, share)
        before, began = _cpu_seconds(loop.pid), time.monotonic()
        group.start_pausing(loop.pid)
        time.sleep(seconds)
        group.stop_pausing()
        shares[f"{share:.2f}"] = round((_cpu_seconds(loop.pid) - before) / (time.monotonic() - began), 4)
        loop.kill()
        loop.wait()
        group.remove()
    return shares


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def write_machine(options: argparse.Namespace, servers: dict[str, Server], output: Path) -> None:
    cpu_model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        "",
    )
    facts = {
        "cpus": len(os.sched_getaffinity(0)),
        "cpu_model": cpu_model,
        "kernel": platform.release(),
        "halves": [cpu_list_text(half) for half in halves()],
        "cgroup": servers["B"].group.mode,
        "throttle": servers["B"].group.throttle,
        "siblings": {cpu: cpu_list_text(siblings(cpu)) for cpu in sorted(os.sched_getaffinity(0))},
        "server": run([str(Path(options.bin_dir) / "postgres"), "--version"]).stdout.strip(),
        "settings": SETTINGS,
        "duration_s": options.duration,
        "options": vars(options),
        "pause_check": pause_check() if servers["B"].group.throttle == "pause" else {},
    }
    output.with_suffix(".json").write_text(json.dumps(facts, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", required=True, help="the server's bin/ (initdb, pg_ctl, postgres)")
    parser.add_argument("--pgbench-dir", required=True, help="where pgbench is")
    parser.add_argument("--lib-dir", default="", help="libpq for that pgbench, if it needs one")
    parser.add_argument("--clients", type=lambda text: [int(n) for n in text.split(",")], default=[16, 64])
    parser.add_argument("--sizes", type=lambda text: [float(n) for n in text.split(",")], default=[0.0, 2.0, 5.0])
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--duration", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=float("inf"))
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--throttle",
        choices=("cgroup", "pause"),
        default="cgroup",
        help="a slowdown as a lowered CPU quota, or as the server paused for that share of every 20 ms",
    )
    parser.add_argument("--output", default="duet-runs.csv")
    record(parser.parse_args())


if __name__ == "__main__":
    main()
