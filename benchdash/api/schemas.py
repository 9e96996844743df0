"""What the API answers, item by item: the OpenAPI schema is made from these classes (docs/API.md)."""

from datetime import datetime

from ninja import ModelSchema, Schema
from pydantic import BaseModel, ConfigDict

from benchdash.inventory.models import Build, Host
from benchdash.studies.models import Scenario, Study, TrialEvidence


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


class StudyOut(ModelSchema):
    db_host_id: int | None
    client_host_id: int | None
    baseline_id: int | None
    build_ids: list[int]
    scenario_slugs: list[str]

    class Meta:
        model = Study
        fields = [
            "id",
            "title",
            "year",
            "year_inferred",
            "kind",
            "status",
            "official",
            "statistic",
            "source",
            "hardware",
            "os",
            "client_levels",
            "repetitions",
            "max_repetitions",
            "duration_s",
            "scale",
            "fillfactor",
            "pg_settings",
            "run_order",
            "threshold",
            "notes",
            "conclusions",
            "created_at",
            "started_at",
            "finished_at",
        ]

    @staticmethod
    def resolve_build_ids(study: Study) -> list[int]:
        return sorted(build.pk for build in study.builds.all())

    @staticmethod
    def resolve_scenario_slugs(study: Study) -> list[str]:
        return sorted(scenario.slug for scenario in study.scenarios.all())


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
    notes: str


class PointOut(Schema):
    """A study point: the median of a build x scenario x clients (x conditions), and its ratio to the baseline."""

    build_id: int
    build_name: str
    build_version: str
    scenario_slug: str
    clients: int
    conditions: str
    median: float
    minimum: float | None
    maximum: float | None
    n: int | None
    runs: list[float]
    ratio: float | None
    ratio_low: float | None
    ratio_high: float | None
    confidence: float | None
    verdict: str | None


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
