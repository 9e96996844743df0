"""What runs beside pgbench on the DB host: sar, perf and wait-event sampling, and the parsers of what they leave.

Each collector is a background command on the target (its own process group and PID file, see
transport.py), started before pgbench and stopped after it. A collector the host lacks, or one that
fails, is skipped with a note: a trial never fails because of a collector.

The parsers are pure functions over the text the tools print:
- `parse_sadf_json`: `sadf -j FILE -- -u -d -r` -> time series of CPU, disk and memory.
- `parse_wait_samples`: one JSON line per second from a psql `\\watch` over pg_stat_activity ->
  counts per (wait_event_type, wait_event).
- `fold_perf_script`: `perf script` -> "comm;outer;...;inner count" lines (the flame-graph input).
"""

import json
import posixpath
import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import cast

from workers.parallel import concurrently
from workers.transport import ConnectionLost, Transport, TransportError

SAR_INTERVAL_S = 1
WAIT_SAMPLE_INTERVAL_S = 1  # as in WAIT_EVENTS_SQL
# perf records at most this long, in the middle of the run.
PERF_MAX_WINDOW_S = 30.0
STOP_GRACE_S = 5

# One line per sample, also when no backend is active, so that the sample count is exact.
# A backend that is active without a wait event is on CPU.
WAIT_EVENTS_SQL = r"""SELECT json_build_object('t', clock_timestamp(), 'counts',
  coalesce(json_agg(json_build_array(s.wait_event_type, s.wait_event, s.n)), '[]'))
FROM (SELECT coalesce(wait_event_type, 'CPU') AS wait_event_type, coalesce(wait_event, 'CPU') AS wait_event,
             count(*) AS n
      FROM pg_stat_activity
      WHERE state = 'active' AND pid <> pg_backend_pid()
      GROUP BY 1, 2) AS s
\watch 1
"""

# $1 text, then a command that reads it on its standard input.
FEED_STDIN_SCRIPT = r"""
text=$1
shift
printf '%s\n' "$text" | "$@"
"""

# $1 data dir, $2 output file, $3 delay, $4 window, $5 perf. Values arrive as arguments, never as
# script text. The backends exist only once pgbench has connected, so their pids are read after the delay.
PERF_SCRIPT = r"""
data=$1 out=$2 delay=$3 window=$4 perf=$5
sleep "$delay"
pm=$(head -n 1 "$data/postmaster.pid") || exit 1
children=$(pgrep -d, -P "$pm")
exec "$perf" record -g -o "$out" -p "$pm${children:+,$children}" -- sleep "$window"
"""


class Collector(ABC):
    """A background command on a target, stopped with SIGINT, whose files become artifacts."""

    name: str

    def __init__(self, transport: Transport, trial_dir: str) -> None:
        self.transport = transport
        self.trial_dir = trial_dir

    def path(self, filename: str) -> str:
        return posixpath.join(self.trial_dir, filename)

    @abstractmethod
    def start(self) -> None: ...

    def stop(self) -> None:
        self.transport.stop_background(self.name, "INT", grace_s=STOP_GRACE_S)

    @abstractmethod
    def artifacts(self) -> dict[str, bytes]:
        """Artifact kind -> bytes; raises TransportError or ValueError when there is nothing usable."""


class SarCollector(Collector):
    """`sar -o FILE 1`: the binary file is kept raw, and read back with sadf on the same host."""

    name = "sar"

    def start(self) -> None:
        self.transport.start_background(self.name, ["sar", "-o", self.path("sar.bin"), str(SAR_INTERVAL_S)])

    def artifacts(self) -> dict[str, bytes]:
        raw = self.transport.get_bytes(self.path("sar.bin"))
        exported = self.transport.run(["sadf", "-j", self.path("sar.bin"), "--", "-u", "-d", "-r"], timeout=300)
        series = parse_sadf_json(exported.text)
        return {"sar": raw, "sar_series": json.dumps(series).encode()}


class WaitEventCollector(Collector):
    """pg_stat_activity sampled every second by a psql `\\watch` that runs on the DB host.

    The SQL reaches psql on its standard input (psql -c cannot hold a `\\watch`), which saves
    uploading a file for every trial.
    """

    name = "wait_events"

    def __init__(self, transport: Transport, trial_dir: str, psql: str, connection_args: Sequence[str]) -> None:
        super().__init__(transport, trial_dir)
        psql_argv = [psql, "-X", "-q", "-A", "-t", *connection_args, "-o", self.path("wait_events.out")]
        self.argv = ["sh", "-c", FEED_STDIN_SCRIPT, "sh", WAIT_EVENTS_SQL, *psql_argv]

    def start(self) -> None:
        self.transport.start_background(self.name, self.argv)

    def artifacts(self) -> dict[str, bytes]:
        text = self.transport.get_bytes(self.path("wait_events.out")).decode("utf-8", "replace")
        samples = parse_wait_samples(text)
        if not samples["samples"]:
            raise ValueError("psql took no sample (too old a server, or it could not connect)")
        return {"wait_events": json.dumps(samples).encode()}


