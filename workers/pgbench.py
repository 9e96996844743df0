"""The pgbench command line, and reading what pgbench printed, for every pgbench from 9.x to 18.

What changed between versions (tests/engine/pgbench_outputs/README.md has a file for each):
- 9.2 to 13 print two figures, "tps = N (including connections establishing)" and "(excluding ...)".
- 9.4-era pgbench writes "latency average: N ms"; 9.6 on write "latency average = N ms".
- 14 prints a "pgbench (14.7, server 13.10)" banner, "initial connection time = N ms" and one figure,
  "tps = N (without initial connection time)", or with -C "tps = N (including reconnection times)".
- 15 adds failures: "number of failed transactions: N (P%)" and ", N failed" on progress lines.
- 18 repeats "number of transactions actually processed" per script, indented with " - ".
- A client that aborts prints "client N aborted ..." (9.x: "Client N aborted", and exit status 0); newer ones
  add "Run was aborted; the above results are incomplete." (12-14 "fatal:", 15 on "error:") and exit status 2.
  pgbench still prints a tps line then, so tps alone proves nothing.
"""

import math
import re
from dataclasses import InitVar, asdict, dataclass, field

BUILTINS = ("tpcb-like", "simple-update", "select-only")
PROTOCOLS = ("simple", "extended", "prepared")

# A run whose transactions / tps is further than this from the duration did not run for the duration.
DURATION_TOLERANCE = 0.10
DURATION_SLACK_S = 0.5


class PgbenchOutputError(ValueError):
    """The output holds no pgbench result at all (pgbench did not start, or this is not pgbench output)."""


def pgbench_command(
    *,
    pgbench: str,
    host: str,
    port: int,
    user: str,
    dbname: str,
    builtin: str,
    script_path: str | None,
    clients: int,
    threads: int,
    duration_s: int,
    scale: int | None,
    protocol: str,
    progress_s: int = 1,
    transactions: int | None = None,
    connect_each_transaction: bool = False,
    vacuum: bool = False,
) -> list[str]:
    """The argv of one measured run: -n (the runner vacuums itself) unless pgbench is to vacuum its tables first
    (`vacuum`, as seed 003 ran it), -P for the progress curve; -t N (transactions per client) instead of -T when
    given, and -C for a new connection per transaction.

    A custom script gets -f FILE and an explicit -s SCALE: pgbench reads the scale from pgbench_branches
    only for built-in scripts, and the seeds' scripts use :scale. A built-in script gets -b NAME.
    """
    if clients < 1 or threads < 1 or duration_s < 1:
        raise ValueError(f"clients, threads and duration must be positive: {clients}, {threads}, {duration_s}")
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown pgbench protocol {protocol!r}")
    argv = [pgbench, "-h", host, "-p", str(port), "-U", user, *([] if vacuum else ["-n"])]
    length = ["-t", str(int(transactions))] if transactions else ["-T", str(duration_s)]
    argv += ["-c", str(clients), "-j", str(threads), *length, "-M", protocol]
    if connect_each_transaction:
        argv.append("-C")
    if progress_s:
        argv += ["-P", str(progress_s)]
    argv += _script_args(builtin, script_path, scale)
    argv.append(dbname)
    return argv


def _script_args(builtin: str, script_path: str | None, scale: int | None) -> list[str]:
    if script_path:
        if scale is None or scale < 1:
            raise ValueError("a custom script needs an explicit scale: pgbench does not find it for -f")
        return ["-f", script_path, "-s", str(scale)]
    name = builtin or "tpcb-like"
    if name not in BUILTINS:
        raise ValueError(f"unknown pgbench built-in script {name!r}")
    return ["-b", name]


@dataclass
class ProgressPoint:
    """One "progress: T s, N tps, lat L ms stddev S[, F failed]" line."""

    t: float
    tps: float | None
    latency_ms: float | None
    stddev_ms: float | None
    failed: int | None = None


