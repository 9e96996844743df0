"""The noise check of a host before a study (and on demand): what on it would widen the run-to-run spread.

One shell script, run on the target in one round trip, prints sections: CPU count, frequency governor, turbo,
transparent huge pages, load average, memory and swap, two snapshots of every process's CPU time a sampled window
apart (a second by default; the busy ones), swap traffic over that window, and the wall time of a short CPU-bound
micro-run repeated MICRO_RUNS times. `parse_preflight` turns that text into facts, `noise_findings` into findings
with a level, and `noise_verdict` into one of three plain verdicts. The study runs whatever the verdict says; it
travels with it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from workers.host_lock import HostLockBusy, host_lock
from workers.host_wait import WaitReport, unheard
from workers.spec import HostSpec
from workers.spread import coefficient_of_variation
from workers.transport import connect
from workers.transport_base import Transport
from workers.work_dir import ensure_private_work_dir

MICRO_RUNS = 10
MICRO_LOOP = 300_000
SAMPLE_MS = 1000  # the window between the two snapshots of the processes' CPU time
BUSY_PERCENT = 10.0  # a process using this much of one CPU during the sampled window is "busy"
MICRO_NOISY_CV = 0.03
MICRO_FAIR_CV = 0.01
SCRIPT_TIMEOUT_S = 60

SCRIPT = r"""
runs="$1"; loop="$2"; sample_s="$3"
section() { printf '== %s\n' "$1"; }
section cpus; getconf _NPROCESSORS_ONLN 2>/dev/null || nproc
section clk_tck; getconf CLK_TCK
section governor; cat /sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor 2>/dev/null
section no_turbo; cat /sys/devices/system/cpu/intel_pstate/no_turbo 2>/dev/null
section boost; cat /sys/devices/system/cpu/cpufreq/boost 2>/dev/null
section thp; cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
section loadavg; cat /proc/loadavg
section meminfo; grep -E '^(MemTotal|MemAvailable|SwapTotal|SwapFree):' /proc/meminfo
section swap_before; grep -E '^pswp(in|out) ' /proc/vmstat
section stat_before; date +%s%N; cat /proc/[0-9]*/stat 2>/dev/null
sleep "$sample_s"
section stat_after; date +%s%N; cat /proc/[0-9]*/stat 2>/dev/null
section swap_after; grep -E '^pswp(in|out) ' /proc/vmstat
section micro_us
i=0
while [ "$i" -lt "$runs" ]; do
  start=$(date +%s%N)
  awk -v n="$loop" 'BEGIN { for (i = 0; i < n; i++) x += i * i }'
  end=$(date +%s%N)
  echo $(( (end - start) / 1000 ))
  i=$((i + 1))
done
section end
"""


class Level(StrEnum):
    NOISY = "noisy"  # happening now: will widen the spread
    NOTE = "note"  # a setting that adds variance


class Verdict(StrEnum):
    QUIET = "quiet"
    SOME_NOISE = "some_noise"
    NOISY = "noisy"
    UNKNOWN = "unknown"  # the check could not run


@dataclass(frozen=True)
class BusyProcess:
    pid: int
    command: str
    cpu_percent: float


@dataclass(frozen=True)
class PreflightFacts:
    cpus: int | None = None
    governors: dict[str, int] = field(default_factory=dict)  # governor -> CPUs using it; empty: not exposed
    turbo: bool | None = None  # None: not exposed (a VM, or no intel_pstate / cpufreq boost)
    thp: str | None = None  # the chosen mode of transparent huge pages: always, madvise, never
    load: tuple[float, float, float] | None = None
    swap_total_kb: int | None = None
    swap_used_kb: int | None = None
    swapped_pages: int | None = None  # pages swapped in and out during the sampled window
    busy: tuple[BusyProcess, ...] = ()
    micro_us: tuple[int, ...] = ()

    @property
    def micro_cv(self) -> float | None:
        return coefficient_of_variation(self.micro_us)


@dataclass(frozen=True)
class Finding:
    code: str
    level: Level
    params: dict[str, Any] = field(default_factory=dict)


def preflight_command(runs: int = MICRO_RUNS, loop: int = MICRO_LOOP, sample_ms: int = SAMPLE_MS) -> list[str]:
    sample_s = f"{int(sample_ms) / 1000:.3f}"
    return ["sh", "-c", SCRIPT, "benchdash-preflight", str(int(runs)), str(int(loop)), sample_s]


def run_preflight(transport: Transport, sample_ms: int = SAMPLE_MS, micro_runs: int = MICRO_RUNS) -> dict[str, Any]:
    """Run the check on the transport's host: the report (facts, findings, verdict) as plain JSON-able data."""
    command = preflight_command(runs=micro_runs, sample_ms=sample_ms)
    result = transport.run(command, check=False, timeout=SCRIPT_TIMEOUT_S)
    return preflight_report(parse_preflight(result.text))


