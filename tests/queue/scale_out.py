"""The scale-out set-up of deploy/SCALE-OUT.md, on one machine: 3 targets, each its own sshd on a loopback port
with its own host key, user and work dir, and 2 workers that each name the hosts they serve. Used by
tests/queue/test_scale_out.py and bench/scale_out.py."""

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from tests.sshd import SshServer, sshd_server

TARGETS = ("target-1", "target-2", "target-3")
# Worker name -> the hosts it serves (BENCHDASH_WORKER_HOSTS): target-2 is served by both.
SERVES = {"west": ("target-1", "target-2"), "east": ("target-2", "target-3")}


@contextmanager
def three_targets() -> Iterator[list[SshServer]]:
    """The 3 targets' sshd, each letting in its own user (bd-<target>), started; removed at the end."""
    with ExitStack() as stack:
        yield [stack.enter_context(sshd_server(name, f"bd-{name}")) for name in TARGETS]


def serving_workers(host_name: str) -> set[str]:
    return {worker for worker, hosts in SERVES.items() if host_name in hosts}