@dataclass
class PgbenchResult:
    """What one pgbench run reported. None where that pgbench version did not print the figure.

    `tps` excludes connection time (with -C it is the only figure pgbench prints, which includes the
    reconnections); `tps_including_connections` is the figure that includes it, where printed.
    """

    tps: float | None = None
    tps_including_connections: float | None = None
    clients: int | None = None
    threads: int | None = None
    duration_s: int | None = None
    transactions: int | None = None
    failed_transactions: int | None = None
    latency_avg_ms: float | None = None
    latency_stddev_ms: float | None = None
    initial_connection_time_ms: float | None = None
    scaling_factor: int | None = None
    query_mode: str | None = None
    transaction_type: str | None = None
    pgbench_version: str | None = None
    server_version: str | None = None
    aborted: bool = False
    progress: list[ProgressPoint] = field(default_factory=list)
    # How the run ended and what it was asked for, for failure_reason(): init-only, so that the fields
    # stay exactly the keys of the pgbench_parse JSON.
    exit_status: InitVar[int] = field(kw_only=True)
    expected_duration_s: InitVar[float | None] = field(kw_only=True)
    transactions_target: InitVar[int | None] = field(kw_only=True)
    abort_message: InitVar[str] = field(kw_only=True)

    def __post_init__(
        self, exit_status: int, expected_duration_s: float | None, transactions_target: int | None, abort_message: str
    ) -> None:
        self._exit_status = exit_status
        self._expected_duration_s = expected_duration_s
        self._transactions_target = transactions_target
        self._abort_message = abort_message

    def to_dict(self) -> dict[str, object]:
        """Plain JSON-ready data; NaN (pgbench prints it for an empty interval) becomes None."""
        return {key: _json_safe(value) for key, value in asdict(self).items()}

    def failure_reason(self) -> str | None:
        """Why this run cannot be counted, whatever tps it printed; None when it can."""
        if self.aborted:
            return f"pgbench aborted the run: {self._abort_message or _RUN_ABORTED}"
        if self._exit_status != 0:
            return f"pgbench exited with status {self._exit_status}"
        if not self.transactions or self.tps is None:
            return "pgbench reported no completed transactions"
        if self._transactions_target and self.transactions < self._transactions_target:
            return f"pgbench processed only {self.transactions} of {self._transactions_target} transactions"
        return self._duration_mismatch()

    def _duration_mismatch(self) -> str | None:
        """Whether the transactions at the run's TPS make its duration. The TPS including the connections where
        pgbench printed one: with -C before 14, the one excluding them leaves out most of the run's time."""
        expected = self._expected_duration_s or self.duration_s
        over_the_run = self.tps_including_connections or self.tps
        if not expected or not over_the_run or not self.transactions:
            return None
        measured = self.transactions / over_the_run
        if abs(measured - expected) <= max(DURATION_TOLERANCE * expected, DURATION_SLACK_S):
            return None
        return (
            f"{self.transactions} transactions at {over_the_run:.1f} tps make {measured:.1f} s, "
            f"far from the {expected:g} s duration"
        )


