"""Which published findings (data/published_findings.toml, read by seed_data) a study page shows: those of what its
variants vary (findings_for_variants) and, on a published study, those of its own source (findings_for_source), the
way it shows the figures of a version comparison."""

from django.db.models import Count, Q

from benchdash.studies.models import Study, Variant
from benchdash.studies.seed_data import FINDINGS, Finding

# What a study varies (queue_study --vary's axis names) -> the Variant field that differs.
AXIS_FIELDS = {
    "checksums": "data_checksums",
    "cpus": "cpus",
    "fillfactor": "fillfactor",
    "host": "db_host",
    "transactions": "transactions",
    "connect": "connect_each_transaction",
}


def findings_for_variants(study: Study) -> list[Finding]:
    """The findings about what the study's variants vary (their checksums, CPUs, fillfactor, host, -t or -C)."""
    axes = varied_axes(study)
    return [finding for finding in FINDINGS if finding.axis in axes]


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
