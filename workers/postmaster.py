"""What the engine knows of a data directory's server without a Cluster (workers/cluster.py): how to stop it, where
its unix socket goes, which port its postmaster.pid names. Cleaning up after a lost trial and clearing a work dir
need them too, with nothing but a path."""

import hashlib
import posixpath

from workers.builds import InstalledBuild
from workers.transport import CommandResult, Transport

SHUTDOWN_MODES = ("smart", "fast", "immediate")
# A unix socket path may not exceed 107 bytes; past this the socket goes to a private directory in /tmp.
MAX_SOCKET_DIR_LEN = 90


def pg_ctl_stop(transport: Transport, installed: InstalledBuild, data_dir: str, mode: str = "fast") -> CommandResult:
    """`pg_ctl stop` of the server on data_dir, waiting for it to end; fails (not ok) when none runs there."""
    if mode not in SHUTDOWN_MODES:
        raise ValueError(f"unknown shutdown mode {mode!r}")
    argv = [installed.tool("pg_ctl"), "-D", data_dir, "-m", mode, "-w", "-t", "300", "stop"]
    return transport.run(argv, timeout=360, check=False)


def socket_dir_for(cluster_dir: str) -> str:
    """<cluster_dir>/socket, or where that path is too long for a unix socket, /tmp/benchdash-<digest>
    (made private to the target's account before the server starts: Cluster's _SERVER_FILES_SCRIPT)."""
    preferred = posixpath.join(cluster_dir, "socket")
    if len(preferred) <= MAX_SOCKET_DIR_LEN:
        return preferred
    return f"/tmp/benchdash-{hashlib.sha256(cluster_dir.encode()).hexdigest()[:16]}"


def postmaster_port(pid_file: str) -> int | None:
    """The port from a postmaster.pid (its fourth line), None when it has none."""
    lines = pid_file.splitlines()
    return int(lines[3]) if len(lines) > 3 and lines[3].strip().isdigit() else None
