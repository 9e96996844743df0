"""What the benchmarks time: the wall and CPU seconds of work done in child processes, and their medians."""

import resource
import statistics
import time
from collections.abc import Callable, Iterable


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
