"""What a host's work dir holds, and removing the clusters and pristine data nobody needs any more (issue 26).

A cluster dir (<work_dir>/clusters/<build>-<scenario>-s<scale>-f<fillfactor>, workers/trial_cluster.py) names its
study in data.json once its data is whole; one without that marker is being made, or was cut short. Which clusters
go is the store's choice (the caller's); here they are listed and removed: the server running on one is stopped
first with the pg_ctl of the binary that runs it, then the directory goes with rm -rf. The pristine data
(<work_dir>/pristine, workers/pristine.py) is listed with each entry's last use, and removed the same way (no server
runs there). Builds (<work_dir>/builds) stay: other studies use them.

Every command is an argument list through the Transport; the scripts are fixed text, paths travel as arguments.
"""

import json
import logging
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

from workers.cluster import MARKER_FILE
from workers.postmaster import socket_dir_for
from workers.pristine import KEY_FILE, PRISTINE_DIR
from workers.transport import Transport
from workers.wal_dir import wal_link_target

logger = logging.getLogger(__name__)
KIB = 1024
USAGE_PARTS = ("clusters", "snapshots", "pristine", "builds")
# $1 the work dir. KiB of each part; "clusters" is the clusters' data without their snapshots; pristine/ through a
# link too (a host may keep its pristine data on another disk).
_USAGE_SCRIPT = r"""
cd -- "$1" 2>/dev/null || exit 0
kib() { du -sk -- "$@" 2>/dev/null | awk '{s += $1} END {print s + 0}'; }
all=$(kib clusters) snapshots=$(kib clusters/*/snapshot)
printf 'clusters %s\nsnapshots %s\npristine %s\nbuilds %s\n' "$((all - snapshots))" "$snapshots" "$(kib pristine/)" \
  "$(kib builds)"
"""
# $1 the clusters dir. For each cluster dir (not a link): name, KiB, data.json, each followed by a NUL.
_LIST_SCRIPT = r"""
cd -- "$1" 2>/dev/null || exit 0
for dir in *; do
  [ -d "$dir" ] && [ ! -L "$dir" ] || continue
  printf '%s\000%s\000' "$dir" "$(du -sk -- "$dir" | cut -f1)"
  cat -- "$dir/$2" 2>/dev/null
  printf '\000'
done
"""
# $1 the pristine dir, $2 its key file's name. For each entry (not a link): name, KiB, seconds since its last use,
# the key file, each followed by a NUL; an entry cut short has no key file, and its age is its directory's.
_PRISTINE_LIST_SCRIPT = r"""
cd -- "$1" 2>/dev/null || exit 0
now=$(date +%s)
for dir in *; do
  [ -d "$dir" ] && [ ! -L "$dir" ] || continue
  used=$(stat -c %Y -- "$dir/$2" 2>/dev/null || stat -c %Y -- "$dir")
  printf '%s\000%s\000%s\000' "$dir" "$(du -sk -- "$dir" | cut -f1)" "$((now - used))"
  cat -- "$dir/$2" 2>/dev/null
  printf '\000'
done
"""
# $1 a data dir. Stop the server running on it, if one does, with the pg_ctl next to the postgres binary that runs
# it: a stale postmaster.pid (its PID now another process's) is told apart by the process's cwd, the data dir.
_STOP_SCRIPT = r"""
data=$(cd -- "$1" 2>/dev/null && pwd -P) || exit 0
pid=$(head -n 1 -- "$data/postmaster.pid" 2>/dev/null)
case $pid in ''|*[!0-9]*) exit 0 ;; esac
[ "$(readlink "/proc/$pid/cwd")" = "$data" ] || exit 0
postgres=$(readlink "/proc/$pid/exe") || exit 0
"${postgres%/*}/pg_ctl" -D "$data" -m fast -w -t 120 stop >/dev/null || kill -QUIT "$pid"
"""


@dataclass(frozen=True)
class ClusterOnHost:
    path: str
    study_id: int | None  # from data.json; None: no marker (being made, or cut short)
    size_bytes: int