class PerfCollector(Collector):
    """`perf record -g` on the postmaster and its children, over a window in the middle of the run."""

    name = "perf"

    def __init__(self, transport: Transport, trial_dir: str, *, perf: str, data_dir: str, duration_s: float) -> None:
        super().__init__(transport, trial_dir)
        self.perf = perf
        self.data_dir = data_dir
        self.window_s, self.delay_s = perf_window(duration_s)

    def start(self) -> None:
        args = [self.data_dir, self.path("perf.data"), f"{self.delay_s:g}", f"{self.window_s:g}", self.perf]
        self.transport.start_background(self.name, ["sh", "-c", PERF_SCRIPT, "sh", *args])

    def artifacts(self) -> dict[str, bytes]:
        script = self.transport.run([self.perf, "script", "-i", self.path("perf.data")], timeout=900)
        folded = fold_perf_script(script.text)
        if not folded:
            raise ValueError("perf recorded no samples")
        return {"perf_folded": folded.encode()}


def perf_window(duration_s: float) -> tuple[float, float]:
    """(window, delay): half the run at most PERF_MAX_WINDOW_S, centred, so ramp-up and the end stay out."""
    window = min(PERF_MAX_WINDOW_S, max(duration_s / 2, 0.5))
    return window, max((duration_s - window) / 2, 0.0)


class CollectorSet:
    """The collectors of one trial; every failure of theirs becomes a note instead of an error (a host that stops
    answering is not theirs: the runner waits for it)."""

    def __init__(self, collectors: Iterable[Collector]) -> None:
        self.pending = list(collectors)
        self.running: list[Collector] = []
        self.stopped: list[Collector] = []
        self.notes: list[str] = []

    def start(self) -> None:
        """Start them all at once: each start is a round trip to the target."""
        errors = _each(lambda collector: collector.start(), self.pending)
        for collector, error in zip(self.pending, errors, strict=True):
            if error is None:
                self.running.append(collector)
            else:
                self.notes.append(f"{collector.name}: skipped, it could not start ({error})")

    def stop(self) -> None:
        """Stop them all at once (each waits for its process to end); a second call stops only those whose host
        stopped answering during the first (ConnectionLost, raised once the others are done)."""
        to_stop = [collector for collector in self.running if collector not in self.stopped]
        errors = _each(lambda collector: collector.stop(), to_stop)
        for collector, error in zip(to_stop, errors, strict=True):
            if isinstance(error, ConnectionLost):
                continue
            self.stopped.append(collector)
            if error is not None:
                self.notes.append(f"{collector.name}: could not be stopped cleanly ({error})")
        if lost := next((error for error in errors if isinstance(error, ConnectionLost)), None):
            raise lost

    def artifacts(self) -> dict[str, bytes]:
        """Each collector's files; a host that stopped answering raises ConnectionLost (the data is still there)."""
        gathered: dict[str, bytes] = {}
        for collector in self.running:
            try:
                gathered.update(collector.artifacts())
            except ConnectionLost:
                raise
            except (TransportError, ValueError) as error:
                self.notes.append(f"{collector.name}: no data ({error})")
        return gathered


def _each(action: Callable[[Collector], None], collectors: list[Collector]) -> list[Exception | None]:
    """action on every collector at once; the error of each, or None."""
    errors = concurrently(*(partial(_error_of, action, collector) for collector in collectors))
    return cast(list[Exception | None], errors)


def _error_of(action: Callable[[Collector], None], collector: Collector) -> Exception | None:
    try:
        action(collector)
    except (TransportError, ValueError) as error:
        return error
    return None


def missing_tool_notes(facts: dict[str, object], wanted: dict[str, bool]) -> dict[str, str]:
    """Collector name -> note, for each wanted collector whose tool the host facts say is not there."""
    return {
        name: f"{name}: skipped, not installed on the host" for name, on in wanted.items() if on and not facts.get(name)
    }


# -- parsers ------------------------------------------------------------------------------------
_CPU_FIELDS = ("user", "system", "iowait", "steal", "idle")


