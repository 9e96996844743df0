"""A variant's CPU count as a CPU set on the DB host: the server starts under `taskset -c <list>`, so the postmaster
and every process it forks (each backend, the background workers) inherit the set; the engine then reads each
server process's Cpus_allowed_list from /proc and refuses a trial whose processes escaped it.
"""

# $1 the postmaster's pid: it and every process whose parent it is, one "pid<TAB>Cpus_allowed_list" line each.
AFFINITY_SCRIPT = r"""
postmaster=$1
for pid in "$postmaster" $(ps -o pid= --ppid "$postmaster"); do
  allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null) && \
    [ -n "$allowed" ] && printf '%s\t%s\n' "$pid" "$allowed"
done
"""


class CpuSetError(RuntimeError):
    """The host has fewer CPUs than asked, or a server process runs outside its CPU set."""


def parse_cpu_list(text: str) -> list[int]:
    """'0-2,5' -> [0, 1, 2, 5] (the kernel's list format, as Cpus_allowed_list and /sys/.../online write it)."""
    cpus: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        low, _dash, high = part.partition("-")
        cpus += range(int(low), int(high or low) + 1)
    return cpus


def cpu_list_text(cpus: list[int]) -> str:
    return ",".join(map(str, cpus))


def chosen_cpus(count: int, online: str) -> list[int]:
    """The first `count` of the host's online CPUs; CpuSetError when it has fewer."""
    available = parse_cpu_list(online)
    if count > len(available):
        raise CpuSetError(f"{count} CPUs asked, and the host has {len(available)} online ({online.strip()})")
    return available[:count]


def taskset_prefix(cpus: list[int]) -> list[str]:
    return ["taskset", "-c", cpu_list_text(cpus)] if cpus else []


def escaped_processes(affinity_lines: str, cpus: list[int]) -> list[str]:
    """'pid (Cpus_allowed_list)' of each server process whose CPUs are not inside the set."""
    allowed = set(cpus)
    escaped = []
    for line in affinity_lines.splitlines():
        pid, _tab, cpu_text = line.partition("\t")
        if cpu_text and not set(parse_cpu_list(cpu_text)) <= allowed:
            escaped.append(f"{pid} ({cpu_text})")
    return escaped


# $1 a background command's process group: each pgbench process in it, one "pid<TAB>Cpus_allowed_list" line each.
PGBENCH_AFFINITY_SCRIPT = r"""
ps -e -o pid=,pgid=,comm= | while read -r pid group comm; do
  [ "$group" = "$1" ] && [ "$comm" = pgbench ] || continue
  allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null) && \
    [ -n "$allowed" ] && printf '%s\t%s\n' "$pid" "$allowed"
done
"""
