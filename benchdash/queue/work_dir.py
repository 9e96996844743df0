"""Which of a host's clusters and pristine data may go (the store decides; workers/work_dir_cleanup.py lists and
removes), and keeping what the host's work dir holds on its row.

A cluster stays while anything may still need it:
- the cluster of the trial running on the host (the store says which);
- a cluster of a study still queued or running (its next trial reuses it);
- a cluster with no marker while a study is active on the host (it may be the one being made);
- a cluster of a study that asked to keep its data (keep_data), until a member clears the host's work dir.
Everything else goes: clusters of studies that ended (done, failed, cancelled), of studies no longer in the store,
and unmarked ones (data cut short) when no study is active on the host.

Pristine data (workers/pristine.py) stays while a study is active on the host (its next cluster may copy it, or a
trial may be copying it now). Otherwise an entry goes when no cluster copied it for BENCHDASH_PRISTINE_KEEP_DAYS,
when it was cut short, or when a member clears the host's work dir.
"""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from benchdash.inventory.models import Host
from benchdash.studies.lifecycle.services import ACTIVE
from benchdash.studies.lifecycle.specs import host_spec, trial_spec
from benchdash.studies.models import Study, Trial
from workers.host_lock import HostLockBusy, host_lock_on
from workers.trial_cluster import cluster_dir
from workers.work_dir_cleanup import (
    ClusterOnHost,
    PristineOnHost,
    clusters_on_host,
    pristine_on_host,
    remove_clusters,
    remove_pristine,
    work_dir_usage,
)


def clear_host_clusters(host: Host, *, clear_kept: bool) -> list[str]:
    """Remove the host's clusters and pristine data that nothing needs (clear_kept: kept ones and pristine data
    used lately too), note what its work dir holds now on its row, and return the paths removed. Under the host-wide
    lock (workers/host_lock.py), which this installation's own running trial lets it share: never beside another
    installation's trial, whose run the removals and the usage's walk would load. A host busy with one keeps
    everything, the holder noted on its row; the next clear (the sweep, a study's end, the button) tries again."""
    try:
        with host_lock_on(host_spec(host)) as transport:
            removable = removable_clusters(host, clusters_on_host(transport), clear_kept=clear_kept)
            removed = remove_clusters(transport, removable)
            unneeded = removable_pristine(host, pristine_on_host(transport), clear_kept=clear_kept)
            removed += remove_pristine(transport, unneeded)
            usage = work_dir_usage(transport)
    except HostLockBusy as busy:
        Host.note_busy(host.name, busy.holder)
        return []
    # It answered: a note that an attempt waits for it is no longer true (host_wait.py's promise for any connection),
    # nor one that another installation holds it.
    measured = {"work_dir_usage": usage, "work_dir_measured_at": timezone.now(), "unreachable_since": None}
    Host.objects.filter(pk=host.pk).update(**measured)
    Host.note_busy(host.name, "")
    return removed


def removable_clusters(host: Host, clusters: list[ClusterOnHost], *, clear_kept: bool) -> list[ClusterOnHost]:
    """The clusters that nothing needs, by the rule in this module's docstring."""
    studies = Study.objects.filter(pk__in={cluster.study_id for cluster in clusters})
    active = set(studies.filter(status__in=ACTIVE).values_list("pk", flat=True))
    kept = set() if clear_kept else set(studies.filter(keep_data=True).values_list("pk", flat=True))
    host_busy = host_has_active_study(host)
    in_use = running_cluster_dir(host)
    return [
        cluster
        for cluster in clusters
        if cluster.path != in_use
        and cluster.study_id not in active | kept
        and not (cluster.study_id is None and host_busy)
    ]


def removable_pristine(host: Host, entries: list[PristineOnHost], *, clear_kept: bool) -> list[PristineOnHost]:
    """The pristine data that nothing needs, by the rule in this module's docstring."""
    if host_has_active_study(host):
        return []
    keep_s = timedelta(days=settings.PRISTINE_KEEP_DAYS).total_seconds()
    return [entry for entry in entries if clear_kept or not entry.whole or entry.idle_s >= keep_s]


def host_has_active_study(host: Host) -> bool:
    return Study.objects.filter(db_host=host, status__in=ACTIVE).exists()


def running_cluster_dir(host: Host) -> str | None:
    """The cluster dir of the trial running on the host now, if one runs."""
    running = Trial.objects.filter(host=host, status=Trial.Status.RUNNING).first()
    return cluster_dir(trial_spec(running)) if running is not None else None


def hosts_to_sweep() -> list[Host]:
    """Hosts whose work dir held clusters or pristine data when last measured, or that were never measured and had
    a study."""
    held = Host.objects.filter(work_dir_usage__clusters__gt=0) | Host.objects.filter(work_dir_usage__pristine__gt=0)
    measured_studies = Study.objects.filter(kind=Study.Kind.MEASURED)
    never_measured = Host.objects.filter(work_dir_measured_at__isnull=True, db_studies__in=measured_studies)
    return list((held | never_measured).distinct())
