"""Which published findings (data/published_findings.toml, read by seed_data) a study page shows: those of what its
variants vary (findings_for_variants) and, on a published study, those of its own source (findings_for_source), the
way it shows the figures of a version comparison. A study that varies its DB host shows the host findings of its own
comparison only (host_comparisons): a KVM study never shows the Windows findings."""

from django.db.models import Count, Q

from benchdash.inventory.facts_display import latest_facts
from benchdash.studies.models import Study, Variant
from benchdash.studies.seed_data import FINDINGS, Finding, HostComparison

# What a study varies (queue_study --vary's axis names) -> the Variant field that differs.
AXIS_FIELDS = {
    "checksums": "data_checksums",
    "cpus": "cpus",
    "fillfactor": "fillfactor",
    "host": "db_host",
    "transactions": "transactions",
    "connect": "connect_each_transaction",
}


# systemd-detect-virt's names of containers (workers/facts.py reads it as the fact `virtualization`); any other name
# but "none" is a virtual machine.
CONTAINERS = frozenset(
    {"openvz", "lxc", "lxc-libvirt", "systemd-nspawn", "docker", "podman", "rkt", "wsl", "proot", "pouch"}
)


def findings_for_variants(study: Study) -> list[Finding]:
    """The findings about what the study's variants vary (their checksums, CPUs, fillfactor, host, -t or -C); of the
    host's, those of what its hosts differ in."""
    axes = varied_axes(study)
    compared = host_comparisons(study) if "host" in axes else set()
    return [
        finding
        for finding in FINDINGS
        if finding.axis in axes and (finding.axis != "host" or finding.compares in compared)
    ]


def host_comparisons(study: Study) -> set[HostComparison]:
    """What the study's DB hosts differ in, as their facts say (virtualization, OS), and the load when its variants
    vary it."""
    variants = list(Variant.objects.filter(study=study).select_related("db_host"))
    compared = {HostComparison.LOAD} if len({variant.load for variant in variants}) > 1 else set()
    hosts = {variant.db_host or study.db_host for variant in variants} - {None}
    facts = [latest_facts(host)[0] for host in hosts if host is not None]
    return compared | _differences(facts)


def _differences(facts: list[dict[str, object]]) -> set[HostComparison]:
    """What hosts of these facts differ in: a physical server beside a guest or a container, or two OSes."""
    virtualization = {str(host["virtualization"]) for host in facts if host.get("virtualization")}
    systems = {str(host["os_release"]) for host in facts if host.get("os_release")}
    found = {HostComparison.OS} if len(systems) > 1 else set()
    if "none" in virtualization and virtualization & CONTAINERS:
        found.add(HostComparison.CONTAINER)
    if "none" in virtualization and virtualization - CONTAINERS - {"none"}:
        found.add(HostComparison.GUEST)
    return found


def varied_axes(study: Study) -> set[str]:
    """The axes on which a study's variants differ."""
    counts = Variant.objects.filter(study=study).aggregate(
        **{f"values_{axis}": Count(field, distinct=True) for axis, field in AXIS_FIELDS.items()},
        **{f"unset_{axis}": Count("pk", filter=_unset(field)) for axis, field in AXIS_FIELDS.items()},
    )
    return {axis for axis in AXIS_FIELDS if counts[f"values_{axis}"] + min(counts[f"unset_{axis}"], 1) > 1}


def _unset(field: str) -> Q:
    return Q(**{f"{field}__isnull": True})


def findings_for_source(study: Study) -> list[Finding]:
    """A published study's own source's findings."""
    if not study.is_published:
        return []
    return [finding for finding in FINDINGS if finding.published_as in study.source]


def study_findings(study: Study) -> list[Finding]:
    """What the study page shows: its source's findings, then those of what it varies, each once."""
    return list(dict.fromkeys([*findings_for_source(study), *findings_for_variants(study)]))
