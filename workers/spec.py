"""Plain data that crosses between the database side and the engine.

The engine never sees a Django model: benchdash/studies/lifecycle/specs.py builds these from rows, and
benchdash/studies/lifecycle/services.py turns a TrialOutcome back into rows.
"""

import posixpath
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar

from workers.failure_kind import FailureKind
from workers.initdb_options import InitdbOptions


class Reset(StrEnum):
    """When a scenario's data is rebuilt: once per study (per build), at the first trial of each build
    in each round, or before every trial. The plan decides which trials reset (studies/lifecycle/plan.py)."""

    ONCE = "once"
    ROUND = "round"
    TRIAL = "trial"


class Prewarm(StrEnum):
    """When pgbench_accounts is loaded into shared buffers (pg_prewarm): never, at the start of each
    round (seed 001, Windows 更新系: 各測定周の初めに), or before every run. The plan marks the trials."""

    NONE = "none"
    ROUND = "round"
    TRIAL = "trial"


class RunOrder(StrEnum):
    """The order of a study's trials within each round: shuffled by the study's seed (the fixed-point
    observation: ランダムな順序で3回繰り返す), or fixed, client levels ascending (seed 001, Windows:
    上記順番で1回ずつ測定、これを3周する)."""

    RANDOM = "random"
    ASCENDING = "ascending"


@dataclass(frozen=True)
class HostSpec:
    """How to reach a host. `host_key` is the pinned public key ('ssh-ed25519 AAAA...'). `allow_link_local`: an
    administrator lets the worker connect to an address that workers/addresses.py refuses."""

    name: str
    address: str = ""
    port: int = 22
    username: str = ""
    key_path: str = ""
    host_key: str = ""
    work_dir: str = "/var/lib/benchdash"
    allow_link_local: bool = False
    # The installation (one store and its workers) the host works for here: "" for a run by hand. Installations that
    # share a host each keep their data in their own part of its work dir (for_installation).
    installation: str = ""

    @property
    def is_local(self) -> bool:
        return self.name == "local"

    def for_installation(self, installation: str) -> "HostSpec":
        """The host as one installation sees it: its work dir is the installation's part of the host's, named by its
        id, beside the host-wide lock that all of them share (workers/host_lock.py)."""
        return replace(self, work_dir=posixpath.join(self.work_dir, installation), installation=installation)

    @property
    def lock_path(self) -> str:
        """The host-wide lock file, in the work dir the installations share; "" for a run by hand (no lock)."""
        return posixpath.join(posixpath.dirname(self.work_dir), "host.lock") if self.installation else ""


@dataclass(frozen=True)
class BuildSpec:
    """A PostgreSQL build: installed bin directory, an archive on the worker's machine, or a source build (a tarball
    on the worker in archive_path, or a git URL and ref; patches on the worker; see source_build.py)."""

    name: str
    kind: str  # "installed" | "archive" | "source"
    version: str = ""
    bin_dir: str = ""
    archive_path: str = ""
    archive_integrity: str = ""  # "sha512-<base64>", recorded when the archive was fetched
    source_url: str = ""
    git_ref: str = ""
    configure_flags: str = ""
    patches: tuple[str, ...] = ()
    source_digest: str = ""  # sha256 of source + patches + options, recorded when the source build was registered


@dataclass(frozen=True)
class ScenarioSpec:
    """A workload and the procedure around it. `checkpoint_vacuum`: CHECKPOINT, then VACUUM, after each run;
    `reset_vacuum_full`: VACUUM FULL, CHECKPOINT, ANALYZE after each rebuild of the data (seed 001)."""

    slug: str
    builtin: str = ""  # "", "tpcb-like", "select-only", "simple-update"
    script: str = ""
    reset: str = Reset.ONCE
    prewarm: str = Prewarm.NONE
    checkpoint_vacuum: bool = False
    reset_vacuum_full: bool = False
    protocol: str = "simple"


@dataclass(frozen=True)
class CpuQuotaSpec:
    """A calibration's trial: the server runs in its cgroup (workers/cpu_quota.py), its CPU use read around the run,
    under this quota a period of 100 ms in microseconds; None: no limit (an unthrottled run, whose use sets the
    quotas of the slowed ones)."""

    quota_us: int | None = None


