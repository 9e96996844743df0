"""A duet round's planning on a target in memory (tests/fake_transport.py): the halves it reads from the host, the
memory each side gets, and each side's trial as the round runs it. The round itself: tests/engine/test_duet.py."""

from collections.abc import Sequence
from dataclasses import replace

from tests.fake_transport import FAKE_HOST, Answer, FakeTransport
from workers.duet import cpu_halves, half_memory_kb, side_spec
from workers.spec import BuildSpec, ScenarioSpec, TrialSpec

SPEC = TrialSpec(
    trial_id=9,
    study_id=4,
    db_host=FAKE_HOST,
    client_host=FAKE_HOST,
    build=BuildSpec(name="pg16", kind="installed", bin_dir="/usr/lib/postgresql/16/bin"),
    scenario=ScenarioSpec(slug="select", builtin="select-only"),
    clients=8,
    threads=4,
    duration_s=60,
    fence="store.41",
    keep_server=True,
    collect_sar=True,
    collect_wait_events=True,
    duet_half=1,
)


def host_with(
    nodes: str, online: str, meminfo: str = "MemTotal:       65536000 kB\n", siblings: Sequence[str] = ()
) -> FakeTransport:
    """A host of these NUMA nodes' CPU lists, online CPUs and memory, each CPU's thread siblings as siblings lists."""
    cores = "".join(f"core {line}\n" for line in siblings)

    def answer(argv: list[str]) -> Answer:
        if argv[:2] == ["sh", "-c"] and "cpulist" in argv[2]:
            return Answer(stdout=f"{nodes}{cores}online {online}\n".encode())
        if argv == ["cat", "/proc/meminfo"]:
            return Answer(stdout=meminfo.encode())
        return Answer()

    return FakeTransport(answer)


def test_two_numa_nodes_are_the_two_halves():
    assert cpu_halves(host_with("0-15,32-47\n16-31,48-63\n", "0-63")) == (
        [*range(16), *range(32, 48)],
        [*range(16, 32), *range(48, 64)],
    )


def test_four_nodes_give_two_to_each_half_and_one_node_splits_the_online_cpus():
    assert cpu_halves(host_with("0-3\n4-7\n8-11\n12-15\n", "0-15")) == ([*range(8)], [*range(8, 16)])
    assert cpu_halves(host_with("0-15\n", "0-15")) == ([*range(8)], [*range(8, 16)])
    assert cpu_halves(host_with("", "0-1")) == ([0], [1])


def test_a_core_s_hyperthreads_go_to_the_same_half():
    """8 cores of 2 threads, numbered as Linux numbers them (CPU n and n + 8 one core): split in the middle of the
    CPU numbers, each core would have had a thread on each side."""
    siblings = [f"{cpu % 8},{cpu % 8 + 8}" for cpu in range(16)]
    assert cpu_halves(host_with("0-15\n", "0-15", siblings=siblings)) == (
        [0, 1, 2, 3, 8, 9, 10, 11],
        [4, 5, 6, 7, 12, 13, 14, 15],
    )
    # Siblings side by side (0-1 one core): the halves are the first 4 cores and the rest, as without them.
    paired = [f"{cpu - cpu % 2}-{cpu - cpu % 2 + 1}" for cpu in range(16)]
    assert cpu_halves(host_with("0-15\n", "0-15", siblings=paired)) == ([*range(8)], [*range(8, 16)])


def test_an_odd_number_of_cores_splits_only_the_middle_one_and_offline_cpus_stay_out():
    siblings = ["0,3", "1,4", "2,5", "0,3", "1,4", "2,5"]
    assert cpu_halves(host_with("", "0-5", siblings=siblings)) == ([0, 1, 3], [2, 4, 5])
    # CPU 5 offline: cores (0,3), (1,4) and CPU 2 alone.
    assert cpu_halves(host_with("", "0-4", siblings=siblings[:5])) == ([0, 3], [1, 2, 4])


def test_each_side_gets_half_the_host_s_memory():
    assert half_memory_kb(host_with("", "0-1")) == 32768000
    assert half_memory_kb(host_with("", "0-1", meminfo="MemFree: 1 kB\n")) is None


def test_a_side_runs_in_its_half_with_the_round_s_fence_no_collectors_and_no_kept_server():
    halves = ([0, 1, 2, 3], [4, 5, 6, 7])
    side = side_spec(SPEC, 1, halves, fence="store.40", memory_kb=32768000)
    assert (side.duet_side, side.duet_half, side.cpu_set, side.fence) == (1, 1, (4, 5, 6, 7), "store.40")
    assert not (side.keep_server or side.collect_sar or side.collect_perf or side.collect_wait_events)
    assert side.pg_settings == {"effective_cache_size": "32768000kB"}
    own = side_spec(replace(SPEC, pg_settings={"effective_cache_size": "4GB"}), 1, halves, fence="")
    assert own.pg_settings == {"effective_cache_size": "4GB"}
