"""The order pytest-xdist hands the tests out in.

`make test`'s workers (`pytest -n 4 --dist worksteal`) each begin with a quarter of the collection, in its order, and
take from the end of another's queue when they run out. In the collection's own order the slow tests (whole studies
through Celery workers, mostly tests/queue) came together at the end: for the first half of a run the two cores were
60% busy with the engine's and the pages' tests, which wait on processes, and the studies then ran four at once on
cores 90% busy. Spread evenly through the run, each worker goes from a slow test to a stretch of quick ones and back,
and each worker's quarter holds every kind: slow and quick tests are dealt out to the quarters in turn.

The shared worker's tests stay together in as many runs as there are xdist workers: a test that uses the broker
without it stops it (tests/queue/conftest.py), so that, spread one by one, it would start again for nearly every
test.
"""

import os

import pytest

Unit = list[pytest.Item]


def spread_slow_tests(items: list[pytest.Item]) -> None:
    """Reorder items in place: the slow units evenly among the quick ones, each dealt out to the workers' quarters."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    slow, quick = [], []
    for unit in _units(items, workers):
        (slow if any(item.get_closest_marker("slow") for item in unit) else quick).append(unit)
    placed = [((index + 0.5) / len(slow), unit) for index, unit in enumerate(_dealt(slow, workers))]
    placed += [((index + 0.5) / len(quick), unit) for index, unit in enumerate(_dealt(quick, workers))]
    items[:] = [item for _, unit in sorted(placed, key=lambda pair: pair[0]) for item in unit]


def _dealt(units: list[Unit], workers: int) -> list[Unit]:
    """The units as dealt to `workers` hands in turn, one hand after another."""
    return [unit for hand in range(workers) for unit in units[hand::workers]]


def _units(items: list[pytest.Item], workers: int) -> list[Unit]:
    """Each test on its own, but the shared worker's, which come in runs of (about) equal length, one per xdist
    worker, each where the first of its tests was."""
    shared = [item for item in items if "shared_worker" in getattr(item, "fixturenames", ())]
    runs = _split(shared, workers)
    first_of_run = {id(run[0]): run for run in runs}
    in_a_run = {id(item) for item in shared}
    units: list[Unit] = []
    for item in items:
        if id(item) in first_of_run:
            units.append(first_of_run[id(item)])
        elif id(item) not in in_a_run:
            units.append([item])
    return units


def _split(items: list[pytest.Item], parts: int) -> list[Unit]:
    size = -(-len(items) // parts)
    return [items[start : start + size] for start in range(0, len(items), size)] if items else []