@dataclass(frozen=True)
class TrialSpec:
    """Everything the runner needs for one trial."""

    trial_id: int
    study_id: int
    db_host: HostSpec
    client_host: HostSpec
    build: BuildSpec
    scenario: ScenarioSpec
    clients: int
    threads: int
    duration_s: int
    repetition: int = 1
    # Which try at the trial this is, and its fencing token "<store>.<attempt id>": a host acts only for
    # the attempt whose token its fence file holds, and a later attempt on it holds a larger attempt id
    # (transport_base.Fence). "": no fence (a run by hand).
    attempt: int = 1
    fence: str = ""
    scale: int = 1
    fillfactor: int | None = None
    pg_settings: dict[str, str] = field(default_factory=dict)
    collect_sar: bool = False
    collect_perf: bool = False
    collect_wait_events: bool = False
    # True when the plan says this trial starts from fresh data (first of the study, of a round,
    # or every trial, as the scenario says); the runner also resets when no data exists yet.
    reset_data: bool = False
    # True when the plan says this trial loads the cache first (every trial, or the first of its data in a
    # round, as the scenario's prewarm rule says); a server that starts cold is warmed whenever the rule is not none.
    prewarm: bool = False
    # Profiling runs are extra, unreported runs: perf is never taken during a measured repetition.
    profile_only: bool = False
    # Leave the server running after a trial that went well, because the next trial on this host uses the
    # same cluster without a reset (prepare_cluster takes it over); a failure or a cancel still stops it.
    keep_server: bool = False
    # Read the hosts' facts in this trial; when False the runner reports known_facts (what an earlier
    # trial of the study found) instead, saving a round trip per trial. Without known_facts it reads them.
    collect_facts: bool = True
    known_facts: dict[str, object] = field(default_factory=dict)
    # The variant's label (notes name it), its cluster options, its CPU count (a CPU set of the DB host's first
    # CPUs; None: all), and its workload: -t transactions per client instead of -T (duration_s then bounds the
    # run), and -C (a new connection per transaction).
    variant: str = ""
    initdb_options: InitdbOptions = field(default_factory=InitdbOptions)
    cpus: int | None = None
    transactions: int | None = None
    connect_each_transaction: bool = False
    # pgbench without -n (it vacuums its tables before the run), and the build whose own pgbench runs, installed on
    # the pgbench host (None: the host's pgbench; on the DB host, the DB build's own where it ships one).
    pgbench_vacuum: bool = False
    pgbench_build: BuildSpec | None = None
    # A side of a duet round (workers/duet.py): the half of the DB host's CPUs it runs on (0 or 1), its side (0 the
    # leader, 1 its partner: its own cluster directory and pgbench name), and the CPUs of its half once the round
    # read them, which the server and pgbench run in (a variant's CPU count takes the first of them).
    duet_half: int | None = None
    duet_side: int | None = None
    cpu_set: tuple[int, ...] = ()
    cpu_quota: CpuQuotaSpec | None = None


@dataclass
class TrialOutcome:
    """What one trial produced. `ok` is False when pgbench aborted, exited non-zero or the target failed."""

    ok: bool
    error: str = ""
    # The host stayed unreachable past the patience (workers.host_wait): the study stops with this error.
    host_unreachable: bool = False
    # Another attempt would fail the same way (storage that cannot keep the outcome): the trial fails at once.
    deterministic: bool = False
    # The DB host runs a trial of another installation, this id's (workers/host_lock.py): the attempt did nothing
    # there, and the trial waits for the host, as for one that runs another study's trial.
    host_busy_with: str = ""
    # What kind of failure it was (None when ok), set where the failure is known: nothing reads `error` to decide.
    failure_kind: FailureKind | None = None
    tps: float | None = None
    tps_including_connections: float | None = None
    latency_avg_ms: float | None = None
    latency_stddev_ms: float | None = None
    transactions: int | None = None
    failed_transactions: int | None = None
    command: str = ""
    pgbench_version: str = ""
    server_version: str = ""
    server_settings: dict[str, str] = field(default_factory=dict)
    host_facts: dict[str, object] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # artifact kind (see studies.Artifact.Kind) -> raw bytes as they came off the target
    artifacts: dict[str, bytes] = field(default_factory=dict)
    # seconds spent in each phase: "install", "reset", "pgbench", "collect", "total"
    timings: dict[str, float] = field(default_factory=dict)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    # A duet side's pgbench run on the DB host's clock: when its gate opened, and when the worker saw it end.
    pgbench_started_at: datetime | None = None
    pgbench_ended_at: datetime | None = None
    # With a CPU quota spec: the CPU seconds the server's cgroup used during pgbench, and the cores that makes.
    server_cpu_s: float | None = None
    server_cores: float | None = None


Spec = TypeVar("Spec", HostSpec, BuildSpec, ScenarioSpec)


def spec_from_row(spec_class: type[Spec], row: Any, **given: Any) -> Spec:
    """A spec filled from the row's attributes of the same names, but for the fields given: the field lists are the
    mapping."""
    from_row = {field.name: getattr(row, field.name) for field in fields(spec_class) if field.name not in given}
    return spec_class(**from_row, **given)
