"""benchdash/studies/capacity.py: what a DB host's memory and disk allow, from its facts."""

from benchdash.studies.capacity import (
    CLUSTER_BYTES,
    ClusterPlan,
    client_bound_by_memory,
    data_bytes,
    disk_estimate,
    size_text,
)

GIB = 2**30


def test_the_data_grows_with_the_scale_and_a_lower_fillfactor():
    assert 150e6 < data_bytes(10, None) < 160e6
    assert data_bytes(10, 80) > data_bytes(10, 100) == data_bytes(10, None)
    assert 1.4e12 < data_bytes(100_000, None) < 1.6e12


def test_a_cluster_that_keeps_a_snapshot_counts_twice_and_wal_counts_up_to_the_data():
    once = disk_estimate(scale=1, clusters=[ClusterPlan(None, False)], wal_bytes=GIB, facts={})
    twice = disk_estimate(scale=1, clusters=[ClusterPlan(None, True)], wal_bytes=GIB, facts={})
    assert once.needed_bytes == 2 * (CLUSTER_BYTES + data_bytes(1, None))
    assert twice.needed_bytes == 2 * once.needed_bytes


def test_clusters_of_the_same_data_share_one_pristine_copy():
    alone = disk_estimate(scale=1, clusters=[ClusterPlan(None, False)], wal_bytes=GIB, facts={}).needed_bytes
    same, other = ClusterPlan(None, False, pristine=(1, None)), ClusterPlan(None, False, pristine=(2, None))
    shared = disk_estimate(scale=1, clusters=[same, same], wal_bytes=GIB, facts={})
    apart = disk_estimate(scale=1, clusters=[same, other], wal_bytes=GIB, facts={})
    assert (shared.needed_bytes, apart.needed_bytes) == (3 * alone, 4 * alone)


def test_unknown_free_space_fits_and_known_free_space_bounds():
    clusters = [ClusterPlan(80, True), ClusterPlan(None, False)]
    unknown = disk_estimate(scale=100_000, clusters=clusters, wal_bytes=GIB, facts={})
    small = disk_estimate(scale=100_000, clusters=clusters, wal_bytes=GIB, facts={"disk_free_bytes": 20 * GIB})
    assert (unknown.fits, unknown.free_bytes, small.fits) == (True, None, False)


def test_memory_bounds_the_clients_when_it_is_known():
    assert client_bound_by_memory({"memory_bytes": 8 * GIB}) == 1024
    assert client_bound_by_memory({}) is None
    assert client_bound_by_memory({"memory_bytes": True}) is None


def test_sizes_read_in_mib_or_gib():
    assert (size_text(3 * GIB // 2), size_text(15 * 2**20), size_text(None)) == ("1.5 GiB", "15 MiB", "?")
