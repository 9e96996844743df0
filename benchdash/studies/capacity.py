"""What a DB host can take, from its facts (workers/facts.py): how many pgbench clients its memory allows,
and how much disk a study's clusters need against the free space under its work directory.

Pure functions over plain data. A fact that is not known gives no bound; the preview says so.
"""

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass

# Each client has a server process of its own: its private memory, before any work_mem.
BYTES_PER_CLIENT = 8 * 2**20
# Measured with PostgreSQL 15 after `pgbench -i -s 10`: pgbench_accounts takes 13.43 MB a scale unit at
# fillfactor 100 (its heap grows as 100 / fillfactor), its primary key 2.25 MB; an initdb'd cluster 40 MB.
HEAP_BYTES_PER_SCALE = 13_430_000
INDEX_BYTES_PER_SCALE = 2_250_000
CLUSTER_BYTES = 40_000_000


@dataclass(frozen=True)
class ClusterPlan:
    """One cluster a study makes on its DB host: one per build and scenario (workers/cluster.py cluster_dir)."""

    fillfactor: int | None
    keeps_snapshot: bool  # a scenario that resets data more than once keeps a copy of its data to restore
    # What its data is made from (workers/pristine.py): clusters of the same share one copy of pristine data.
    pristine: Hashable = None


@dataclass(frozen=True)
class DiskEstimate:
    needed_bytes: int
    free_bytes: int | None  # None: the host's free space is not known
    memory_bytes: int | None
    data_bytes: int  # the pgbench data of one cluster

    @property
    def fits(self) -> bool:
        return self.free_bytes is None or self.needed_bytes <= self.free_bytes


def data_bytes(scale: int, fillfactor: int | None) -> int:
    """The pgbench tables and index of one cluster at this scale."""
    heap = HEAP_BYTES_PER_SCALE * 100 / (fillfactor or 100)
    return int(scale * (heap + INDEX_BYTES_PER_SCALE))


def disk_estimate(
    *, scale: int, clusters: Iterable[ClusterPlan], wal_bytes: int, facts: Mapping[str, object]
) -> DiskEstimate:
    """Every cluster's data directory (catalogs, pgbench data, WAL up to max_wal_size), twice for a cluster
    that keeps a snapshot, and once more for each pristine data the clusters share, against the free space under
    the host's work directory."""
    needed = 0
    largest = 0
    pristine: set[Hashable] = set()
    for cluster in clusters:
        data = data_bytes(scale, cluster.fillfactor)
        largest = max(largest, data)
        directory = CLUSTER_BYTES + data + min(wal_bytes, data + CLUSTER_BYTES)
        new_pristine = cluster.pristine is not None and cluster.pristine not in pristine
        pristine.add(cluster.pristine)
        needed += directory * ((2 if cluster.keeps_snapshot else 1) + new_pristine)
    return DiskEstimate(
        needed_bytes=needed,
        free_bytes=_whole(facts.get("disk_free_bytes")),
        memory_bytes=_whole(facts.get("memory_bytes")),
        data_bytes=largest,
    )


# wal_buffers = -1 (the default) is 1/32 of shared_buffers, at most one WAL segment (16 MiB).
WAL_BUFFERS_AUTO_MAX = 16 * 2**20


@dataclass(frozen=True)
class MemoryNeed:
    """What a study's settings ask of its DB host's memory. Shared memory (shared_buffers and wal_buffers) is
    mapped whole when the server starts: more than the host has and it cannot start ("could not map anonymous
    shared memory"). Beside it each client's server process, and each autovacuum worker's memory. work_mem is
    not counted: a query takes it only while it sorts or hashes, and the seeds' own presets set 1 GB."""

    shared_bytes: int
    clients: int
    autovacuum_workers: int
    autovacuum_bytes: int  # each worker's: autovacuum_work_mem, or maintenance_work_mem when it is -1

    @property
    def total_bytes(self) -> int:
        return self.shared_bytes + self.clients * BYTES_PER_CLIENT + self.autovacuum_workers * self.autovacuum_bytes


def shared_memory_bytes(shared_buffers: float, wal_buffers: float) -> int:
    """shared_buffers and wal_buffers in bytes (wal_buffers negative: the server's automatic size)."""
    wal = min(shared_buffers / 32, WAL_BUFFERS_AUTO_MAX) if wal_buffers < 0 else wal_buffers
    return int(shared_buffers + wal)


def client_bound_by_memory(facts: Mapping[str, object]) -> int | None:
    """The most clients the host's memory allows (one server process each), None when its memory is not known."""
    memory = _whole(facts.get("memory_bytes"))
    return None if memory is None else max(1, memory // BYTES_PER_CLIENT)


def _whole(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 else None


def size_text(size: int | None) -> str:
    """Bytes as MiB below a GiB, else GiB with one decimal, for messages and the preview."""
    if size is None:
        return "?"
    return f"{size / 2**20:.0f} MiB" if size < 2**30 else f"{size / 2**30:.1f} GiB"