def check_host(
    host: HostSpec, sample_ms: int = SAMPLE_MS, micro_runs: int = MICRO_RUNS, *, on_wait: WaitReport = unheard
) -> dict[str, Any]:
    """The report of a check of this host; a check that could not run says why (verdict unknown), never raises:
    a study runs whatever its check says. Once connected, on_wait hears that the host answers (its note goes). It
    holds the host-wide lock: another installation's trial is no noise of the host's, and a host busy with one gets no
    verdict (busy_with: the holder's id)."""
    try:
        with connect(host) as transport:
            on_wait(host.name, None)
            ensure_private_work_dir(transport)
            with host_lock(transport):
                return run_preflight(transport, sample_ms, micro_runs)
    except HostLockBusy as busy:
        return {**_unknown(f"{type(busy).__name__}: {busy}"), "busy_with": busy.holder}
    except Exception as error:  # noqa: BLE001 (a host we cannot check is reported, not a failure of the study)
        return _unknown(f"{type(error).__name__}: {error}")


def _unknown(reason: str) -> dict[str, Any]:
    return {"verdict": Verdict.UNKNOWN.value, "findings": [], "facts": {}, "error": reason}


def preflight_report(facts: PreflightFacts) -> dict[str, Any]:
    findings = noise_findings(facts)
    return {
        "verdict": noise_verdict(findings).value,
        "findings": [asdict(finding) for finding in findings],
        "facts": asdict(facts) | {"micro_cv": facts.micro_cv},
    }


def parse_preflight(text: str) -> PreflightFacts:
    """The script's output as facts; a section that printed nothing (not exposed on that host) stays unknown."""
    sections = _sections(text)
    before, after = sections.get("stat_before", []), sections.get("stat_after", [])
    return PreflightFacts(
        cpus=_first_int(sections.get("cpus")),
        governors=_counts(sections.get("governor", [])),
        turbo=_turbo(sections),
        thp=_chosen_mode(sections.get("thp")),
        load=_load(sections.get("loadavg")),
        **_swap(sections),
        busy=_busy(before, after, _first_int(sections.get("clk_tck")) or 100),
        micro_us=tuple(int(line) for line in sections.get("micro_us", []) if line.strip().isdigit()),
    )


def noise_findings(facts: PreflightFacts) -> list[Finding]:
    """What on the host would widen the spread, each with its level and figures."""
    findings = [*_setting_findings(facts), *_activity_findings(facts)]
    cv = facts.micro_cv
    if cv is not None and cv > MICRO_FAIR_CV:
        level = Level.NOISY if cv > MICRO_NOISY_CV else Level.NOTE
        findings.append(Finding("micro_spread", level, {"cv_percent": round(cv * 100, 1), "runs": len(facts.micro_us)}))
    return findings


def noise_verdict(findings: list[Finding]) -> Verdict:
    if any(finding.level == Level.NOISY for finding in findings):
        return Verdict.NOISY
    return Verdict.SOME_NOISE if findings else Verdict.QUIET


def _setting_findings(facts: PreflightFacts) -> list[Finding]:
    findings = []
    other = {name: count for name, count in facts.governors.items() if name != "performance"}
    if other:
        findings.append(Finding("governor", Level.NOTE, {"governors": ", ".join(sorted(other))}))
    if facts.turbo:
        findings.append(Finding("turbo", Level.NOTE))
    if facts.thp == "always":
        findings.append(Finding("thp", Level.NOTE))
    if facts.swap_used_kb:
        findings.append(Finding("swap_used", Level.NOTE, {"mb": round(facts.swap_used_kb / 1024)}))
    return findings


