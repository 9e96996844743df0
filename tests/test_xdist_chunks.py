"""The run order under pytest-xdist (tests/xdist_chunks.py): every worker's first chunk begins with slow tests."""

from dataclasses import dataclass

from tests.xdist_chunks import chunked


@dataclass(frozen=True)
class Item:
    name: str

    def get_closest_marker(self, name: str) -> object:
        return name == "slow" and self.name.startswith("slow") or None


def test_the_slow_tests_are_dealt_to_the_head_of_each_worker_s_chunk():
    items = [Item(f"quick{n}") for n in range(7)] + [Item(f"slow{n}") for n in range(5)]
    ordered = chunked(items, 3)
    assert sorted(item.name for item in ordered) == sorted(item.name for item in items)
    # worksteal's first chunks for 12 tests on 3 workers: 4, 4, 4
    chunks = [[item.name for item in ordered[start : start + 4]] for start in (0, 4, 8)]
    assert chunks == [
        ["slow0", "slow3", "quick0", "quick1"],
        ["slow1", "slow4", "quick2", "quick3"],
        ["slow2", "quick4", "quick5", "quick6"],
    ]


def test_uneven_chunks_follow_worksteal_s_sizes():
    items = [Item(f"slow{n}") for n in range(2)] + [Item(f"quick{n}") for n in range(8)]
    names = [item.name for item in chunked(items, 3)]
    # 10 tests on 3 workers: 3, then 7 // 2 = 3, then 4
    assert names[:3] == ["slow0", "quick0", "quick1"] and names[3:6] == ["slow1", "quick2", "quick3"]
    assert names[6:] == ["quick4", "quick5", "quick6", "quick7"]
