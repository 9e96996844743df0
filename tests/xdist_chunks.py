"""The run order under pytest-xdist: each worker's first share of tests begins with its share of the slow ones.

`--dist worksteal` gives each worker one contiguous chunk of the collection, the same number of tests each, and a
worker that runs out takes the last half of the longest queue left. Collected in directory order, the slow tests
(real workers, clusters and pgbench: 20 to 50 s each) sat together in two chunks, and the run ended with one worker
on a long queue test while the others had nothing left to take (the last 2% of the tests took about 3 of 13
minutes). Dealt over the chunks and put at the head of each, they run first everywhere, and what is left to take
at the end is the quick tests. Outside xdist the order is left as collected.
"""

import pytest


@pytest.hookimpl(trylast=True)  # after tests/queue/conftest.py has put the shared worker's tests together
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    workers = getattr(config, "workerinput", {}).get("workercount", 0)
    if workers > 1:
        items[:] = chunked(items, workers)


def chunked(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """The items in worksteal's chunk sizes, each chunk its share of the slow items (dealt in turn, in their order)
    followed by quick ones in their order."""
    slow = [item for item in items if item.get_closest_marker("slow")]
    quick = iter([item for item in items if not item.get_closest_marker("slow")])
    ordered: list[pytest.Item] = []
    remaining = len(items)
    for worker in range(workers):
        size = remaining // (workers - worker)  # as worksteal sends its first tests to each idle worker
        remaining -= size
        own_slow = slow[worker::workers]
        ordered += own_slow + [next(quick) for _ in range(max(0, size - len(own_slow)))]
    return ordered + list(quick)
