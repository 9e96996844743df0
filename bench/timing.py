"""What the benchmarks time: the wall and CPU seconds of work done in child processes, and their medians."""

import resource
import statistics
import time
from collections.abc import Callable, Iterable, Mapping


def children_cpu_s() -> float:
    """User and system seconds of every child process this one has waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def own_and_children_cpu_s() -> float:
    """children_cpu_s and this process's own: for work done partly in Python here (a Transport's reading)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime + children_cpu_s()


def timed(work: Callable[[], object], cpu_s: Callable[[], float] = children_cpu_s) -> tuple[float, float]:
    """Wall seconds of one call of work, and the CPU seconds cpu_s counts meanwhile: by default those of the child
    processes it ran and waited for."""
    cpu_before, started = cpu_s(), time.perf_counter()
    work()
    return time.perf_counter() - started, cpu_s() - cpu_before


def medians(pairs: Iterable[tuple[float, float]]) -> tuple[float, float]:
    """The median wall and the median CPU time of (wall, CPU) pairs."""
    walls, cpus = zip(*pairs, strict=True)
    return statistics.median(walls), statistics.median(cpus)


def in_turns(
    work: Mapping[str, Callable[[], object]],
    rounds: int,
    *,
    cpu_s: Callable[[], float] = children_cpu_s,
    units: int = 1,
) -> dict[str, list[tuple[float, float]]]:
    """(wall, CPU) of each piece of work, once a round for rounds rounds, the pieces taking turns within each round so
    that the machine's load falls on all of them alike; each pair divided by the units of work a piece does."""
    times: dict[str, list[tuple[float, float]]] = {label: [] for label in work}
    for _ in range(rounds):
        for label, one in work.items():
            wall, cpu = timed(one, cpu_s)
            times[label].append((wall / units, cpu / units))
    return times


def median_rows(times: Mapping[str, Iterable[tuple[float, float]]]) -> str:
    """A Markdown table's rows: each label with its median wall and CPU seconds."""
    rows = []
    for label, pairs in times.items():
        wall, cpu = medians(pairs)
        rows.append(f"| {label} | {wall:.2f} | {cpu:.2f} |")
    return "\n".join(rows)