def parse_sadf_json(text: str) -> dict[str, object]:
    """`sadf -j FILE -- -u -d -r` -> columns: time, cpu (%), memory, and util % and await (ms) per disk.

    A value a sample lacks (a disk that appeared later, an older sysstat) is None.
    """
    host = json.loads(text)["sysstat"]["hosts"][0]
    statistics = [entry for entry in host.get("statistics", []) if "timestamp" in entry]
    disk_names = sorted({disk["disk-device"] for entry in statistics for disk in entry.get("disk", [])})
    series: dict[str, object] = {
        "host": host.get("nodename"),
        "cpus": host.get("number-of-cpus"),
        "interval_s": statistics[0]["timestamp"].get("interval") if statistics else None,
        "time": [_sadf_time(entry["timestamp"]) for entry in statistics],
        "cpu": {name: [_all_cpus(entry).get(name) for entry in statistics] for name in _CPU_FIELDS},
        "memory": _memory_columns(statistics),
        "disks": {name: _disk_columns(statistics, name) for name in disk_names},
    }
    return series


def _sadf_time(timestamp: dict) -> str:
    suffix = "Z" if timestamp.get("utc") else ""
    return f"{timestamp['date']}T{timestamp['time']}{suffix}"


def _all_cpus(entry: dict) -> dict:
    return next((cpu for cpu in entry.get("cpu-load", []) if cpu.get("cpu") == "all"), {})


def _memory_columns(statistics: list[dict]) -> dict[str, list]:
    keys = {"used_percent": "memused-percent", "used_kb": "memused", "free_kb": "memfree", "cached_kb": "cached"}
    return {name: [entry.get("memory", {}).get(key) for entry in statistics] for name, key in keys.items()}


def _disk_columns(statistics: list[dict], device: str) -> dict[str, list]:
    keys = {"util_percent": "util-percent", "await_ms": "await", "read_kb_s": "rkB", "write_kb_s": "wkB"}
    rows: list[dict] = [
        next((disk for disk in entry.get("disk", []) if disk["disk-device"] == device), {}) for entry in statistics
    ]
    return {name: [row.get(key) for row in rows] for name, key in keys.items()}


def parse_wait_samples(text: str) -> dict[str, object]:
    """The psql sampler's lines -> sample count, totals per (wait_event_type, wait_event), and the series.

    Lines that are not a sample (a blank line between `\\watch` rounds, an error) are ignored.
    """
    totals: Counter[tuple[str, str]] = Counter()
    series = []
    for line in text.splitlines():
        try:
            sample = json.loads(line)
        except ValueError:
            continue
        counts = {f"{event_type}:{event}": int(count) for event_type, event, count in sample["counts"]}
        for event_type, event, count in sample["counts"]:
            totals[(event_type, event)] += int(count)
        series.append({"t": sample["t"], "counts": counts})
    ordered = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
    return {
        "interval_s": WAIT_SAMPLE_INTERVAL_S,
        "samples": len(series),
        "counts": [{"wait_event_type": kind, "wait_event": event, "count": count} for (kind, event), count in ordered],
        "series": series,
    }


_PERF_HEADER = re.compile(r"^(\S.*?)\s+\d+(?:/\d+)?\s")
_PERF_FRAME = re.compile(r"^\s+[0-9a-fA-F]+\s+(.+?)(?:\s+\(([^()]*)\))?$")
_PERF_OFFSET = re.compile(r"\+0x[0-9a-fA-F]+$")


def fold_perf_script(text: str) -> str:
    """`perf script` output -> sorted "comm;outermost;...;innermost count" lines, one per distinct stack.

    perf prints each sample as a header line and its frames innermost first, then a blank line. As
    in Brendan Gregg's stackcollapse-perf.pl, an unknown symbol is shown as its [module].
    """
    stacks: Counter[str] = Counter()
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
        header = _PERF_HEADER.match(lines[0]) if lines else None
        if header is None:
            continue
        frames = [_frame_name(line) for line in lines[1:]]
        names = [header.group(1), *reversed([frame for frame in frames if frame])]
        stacks[";".join(name.replace(";", ":") for name in names)] += 1
    return "".join(f"{stack} {count}\n" for stack, count in sorted(stacks.items()))


def _frame_name(line: str) -> str | None:
    match = _PERF_FRAME.match(line)
    if match is None:
        return None
    symbol, module = _PERF_OFFSET.sub("", match.group(1)), match.group(2) or ""
    if symbol == "[unknown]" and module and module != "[unknown]":
        return f"[{posixpath.basename(module)}]"
    return symbol
