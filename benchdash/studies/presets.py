"""The seeds' workloads and study designs, as plain data that `load_presets` writes into the database.

The scripts are word for word from the seed documents, with two corrections the seeds need to run:
the Japanese font shows `\\set` as `¥set`, and 000 writes `random(1 :aid_max)` where pgbench needs
`random(1, :aid_max)` (as 001 writes it).
"""

from dataclasses import dataclass

SOURCE_2021 = "PGECons 2021年度WG1活動報告 定点観測（バージョン間性能比較） (seed 000)"
SOURCE_2020 = "PGECons 2020年度 定点観測/スケールアップ検証・Windows版定点観測検証 (seed 001)"

REFERENCE_SCRIPT = """\
\\set naccounts 100000 * :scale
\\set row_count 10000
\\set aid_max :naccounts - :row_count
\\set aid random(1, :aid_max)
SELECT count(abalance) FROM pgbench_accounts
WHERE aid BETWEEN :aid and :aid + :row_count;
"""

UPDATE_SCRIPT = """\
\\set naccounts 100000 * :scale
\\set aid_val random(1, :naccounts)
UPDATE pgbench_accounts
SET filler=repeat(md5(current_timestamp::text),2)
WHERE aid = :aid_val;
"""

PROCEDURE = (
    "Procedure from the seeds: threads = clients / 2 (at least 1); SELECT pg_prewarm('pgbench_accounts') "
    "before measuring; "
)


@dataclass(frozen=True)
class ScenarioPreset:
    """Field values of one benchdash.studies.models.Scenario row, keyed by its slug."""

    slug: str
    name: str
    description: str
    source: str
    builtin: str = ""
    script: str = ""
    scale: int = 2000
    fillfactor: int | None = None
    reset: str = "once"
    prewarm: bool = True
    checkpoint_vacuum: bool = False
    protocol: str = "simple"
    thread_rule: str = "half"


@dataclass(frozen=True)
class StudyPresetData:
    """Field values of one StudyPreset row; `scenario_slugs` name its scenarios."""

    slug: str
    name: str
    scenario_slugs: tuple[str, ...]
    client_levels: tuple[int, ...]
    pg_settings: dict[str, str]
    source: str
    repetitions: int = 3
    scale: int = 2000
    # The seeds do not state the run length; this is the model default, to be set in the form.
    duration_s: int = 60


SCENARIOS: tuple[ScenarioPreset, ...] = (
    ScenarioPreset(
        slug="pgecons-reference",
        name="PGECons 参照系 (10,000-row range count)",
        description=(
            "Reads 10,000 consecutive rows of pgbench_accounts from a random start and counts them. "
            + PROCEDURE
            + "3 repetitions in random order, median TPS. Script word for word from seed 000 except "
            "'random(1 :aid_max)', which pgbench rejects: the working form 'random(1, :aid_max)' is taken from 001."
        ),
        source=SOURCE_2021 + ", 検証手続き > 参照系, ベンチマークシナリオ",
        script=REFERENCE_SCRIPT,
    ),
    ScenarioPreset(
        slug="pgecons-update",
        name="PGECons 更新系 (filler update)",
        description=(
            "Updates the filler column of one random pgbench_accounts row. "
            + PROCEDURE
            + "CHECKPOINT and VACUUM after each run; $PGDATA rebuilt for every trial (pgbench -i -F 80). "
            "Script word for word from seed 000."
        ),
        source=SOURCE_2021 + ", 検証手続き > 更新系 and 検証データベースサイズ (-F 80)",
        script=UPDATE_SCRIPT,
        fillfactor=80,
        reset="trial",
        checkpoint_vacuum=True,
    ),
    ScenarioPreset(
        slug="pgbench-tpcb",
        name="pgbench built-in TPC-B (sort of)",
        description=PROCEDURE + "CHECKPOINT and VACUUM after each run; data rebuilt every round.",
        source="pgbench built-in tpcb-like; procedure from seed 001 検証方法（更新系） p.18",
        builtin="tpcb-like",
        reset="round",
        checkpoint_vacuum=True,
    ),
    ScenarioPreset(
        slug="pgbench-select-only",
        name="pgbench built-in select only",
        description=PROCEDURE + "data built once per study.",
        source="pgbench built-in select-only; procedure from seed 001 検証方法（参照系） p.17",
        builtin="select-only",
    ),
    ScenarioPreset(
        slug="pgbench-simple-update",
        name="pgbench built-in simple update",
        description=PROCEDURE + "CHECKPOINT and VACUUM after each run; data rebuilt every round.",
        source="pgbench built-in simple-update; procedure from seed 001 検証方法（更新系） p.18",
        builtin="simple-update",
        reset="round",
        checkpoint_vacuum=True,
    ),
)

