"""A variant's WAL directory on the DB host (initdb -X), as seed 001 kept PGDATA and WAL on separate partitions.

The variant names a directory (say /mnt/wal, on another disk); each cluster keeps its WAL in its own directory under
it, named after the cluster (cluster_wal_dir): initdb -X wants an empty or missing directory, and two clusters must
never share one. The data directory's pg_wal is then a symbolic link there.

The directory is checked as a work dir is (workers/work_dir.py) before initdb uses it: an absolute path, outside the
data directory and the host's work dir, an existing directory of the account benchdash runs as, writable by it, that
no other account can change (nor any directory or link on its path). Anything else refuses the trial, saying why.

A copy of a data directory copies the link, not the WAL: a cluster with a WAL directory is never copied (no pristine
data, no snapshot; its data is reset by pgbench -i again, workers/trial_cluster.py), and removing the cluster
removes its WAL directory too (wal_link_target).
"""

import hashlib
import posixpath
import stat

from workers.transport import Transport
from workers.work_dir import UnsafeWorkDir, inspect_path, path_refusals

WAL_PREFIX = "benchdash-wal-"


class UnsafeWalDir(UnsafeWorkDir):
    """The variant's WAL directory cannot be used: the trial is refused, with the reason."""


def cluster_wal_dir(wal_dir: str, cluster_dir: str) -> str:
    """The cluster's own WAL directory under the variant's: its name and a digest of its whole path (another
    installation's cluster of the same name gets another)."""
    digest = hashlib.sha256(cluster_dir.encode()).hexdigest()[:12]
    return posixpath.join(posixpath.normpath(wal_dir), f"{WAL_PREFIX}{posixpath.basename(cluster_dir)}-{digest}")


def wal_dir_reason(wal_dir: str, data_dir: str, work_dir: str) -> str | None:
    """Why the path itself cannot be a WAL directory (not absolute, inside PGDATA or the work dir); None when it can."""
    if not posixpath.isabs(wal_dir) or ".." in wal_dir.split("/"):
        return f"{wal_dir!r} is not an absolute path without '..'"
    for inside, what in ((data_dir, "the data directory (PGDATA)"), (work_dir, "the host's work dir")):
        if within(wal_dir, inside):
            return f"{wal_dir} is inside {what} {inside}: the WAL must go elsewhere"
    return None


def check_wal_dir(transport: Transport, wal_dir: str, data_dir: str) -> None:
    """UnsafeWalDir unless the WAL directory may hold the cluster's WAL (the module's docstring)."""
    host, spec = transport.host.name, transport.host
    whole_work_dir = posixpath.dirname(spec.work_dir) if spec.installation else spec.work_dir
    reason = wal_dir_reason(wal_dir, data_dir, whole_work_dir)
    if reason:
        raise UnsafeWalDir(f"WAL directory refused on {host}: {reason}")
    try:
        uid, entries = inspect_path(transport, wal_dir, make=False, files=False)
    except UnsafeWorkDir as error:
        raise UnsafeWalDir(f"WAL directory {wal_dir} refused on {host}: it must exist ({error})") from error
    resolved = entries[0]
    reasons = path_refusals(uid, entries, resolved.path)
    if not reasons and not resolved.mode & stat.S_IWUSR:
        reasons.append(f"{resolved.path} is not writable by its owner (mode {stat.S_IMODE(resolved.mode):04o})")
    if reasons:
        raise UnsafeWalDir(
            f"WAL directory {wal_dir} refused on {host}: {'; '.join(reasons)}. Give it to the account benchdash runs "
            f"as (chown), with mode 0700."
        )


def within(path: str, directory: str) -> bool:
    """Whether the path is the directory or below it, both normalized."""
    path, directory = posixpath.normpath(path), posixpath.normpath(directory)
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def wal_link_target(transport: Transport, data_dir: str) -> str | None:
    """The cluster's own WAL directory its data directory links to (pg_wal, or pg_xlog before 10), for removing it
    with the cluster; None when the WAL is inside the data directory (or the link is none of benchdash's)."""
    links = [posixpath.join(data_dir, name) for name in ("pg_wal", "pg_xlog")]
    # readlink prints the target of each that is a link (and fails for the others): one round trip.
    targets = transport.run(["readlink", "--", *links], check=False, timeout=60).text.split()
    ours = [path for path in targets if posixpath.isabs(path) and posixpath.basename(path).startswith(WAL_PREFIX)]
    return ours[0] if ours else None
