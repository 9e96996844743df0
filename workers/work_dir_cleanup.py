"""What a host's work dir holds, and removing the clusters nobody needs any more (issue 26).

A cluster dir (<work_dir>/clusters/<build>-<scenario>-s<scale>-f<fillfactor>, workers/trial_cluster.py) names its
study in data.json once its data is whole; one without that marker is being made, or was cut short. Which clusters
go is the store's choice (the caller's); here they are listed and removed: the server running on one is stopped
first with the pg_ctl of the binary that runs it, then the directory goes with rm -rf. Builds (<work_dir>/builds)
stay: other studies use them.

Every command is an argument list through the Transport; the scripts are fixed text, paths travel as arguments.
"""

import json
import logging
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

from workers.cluster import MARKER_FILE, socket_dir_for
from workers.transport import Transport

logger = logging.getLogger(__name__)
KIB = 1024
USAGE_PARTS = ("clusters", "snapshots", "builds")
# $1 the work dir. KiB of each part; "clusters" is the clusters' data without their snapshots.
_USAGE_SCRIPT = r"""
cd -- "$1" 2>/dev/null || exit 0
kib() { du -sk -- "$@" 2>/dev/null | awk '{s += $1} END {print s + 0}'; }
all=$(kib clusters) snapshots=$(kib clusters/*/snapshot)
printf 'clusters %s\nsnapshots %s\nbuilds %s\n' "$((all - snapshots))" "$snapshots" "$(kib builds)"
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


def work_dir_usage(transport: Transport) -> dict[str, int]:
    """Bytes held under the host's work dir: {"clusters": ..., "snapshots": ..., "builds": ...}."""
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
        ClusterOnHost(posixpath.join(clusters_dir, name), _marker_study(marker), int(kib or 0) * KIB)
        for name, kib, marker in zip(fields[0::3], fields[1::3], fields[2::3], strict=False)
    ]


def _marker_study(text: str) -> int | None:
    try:
        study_id = json.loads(text).get("study_id")
    except (ValueError, AttributeError):
        return None
    return study_id if isinstance(study_id, int) else None


def remove_clusters(transport: Transport, clusters: Iterable[ClusterOnHost]) -> list[str]:
    """Stop the server of each cluster, then remove its dir (and its socket dir when that is in /tmp).
    Returns the paths removed; one that could not be (a file the account may not delete) stays, and the rest go."""
    removed = []
    for cluster in clusters:
        transport.run(["sh", "-c", _STOP_SCRIPT, "sh", posixpath.join(cluster.path, "data")], timeout=180)
        socket_dir = socket_dir_for(cluster.path)
        outside = [socket_dir] if not socket_dir.startswith(cluster.path + "/") else []
        result = transport.run(["rm", "-rf", "--", cluster.path, *outside], timeout=600, check=False)
        if result.ok:
            removed.append(cluster.path)
        else:
            logger.warning("could not remove %s on %s: %s", cluster.path, transport.host.name, result.stderr[-500:])
    return removed
