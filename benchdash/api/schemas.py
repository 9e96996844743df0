"""What the API answers, item by item: the OpenAPI schema is made from these classes (docs/API.md)."""

from datetime import datetime
from typing import Any

from ninja import ModelSchema, Schema
from pydantic import BaseModel, ConfigDict

from benchdash.inventory.models import Build, Host
from benchdash.studies.models import Scenario, TrialEvidence


class HostOut(ModelSchema):
    cpu_summary: str

    class Meta:
        model = Host
        fields = ["id", "name", "address", "port", "facts", "facts_updated_at", "notes"]


class BuildOut(ModelSchema):
    major: str

    class Meta:
        model = Build
        fields = ["id", "name", "version", "kind", "notes"]


class ScenarioOut(ModelSchema):
    class Meta:
        model = Scenario
        fields = [
            "id",
            "slug",
            "name",
            "description",
            "builtin",
            "script",
            "scale",
            "fillfactor",
            "reset",
            "prewarm",
            "protocol",
            "thread_rule",
            "source",
        ]


class StudyOut(BaseModel):
    """A study: measured here or published. Plain pydantic over values() rows, as TrialOut."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    title: str
    year: int
    year_inferred: bool
    kind: str
    status: str
    official: bool
    statistic: str
    source: str
    hardware: str
    os: str
    db_host_id: int | None
    client_host_id: int | None
    baseline_id: int | None
    build_ids: list[int]
    scenario_slugs: list[str]
    client_levels: list[int]
    repetitions: int | None
    max_repetitions: int | None
    warmup_runs: int
    duration_s: int
    scale: int
    fillfactor: int | None
    pg_settings: dict[str, Any]
    run_order: str
    host_order: str
    arrangement: str  # studies.Arrangement: sequential, duet, duet_aa
    threshold: float
    notes: str
    conclusions: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class TrialOut(BaseModel):
    """A trial, or a published figure (`published`). A plain pydantic model, not a ninja Schema: pages of hundreds
    of trials validate in pydantic's core, without ninja's per-attribute getter (bench/api_read.py)."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    study_id: int
    build_id: int
    scenario_id: int
    host_id: int | None
    clients: int
    conditions: str
    threads: int | None
    repetition: int | None
    warmup: bool
    duet_half: int | None  # a duet's side: the half of the DB host's CPUs it ran on (0, 1), and their list
    duet_cpus: str
    position: int | None
    status: str
    attempts: int
    published: bool
    statistic: str
    tps: float | None
    tps_including_connections: float | None
    latency_avg_ms: float | None
    latency_stddev_ms: float | None
    transactions: int | None
    failed_transactions: int | None
    command: str
    pgbench_version: str
    server_version: str
    started_at: datetime | None
    finished_at: datetime | None
    error: str
    failure_kind: str  # studies.FailureKind, empty while none failed: what the error's words never decide
    notes: str
    # The line it belongs to: its variant (the build's name for a trial without one) and the variant's level of each
    # axis its study varies (variant_design.variant_levels; empty in a study of builds).
    variant_id: int | None
    variant_label: str
    axes: dict[str, str]


class PointOut(Schema):
    """A study point: the median and mean of a variant (a build, in a study of builds) x scenario x clients (x
    conditions), the figure its study reports (`statistic`), and its ratio to the baseline where it differs from the
    baseline in one axis alone (`ratio_axis`; every other comparison is in ComparisonOut)."""

    build_id: int
    build_name: str
    build_version: str
    variant_id: int | None
    variant_label: str
    axes: dict[str, str]
    scenario_slug: str
    clients: int
    conditions: str
    statistic: str
    median: float
    mean: float | None
    mean_low: float | None
    mean_high: float | None
    minimum: float | None
    maximum: float | None
    n: int | None
    runs: list[float]
    ratio: float | None
    ratio_low: float | None
    ratio_high: float | None
    confidence: float | None
    interval_method: str | None
    verdict: str | None
    ratio_axis: str | None
    compared_with: str | None
    # The point's first round against its other runs (+0.18: 18% faster), the study's over its points, and the
    # chance of the study's where the host does not warm up (studies/results/first_round.py).
    first_round_effect: float | None
    study_first_round_effect: float | None
    study_first_round_p: float | None


class ComparisonOut(Schema):
    """One cell compared with the cell that differs from it in exactly one axis: the axis, both sides' levels on it,
    the other axes' levels (`context`), both cells' lines and medians, and the ratio with its interval and verdict."""

    scenario_slug: str
    clients: int
    conditions: str
    axis: str
    level: str
    reference_level: str
    context: dict[str, str]
    line_id: int
    line: str
    compared_with_id: int
    compared_with: str
    median: float
    compared_with_median: float
    ratio: float | None
    ratio_low: float | None
    ratio_high: float | None
    confidence: float | None
    verdict: str | None
    method: str | None


class IndexPointOut(Schema):
    """One version on a scenario's chained index; `study_id` is the study whose link reached it."""

    version: str
    index: float
    segment: int
    starts_segment: bool
    reached_from: str | None
    backward: bool
    gap_from: str | None
    study_id: int | None
    index_low: float | None  # the index's interval along its links; None where a link has no runs behind it
    index_high: float | None


class TrendOut(Schema):
    scenario_slug: str
    scenario_name: str
    index: list[IndexPointOut]


class LinkOut(Schema):
    """One study's ratio between two major versions, and what became of it: used, preferred or joined."""

    older_version: str
    newer_version: str
    older_build: str
    newer_build: str
    ratio: float
    ratio_low: float | None  # the ratio's interval from the runs at every level; None for published figures
    ratio_high: float | None
    study_id: int
    study_year: int
    study_title: str
    statistic: str
    levels: list[str]
    verdict: str


class EvidencePointOut(Schema):
    """What sar, wait events and pgbench's progress say about one build x clients of a study (docs/CSV.md)."""

    scenario: str
    build: str
    build_version: str
    baseline: bool
    clients: int
    trials: int
    cpu_user: float | None
    cpu_system: float | None
    cpu_iowait: float | None
    cpu_steal: float | None
    cpu_idle: float | None
    cpu_busy: float | None
    cpu_ms_per_transaction: float | None
    disk_util_percent: float | None
    disk_await_ms: float | None
    wait_samples: int
    active_backends: float | None
    tps_cv_max: float | None
    unstable_trials: int
    bottleneck: str
    bottleneck_rule: str
    bottleneck_value: float | None
    bottleneck_threshold: float | None


class TrialEvidenceOut(ModelSchema):
    """One trial's evidence summary; its per-second series are in /studies/trials/<id>/series.csv."""

    trial_id: int

    class Meta:
        model = TrialEvidence
        exclude = ["trial", "series", "perf_flame"]
