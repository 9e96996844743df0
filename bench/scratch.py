"""A scratch work directory on the host `local` for a benchmark: made by the clusters' account, removed at the end."""

from collections.abc import Iterator
from contextlib import contextmanager

from workers.local_transport import LocalTransport
from workers.spec import HostSpec


@contextmanager
def local_scratch_dir(purpose: str) -> Iterator[str]:
    """/tmp/benchdash-bench-<purpose>-XXXXXX, made with mktemp as the account `local` runs commands as; removed with
    everything in it when the block ends, however it ends."""
    scratch = LocalTransport(HostSpec(name="local", address="", work_dir="/tmp"))
    work_dir = scratch.run(["mktemp", "-d", f"/tmp/benchdash-bench-{purpose}-XXXXXX"]).text.strip()
    try:
        yield work_dir
    finally:
        scratch.run(["rm", "-rf", "--", work_dir], check=False)