@dataclass(frozen=True)
class PristineOnHost:
    path: str
    whole: bool  # False: cut short (no key written), or a copy still being made
    idle_s: int  # seconds since a cluster last copied it, or since it was made
    size_bytes: int


def work_dir_usage(transport: Transport) -> dict[str, int]:
    """Bytes held under the host's work dir: {"clusters": ..., "snapshots": ..., "pristine": ..., "builds": ...}."""
    result = transport.run(["sh", "-c", _USAGE_SCRIPT, "sh", transport.host.work_dir], timeout=300)
    usage = dict.fromkeys(USAGE_PARTS, 0)
    for line in result.text.splitlines():
        part, _, kib = line.partition(" ")
        if part in usage and kib.isdigit():
            usage[part] = int(kib) * KIB
    return usage


def clusters_on_host(transport: Transport) -> list[ClusterOnHost]:
    """The cluster dirs under <work_dir>/clusters, with the study their marker names."""
    clusters_dir = posixpath.join(transport.host.work_dir, "clusters")
    result = transport.run(["sh", "-c", _LIST_SCRIPT, "sh", clusters_dir, MARKER_FILE], timeout=300)
    fields = result.stdout.decode("utf-8", "replace").split("\0")
    return [
        ClusterOnHost(posixpath.join(clusters_dir, name), _marker_study(marker), _whole(kib) * KIB)
        for name, kib, marker in zip(fields[0::3], fields[1::3], fields[2::3], strict=False)
    ]


def pristine_on_host(transport: Transport) -> list[PristineOnHost]:
    """The entries under <work_dir>/pristine, copies being made (<entry>.part-*) among them."""
    pristine_dir = posixpath.join(transport.host.work_dir, PRISTINE_DIR)
    result = transport.run(["sh", "-c", _PRISTINE_LIST_SCRIPT, "sh", pristine_dir, KEY_FILE], timeout=300)
    fields = result.stdout.decode("utf-8", "replace").split("\0")
    return [
        PristineOnHost(
            posixpath.join(pristine_dir, name), bool(key) and ".part-" not in name, _whole(idle), _whole(kib) * KIB
        )
        for name, kib, idle, key in zip(fields[0::4], fields[1::4], fields[2::4], fields[3::4], strict=False)
    ]


def remove_pristine(transport: Transport, entries: Iterable[PristineOnHost]) -> list[str]:
    """Remove the entries; returns the paths removed."""
    removed = []
    for entry in entries:
        if transport.run(["rm", "-rf", "--", entry.path], timeout=600, check=False).ok:
            removed.append(entry.path)
    return removed


def _whole(text: str) -> int:
    return int(text) if text.strip().isdigit() else 0


def _marker_study(text: str) -> int | None:
    try:
        study_id = json.loads(text).get("study_id")
    except (ValueError, AttributeError):
        return None
    return study_id if isinstance(study_id, int) else None


def remove_clusters(transport: Transport, clusters: Iterable[ClusterOnHost]) -> list[str]:
    """Stop the server of each cluster, then remove its dir (and its socket dir when that is in /tmp, and its own WAL
    directory when it has one elsewhere, workers/wal_dir.py).
    Returns the paths removed; one that could not be (a file the account may not delete) stays, and the rest go."""
    removed = []
    for cluster in clusters:
        transport.run(["sh", "-c", _STOP_SCRIPT, "sh", posixpath.join(cluster.path, "data")], timeout=180)
        socket_dir = socket_dir_for(cluster.path)
        outside = [socket_dir] if not socket_dir.startswith(cluster.path + "/") else []
        outside += filter(None, [wal_link_target(transport, posixpath.join(cluster.path, "data"))])
        result = transport.run(["rm", "-rf", "--", cluster.path, *outside], timeout=600, check=False)
        if result.ok:
            removed.append(cluster.path)
        else:
            logger.warning("could not remove %s on %s: %s", cluster.path, transport.host.name, result.stderr[-500:])
    return removed
