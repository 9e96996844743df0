"""Host facts as rows of a readable table: known facts first, in a fixed order, with translated labels."""

from datetime import datetime

from django.utils.translation import gettext_lazy as _

from benchdash.inventory.models import Host

# Facts are collected by workers/facts.py; a key not listed here is still shown, under its own name.
FACT_LABELS = {
    "hostname": _("host name"),
    "cpu_model": _("CPU model"),
    "architecture": _("architecture"),
    "cpu_sockets": _("sockets"),
    "cpu_cores": _("cores"),
    "cores_per_socket": _("cores per socket"),
    "cpu_threads": _("threads"),
    "threads_per_core": _("threads per core"),
    "numa_nodes": _("NUMA nodes"),
    "microcode": _("CPU microcode"),
    "memory_bytes": _("memory"),
    "kernel": _("kernel"),
    "os_release": _("OS"),
    "virtualization": _("virtualization (none: a physical server)"),
    "boot_time": _("booted (seconds since the epoch)"),
    "locales": _("locales"),
    "work_dir": _("work directory"),
    "fs_type": _("filesystem"),
    "mount_point": _("mount point"),
    "mount_options": _("mount options"),
    "device": _("device"),
    "disk": _("disk"),
    "disk_rotational": _("rotational disk"),
    "disk_free_bytes": _("free space under the work directory"),
    "disk_size_bytes": _("size of that filesystem"),
    "cpu_governor": _("CPU frequency governor"),
    "turbo": _("turbo"),
    "transparent_hugepages": _("transparent huge pages"),
    "load_average": _("load average (1, 5, 15 min)"),
    "pgbench": _("pgbench"),
    "sar": _("sar"),
    "perf": _("perf"),
    "pgbench_path": _("pgbench path"),
    "sar_path": _("sar path"),
    "perf_path": _("perf path"),
    "tools": _("tools"),
    "configure": _("configure options (pg_config)"),
    "symbols": _("server symbols (what perf can name)"),
    "client_host": _("pgbench host"),
}
BYTE_FACTS = frozenset({"memory_bytes", "disk_free_bytes", "disk_size_bytes"})
MISSING = _("not found")
YES, NO = _("yes"), _("no")


def format_fact(key: str, value: object) -> str:
    """A fact value as text: sizes in GiB, lists joined, missing tools as 'not found'."""
    if value is None or value == "":
        return str(MISSING)
    if key in BYTE_FACTS and isinstance(value, int | float):
        return f"{value / 2**30:.1f} GiB"
    if isinstance(value, bool):
        return str(YES if value else NO)
    if isinstance(value, list | tuple):
        return ", ".join(str(item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{name}: {format_fact(name, item)}" for name, item in sorted(value.items()))
    return str(value)


def fact_rows(facts: dict[str, object] | None) -> list[tuple[str, str]]:
    """(label, text) rows: the known facts in FACT_LABELS order, then any other fact by its key."""
    facts = facts or {}
    known = [key for key in FACT_LABELS if key in facts]
    others = sorted(key for key in facts if key not in FACT_LABELS)
    rows = [(str(FACT_LABELS[key]), format_fact(key, facts[key])) for key in known]
    return rows + [(key.replace("_", " "), format_fact(key, facts[key])) for key in others]


def latest_facts(host: Host) -> tuple[dict[str, object], datetime | None]:
    """The host's own facts, else those the newest finished trial on it recorded, with when they were read."""
    if host.facts:
        return host.facts, host.facts_updated_at
    # Through the trials' relation to the host: inventory knows no study model.
    row = (
        host.trials.filter(finished_at__isnull=False)
        .exclude(host_facts={})
        .order_by("-finished_at")
        .values_list("host_facts", "finished_at")
        .first()
    )
    return row if row else ({}, None)