def _activity_findings(facts: PreflightFacts) -> list[Finding]:
    findings = []
    cpus = facts.cpus or 1
    if facts.load is not None and facts.load[0] > max(0.5, 0.25 * cpus):
        findings.append(Finding("load", Level.NOISY, {"load": facts.load[0], "cpus": cpus}))
    if facts.swapped_pages:
        findings.append(Finding("swapping", Level.NOISY, {"pages": facts.swapped_pages}))
    if facts.busy:
        listed = ", ".join(f"{process.command} ({process.cpu_percent:.0f}%)" for process in facts.busy[:5])
        findings.append(Finding("busy", Level.NOISY, {"count": len(facts.busy), "processes": listed}))
    return findings


def _sections(text: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("== "):
            current = sections.setdefault(line[3:].strip(), [])
        elif current is not None and line.strip():
            current.append(line.strip())
    return sections


def _first_int(lines: list[str] | None) -> int | None:
    if not lines:
        return None
    word = lines[0].split()[0]
    return int(word) if word.isdigit() else None


def _counts(lines: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in lines:
        counts[line] = counts.get(line, 0) + 1
    return counts


def _turbo(sections: dict[str, list[str]]) -> bool | None:
    """intel_pstate says no_turbo (0: turbo on); acpi-cpufreq and amd say boost (1: on)."""
    no_turbo, boost = _first_int(sections.get("no_turbo")), _first_int(sections.get("boost"))
    if no_turbo is not None:
        return no_turbo == 0
    return None if boost is None else boost == 1


def _chosen_mode(lines: list[str] | None) -> str | None:
    """'always [madvise] never' -> 'madvise'."""
    for word in (lines or [""])[0].split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    return None


def _load(lines: list[str] | None) -> tuple[float, float, float] | None:
    try:
        one, five, fifteen = (float(word) for word in (lines or [""])[0].split()[:3])
    except ValueError:
        return None
    return (one, five, fifteen)


def _swap(sections: dict[str, list[str]]) -> dict[str, int | None]:
    memory = {line.split(":")[0]: int(line.split()[1]) for line in sections.get("meminfo", []) if len(line.split()) > 1}
    total, free = memory.get("SwapTotal"), memory.get("SwapFree")
    before, after = _pages(sections.get("swap_before", [])), _pages(sections.get("swap_after", []))
    return {
        "swap_total_kb": total,
        "swap_used_kb": None if total is None or free is None else total - free,
        "swapped_pages": None if before is None or after is None else max(0, after - before),
    }


def _pages(lines: list[str]) -> int | None:
    values = [int(line.split()[1]) for line in lines if len(line.split()) == 2 and line.split()[1].isdigit()]
    return sum(values) if values else None


def _busy(before: list[str], after: list[str], clock_ticks: int) -> tuple[BusyProcess, ...]:
    """Processes that used BUSY_PERCENT of a CPU or more between the two snapshots (the first line of each is
    the time in nanoseconds, then one /proc/PID/stat line per process)."""
    if len(before) < 2 or len(after) < 2 or not before[0].isdigit() or not after[0].isdigit():
        return ()
    elapsed_s = (int(after[0]) - int(before[0])) / 1e9
    if elapsed_s <= 0:
        return ()
    earlier = _cpu_ticks(before[1:])
    busy = []
    for pid, (command, ticks) in _cpu_ticks(after[1:]).items():
        if pid in earlier:
            percent = 100 * (ticks - earlier[pid][1]) / clock_ticks / elapsed_s
            if percent >= BUSY_PERCENT:
                busy.append(BusyProcess(pid, command, round(percent, 1)))
    return tuple(sorted(busy, key=lambda process: -process.cpu_percent))


def _cpu_ticks(lines: list[str]) -> dict[int, tuple[str, int]]:
    """pid -> (command, user + system ticks) from /proc/PID/stat lines; the command may hold spaces and ')'."""
    ticks = {}
    for line in lines:
        head, _, rest = line.rpartition(")")
        pid, _, command = head.partition(" (")
        fields = rest.split()
        if pid.isdigit() and len(fields) > 12:
            ticks[int(pid)] = (command, int(fields[11]) + int(fields[12]))
    return ticks