# The values as written in the seeds' postgresql.conf (the comments there say why each is set), but one:
# the seeds set listen_addresses = '*' because pgbench ran on a second machine. Where the server listens is
# the engine's business (it listens on the DB host's address when the pgbench host is another one, see
# workers/cluster.py cluster_for), and no study may set it (docs/SECURITY.md), so the presets leave it out.
CONF_2021: dict[str, str] = {
    "max_connections": "500",
    "shared_buffers": "40GB",
    "work_mem": "1GB",
    "maintenance_work_mem": "20GB",
    "checkpoint_timeout": "60min",
    "max_wal_size": "160GB",
    "logging_collector": "on",
    "log_checkpoints": "on",
    "log_lock_waits": "on",
    "autovacuum": "off",
}

CONF_WINDOWS_2020: dict[str, str] = {
    "max_connections": "500",
    "shared_buffers": "64GB",
    "work_mem": "128MB",
    "maintenance_work_mem": "2047MB",
    "checkpoint_timeout": "1d",
    "max_wal_size": "100GB",
    "effective_cache_size": "128GB",
    "autovacuum": "off",
}

REFERENCE_LADDER = (1, 16, 32, 64, 96, 128, 160, 192)
UPDATE_LADDER = REFERENCE_LADDER + (288, 432)
WINDOWS_REFERENCE_LADDER = (1, 2, 4, 8, 16, 24, 32, 40, 48)

STUDY_PRESETS: tuple[StudyPresetData, ...] = (
    StudyPresetData(
        slug="pgecons-2021-reference",
        name="PGECons 2021 定点観測: 参照系",
        scenario_slugs=("pgecons-reference",),
        client_levels=REFERENCE_LADDER,
        pg_settings=CONF_2021,
        source=SOURCE_2021 + ", 検証手続き > 環境 (postgresql.conf) and > 参照系 (8 client levels)",
    ),
    StudyPresetData(
        slug="pgecons-2021-update",
        name="PGECons 2021 定点観測: 更新系",
        scenario_slugs=("pgecons-update",),
        client_levels=UPDATE_LADDER,
        pg_settings=CONF_2021,
        source=SOURCE_2021 + ", 検証手続き > 環境 (postgresql.conf) and > 更新系 (10 client levels, up to 288, 432)",
    ),
    StudyPresetData(
        slug="pgecons-2020-windows-reference",
        name="PGECons 2020 Windows版定点観測: 参照系",
        scenario_slugs=("pgecons-reference",),
        client_levels=WINDOWS_REFERENCE_LADDER,
        pg_settings=CONF_WINDOWS_2020,
        source=SOURCE_2020 + ", 検証手続き > 環境 (postgresql.conf) p.16 and 検証方法（参照系） p.17",
    ),
    StudyPresetData(
        slug="pgecons-2020-windows-update",
        name="PGECons 2020 Windows版定点観測: 更新系",
        scenario_slugs=("pgecons-update",),
        client_levels=REFERENCE_LADDER,
        pg_settings=CONF_WINDOWS_2020,
        source=(
            SOURCE_2020 + ", postgresql.conf p.16 and 検証方法（更新系） p.18 (there: fillfactor 100, "
            "fixed order in 3 rounds, data rebuilt each round)"
        ),
    ),
)
