"""Host facts as rows of a readable table: known facts first, in a fixed order, with translated labels."""

from django.utils.translation import gettext_lazy as _

# Facts are collected by workers/facts.py; a key not listed here is still shown, under its own name.
FACT_LABELS = {
    "cpu_model": _("CPU model"),
    "sockets": _("sockets"),
    "cpu_sockets": _("sockets"),
    "cores": _("cores"),
    "cpu_cores": _("cores"),
    "cores_per_socket": _("cores per socket"),
    "threads": _("threads"),
    "cpu_threads": _("threads"),
    "threads_per_core": _("threads per core"),
    "memory_bytes": _("memory"),
    "memory_kb": _("memory"),
    "memory_gib": _("memory (GiB)"),
    "memory": _("memory"),
    "kernel": _("kernel"),
    "os": _("OS"),
    "os_release": _("OS"),
    "filesystem": _("filesystem"),
    "fs_type": _("filesystem"),
    "device": _("device"),
    "disk": _("disk"),
    "governor": _("CPU frequency governor"),
    "cpu_governor": _("CPU frequency governor"),
    "turbo": _("turbo"),
    "thp": _("transparent huge pages"),
    "transparent_hugepages": _("transparent huge pages"),
    "load_average": _("load average"),
    "loadavg": _("load average"),
    "tools": _("tools"),
    "pgbench": _("pgbench"),
    "sar": _("sar"),
    "perf": _("perf"),
}
MISSING = _("not found")


def format_fact(key: str, value: object) -> str:
    """A fact value as text: sizes in GiB, lists joined, missing tools as 'not found'."""
    if value is None or value == "":
        return str(MISSING)
    if key == "memory_bytes" and isinstance(value, int | float):
        return f"{value / 2**30:.1f} GiB"
    if key == "memory_kb" and isinstance(value, int | float):
        return f"{value / 2**20:.1f} GiB"
    if isinstance(value, bool):
        return "✓" if value else "✗"
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