def _json_safe(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    return value


_NUMBER = r"([-+]?(?:\d+(?:\.\d*)?|nan|inf))"
# First match wins; matched only on unindented summary lines before any per-script section, so that
# 18's " - number of transactions actually processed: N (tps = ...)" never counts as the total.
_SUMMARY_PATTERNS: dict[str, re.Pattern[str]] = {
    "banner": re.compile(r"^pgbench \((?P<client>[^,]+?)(?:, server (?P<server>.+))?\)$"),
    "transaction_type": re.compile(r"^transaction type: (.+)$"),
    "scaling_factor": re.compile(r"^scaling factor: (\d+)$"),
    "query_mode": re.compile(r"^query mode: (\w+)$"),
    "clients": re.compile(r"^number of clients: (\d+)$"),
    "threads": re.compile(r"^number of threads: (\d+)$"),
    "duration_s": re.compile(r"^duration: (\d+) s$"),
    "transactions": re.compile(r"^number of transactions actually processed: (\d+)(?:/(\d+))?$"),
    "failed_transactions": re.compile(r"^number of failed transactions: (\d+)"),
    "latency_avg_ms": re.compile(rf"^latency average(?: =|:) {_NUMBER} ms", re.IGNORECASE),
    "latency_stddev_ms": re.compile(rf"^latency stddev(?: =|:) {_NUMBER} ms", re.IGNORECASE),
    "initial_connection_time_ms": re.compile(rf"^initial connection time = {_NUMBER} ms", re.IGNORECASE),
    "tps": re.compile(
        rf"^tps = {_NUMBER} \((?:excluding connections establishing|without initial connection time"
        r"|including reconnection times)\)$",
        re.IGNORECASE,
    ),
    "tps_including_connections": re.compile(
        rf"^tps = {_NUMBER} \((?:including connections establishing|including reconnection times)\)$",
        re.IGNORECASE,
    ),
}
_SECTION_END = re.compile(r"^(SQL script \d+:|statement latencies in milliseconds)")
_PROGRESS = re.compile(
    rf"^progress: {_NUMBER} s, {_NUMBER} tps, lat {_NUMBER} ms stddev {_NUMBER}(?:, (\d+) failed)?",
    re.IGNORECASE,
)
_RUN_ABORTED = "Run was aborted; the above results are incomplete."
_ABORT = re.compile(rf"({re.escape(_RUN_ABORTED)}|\bclient \d+ (?:script \d+ )?aborted\b.*)", re.IGNORECASE)
_INT_KEYS = ("scaling_factor", "clients", "threads", "duration_s", "failed_transactions")
_FLOAT_KEYS = ("latency_avg_ms", "latency_stddev_ms", "initial_connection_time_ms", "tps", "tps_including_connections")


def parse_pgbench_output(
    stdout: str, stderr: str = "", exit_status: int = 0, expected_duration_s: float | None = None
) -> PgbenchResult:
    """Read one run's output. Progress and abort lines are accepted in either stream, summary lines too,
    so a file holding stdout then stderr parses the same as the two streams apart.

    Raises PgbenchOutputError when neither a transaction count nor a tps line is there.
    """
    lines = f"{stdout}\n{stderr}".splitlines()
    found = _summary_matches(lines)
    if "transactions" not in found and "tps" not in found:
        raise PgbenchOutputError("no pgbench result in the output (no transaction count, no tps line)")
    abort_lines = [match.group(1) for line in lines if (match := _ABORT.search(line))]
    result = PgbenchResult(
        aborted=bool(abort_lines),
        progress=[_progress_point(match) for line in lines if (match := _PROGRESS.match(line))],
        exit_status=exit_status,
        expected_duration_s=expected_duration_s,
        transactions_target=_transactions_target(found),
        abort_message=_abort_message(abort_lines),
    )
    _fill_summary(result, found)
    return result


def _summary_matches(lines: list[str]) -> dict[str, re.Match[str]]:
    found: dict[str, re.Match[str]] = {}
    in_summary = True
    for line in lines:
        line = line.rstrip()
        if _SECTION_END.match(line):
            in_summary = False
        if not in_summary:
            continue
        for key, pattern in _SUMMARY_PATTERNS.items():
            if key not in found and (match := pattern.match(line)):
                found[key] = match
    return found


def _fill_summary(result: PgbenchResult, found: dict[str, re.Match[str]]) -> None:
    for key in _INT_KEYS:
        if key in found:
            setattr(result, key, int(found[key].group(1)))
    for key in _FLOAT_KEYS:
        if key in found:
            setattr(result, key, float(found[key].group(1)))
    if "transactions" in found:
        result.transactions = int(found["transactions"].group(1))
    if "query_mode" in found:
        result.query_mode = found["query_mode"].group(1)
    if "transaction_type" in found:
        result.transaction_type = found["transaction_type"].group(1)
    if "banner" in found:
        # pgbench names the server only when its version differs from its own.
        result.pgbench_version = found["banner"].group("client")
        result.server_version = found["banner"].group("server") or result.pgbench_version


def _abort_message(abort_lines: list[str]) -> str:
    """The first client's own reason says more than pgbench's closing "Run was aborted" line."""
    reasons = [line for line in abort_lines if line != _RUN_ABORTED]
    return (reasons or abort_lines or [""])[0]


def _transactions_target(found: dict[str, re.Match[str]]) -> int | None:
    match = found.get("transactions")
    return int(match.group(2)) if match and match.group(2) else None


def _progress_point(match: re.Match[str]) -> ProgressPoint:
    return ProgressPoint(
        t=float(match.group(1)),
        tps=_finite(match.group(2)),
        latency_ms=_finite(match.group(3)),
        stddev_ms=_finite(match.group(4)),
        failed=int(match.group(5)) if match.group(5) else None,
    )


def _finite(text: str) -> float | None:
    value = float(text)
    return value if math.isfinite(value) else None
