"""The seeds' workloads and study designs, as plain data that `load_presets` writes into the database.

Each study preset reproduces one seed study's procedure: its scenarios carry the threads rule, prewarm,
fillfactor, data reset and what runs after each run or data rebuild; the preset carries the client
ladder, repetitions, scale, duration, run order and postgresql.conf. Where a seed does not state a step,
the preset says so and does the plain thing (pgbench's default, no extra step), never a step taken from
another seed. tests/studies/test_presets_match_seeds.py compares each preset with the seeds' text.

The scripts are word for word from the seed documents, with the corrections the seeds need to run:
the Japanese font shows `\\set` as `¥set`; 000 writes `random(1 :aid_max)` where pgbench needs
`random(1, :aid_max)` (as 001 writes it); and 001's lines broken by its PDF layout are joined again.
"""

from dataclasses import dataclass

from workers.spec import Prewarm, Reset, RunOrder

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

# Seed 001 (検証方法（参照系）/（更新系）) prints each statement on one line, broken only by the PDF's width.
WINDOWS_REFERENCE_SCRIPT = """\
\\set naccounts 100000 * :scale
\\set row_count 10000
\\set aid_max :naccounts - :row_count
\\set aid random(1, :aid_max)
SELECT count(abalance) FROM pgbench_accounts WHERE aid BETWEEN :aid and :aid + :row_count;
"""

WINDOWS_UPDATE_SCRIPT = """\
\\set naccounts 100000 * :scale
\\set aid_val random(1, :naccounts)
UPDATE pgbench_accounts SET filler=repeat(md5(current_timestamp::text),2) WHERE aid= :aid_val;
"""

# What a seed states, in its own words; where it states nothing, the preset does the plain thing.
NOT_STATED = "not stated"


def procedure_text(*steps: tuple[str, str]) -> str:
    """'step: 「the seed's words」' lines (or 'step: not stated ...'), for a scenario's description or a preset."""
    return "\n".join(f"{step}: {wording}" for step, wording in steps)


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
    reset: str = Reset.ONCE.value
    prewarm: str = Prewarm.NONE.value
    checkpoint_vacuum: bool = False
    reset_vacuum_full: bool = False
    protocol: str = "simple"
    thread_rule: str = "one"


@dataclass(frozen=True)
class StudyPresetData:
    """Field values of one StudyPreset row; `scenario_slugs` name its scenarios."""

    slug: str
    name: str
    scenario_slugs: tuple[str, ...]
    client_levels: tuple[int, ...]
    pg_settings: dict[str, str]
    source: str
    procedure: str
    run_order: str = RunOrder.RANDOM.value
    repetitions: int = 3
    scale: int = 2000
    # No seed states the run length: the model's default, stated as such in `procedure`, to change in the form.
    duration_s: int = 60
    # What the seed compares besides builds, as the vary box takes it (variant_presets.py); empty: builds only.
    vary: str = ""


THREADS_2021 = ("threads (-j)", f"{NOT_STATED} in seed 000: pgbench's default, 1")
PREWARM_2021 = ("prewarm", f"{NOT_STATED} in seed 000: none")
AFTER_RUN_2021 = ("after each run", f"{NOT_STATED} in seed 000: nothing")
SCALE_2021 = (
    "data",
    "「$ pgbench -i -s 2000 《データベース名》 -F 80」「更新系試験のみフィルファクタ80をオプション指定」",
)
THREADS_WINDOWS = ("threads (-j)", "「（スレッド数は半分）」: clients / 2")
FILLFACTOR_WINDOWS = (
    "data",
    "「$ pgbench -i -s 2000 《データベース名》」「fillfactorの設定はデフォルト(テーブルのfillfactor=100)」",
)

SCENARIOS: tuple[ScenarioPreset, ...] = (
    ScenarioPreset(
        slug="pgecons-reference",
        name="PGECons 参照系 (10,000-row range count)",
        description=(
            "Reads 10,000 consecutive rows of pgbench_accounts from a random start and counts them; the 2021 "
            "procedure (seed 000). Script word for word from seed 000 except 'random(1 :aid_max)', which pgbench "
            "rejects: the working form 'random(1, :aid_max)' is taken from 001.\n"
            + procedure_text(
                SCALE_2021,
                ("fillfactor", "100 (pgbench's default: -F 80 is for 更新系 only)"),
                ("data reset", f"{NOT_STATED} for 参照系 (it reads only): built once per study and build"),
                THREADS_2021,
                PREWARM_2021,
                AFTER_RUN_2021,
            )
        ),
        source=SOURCE_2021 + ", 検証手続き > 参照系, ベンチマークシナリオ",
        script=REFERENCE_SCRIPT,
    ),
    ScenarioPreset(
        slug="pgecons-update",
        name="PGECons 更新系 (filler update)",
        description=(
            "Updates the filler column of one random pgbench_accounts row; the 2021 procedure (seed 000). "
            "Script word for word from seed 000.\n"
            + procedure_text(
                SCALE_2021,
                ("fillfactor", "80"),
                ("data reset", "「試行の都度$PGDATAを作り直す」: every trial"),
                THREADS_2021,
                PREWARM_2021,
                AFTER_RUN_2021,
            )
        ),
        source=SOURCE_2021 + ", 検証手続き > 更新系 and 検証データベースサイズ (-F 80)",
        script=UPDATE_SCRIPT,
        fillfactor=80,
        reset=Reset.TRIAL.value,
    ),
    ScenarioPreset(
        slug="pgecons-windows-reference",
        name="PGECons 参照系, 2020 Windows procedure",
        description=(
            "The 10,000-row range count with the 2020 Windows study's procedure (seed 001, 検証方法（参照系）). "
            "Script word for word from seed 001.\n"
            + procedure_text(
                FILLFACTOR_WINDOWS,
                ("data reset", f"{NOT_STATED} for 参照系 (it reads only): built once per study and build"),
                THREADS_WINDOWS,
                (
                    "prewarm",
                    "「測定前に、キャッシュへの読み込みを実施」「SELECT pg_prewarm('pgbench_accounts’);」: "
                    "before every run",
                ),
                ("after each run", f"{NOT_STATED} for 参照系: nothing"),
            )
        ),
        source=SOURCE_2020 + ", 検証方法（参照系） p.17 and 試験データベースサイズ p.16",
        script=WINDOWS_REFERENCE_SCRIPT,
        prewarm=Prewarm.TRIAL.value,
        thread_rule="half",
    ),
    ScenarioPreset(
        slug="pgecons-windows-update",
        name="PGECons 更新系, 2020 Windows procedure",
        description=(
            "The filler update with the 2020 Windows study's procedure (seed 001, 検証方法（更新系） p.18). "
            "Script word for word from seed 001.\n"
            + procedure_text(
                FILLFACTOR_WINDOWS,
                (
                    "data reset",
                    "「各測定周の最後に検証データの再作成と vacuum full, check point, ANALYZEを実施」: every round, "
                    "then VACUUM FULL, CHECKPOINT, ANALYZE",
                ),
                THREADS_WINDOWS,
                ("prewarm", "「各測定周の初めに、キャッシュへの読み込みを実施」: at the start of each round"),
                ("after each run", "「1回測定するたびにcheck pointとvacuumを実施する」: CHECKPOINT, then VACUUM"),
            )
        ),
        source=SOURCE_2020 + ", 検証方法（更新系） p.18 and 試験データベースサイズ p.16",
        script=WINDOWS_UPDATE_SCRIPT,
        reset=Reset.ROUND.value,
        reset_vacuum_full=True,
        prewarm=Prewarm.ROUND.value,
        checkpoint_vacuum=True,
        thread_rule="half",
    ),
    # pgbench's built-in scripts: no seed study ran them with a procedure; benchdash's own, modelled on
    # seed 001's 更新系 (and 参照系 for select-only).
    ScenarioPreset(
        slug="pgbench-tpcb",
        name="pgbench built-in TPC-B (sort of)",
        description=(
            "benchdash's own procedure (no seed study states one for this script): threads = clients / 2, "
            "prewarm before every run, CHECKPOINT then VACUUM after each run, data rebuilt every round."
        ),
        source="pgbench built-in tpcb-like; procedure modelled on seed 001 検証方法（更新系） p.18",
        builtin="tpcb-like",
        reset=Reset.ROUND.value,
        prewarm=Prewarm.TRIAL.value,
        checkpoint_vacuum=True,
        thread_rule="half",
    ),
    ScenarioPreset(
        slug="pgbench-select-only",
        name="pgbench built-in select only",
        description=(
            "benchdash's own procedure (no seed study states one for this script): threads = clients / 2, "
            "prewarm before every run, data built once per study."
        ),
        source="pgbench built-in select-only; procedure modelled on seed 001 検証方法（参照系） p.17",
        builtin="select-only",
        prewarm=Prewarm.TRIAL.value,
        thread_rule="half",
    ),
    ScenarioPreset(
        slug="pgbench-simple-update",
        name="pgbench built-in simple update",
        description=(
            "benchdash's own procedure (no seed study states one for this script): threads = clients / 2, "
            "prewarm before every run, CHECKPOINT then VACUUM after each run, data rebuilt every round."
        ),
        source="pgbench built-in simple-update; procedure modelled on seed 001 検証方法（更新系） p.18",
        builtin="simple-update",
        reset=Reset.ROUND.value,
        prewarm=Prewarm.TRIAL.value,
        checkpoint_vacuum=True,
        thread_rule="half",
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

DURATION_NOT_STATED = ("duration (-T)", f"{NOT_STATED} in the seed: 60 s, benchdash's default; set it in the form")
PROCEDURE_2021 = procedure_text(
    ("run order", "「ランダムな順序で3回繰り返す」: random, each round shuffled"),
    ("repetitions", "「3回繰り返す」「得られたTPSの中央値を結果として採用」: 3, median"),
    ("scale", "「$ pgbench -i -s 2000 《データベース名》 -F 80」: 2000"),
    DURATION_NOT_STATED,
)
PROCEDURE_WINDOWS = (
    ("repetitions", "「3回測定し、中央値を採用」「3周測定した結果の中央値を採用」: 3, median"),
    ("scale", "「$ pgbench -i -s 2000 《データベース名》」: 2000"),
    DURATION_NOT_STATED,
)

STUDY_PRESETS: tuple[StudyPresetData, ...] = (
    StudyPresetData(
        slug="pgecons-2021-reference",
        name="PGECons 2021 定点観測: 参照系",
        scenario_slugs=("pgecons-reference",),
        client_levels=REFERENCE_LADDER,
        pg_settings=CONF_2021,
        source=SOURCE_2021 + ", 検証手続き > 環境 (postgresql.conf) and > 参照系 (8 client levels)",
        procedure=procedure_text(("client levels", "「クライアント同時接続数(8水準)」: 参照系ベンチマーク結果"))
        + "\n"
        + PROCEDURE_2021,
    ),
    StudyPresetData(
        slug="pgecons-2021-update",
        name="PGECons 2021 定点観測: 更新系",
        scenario_slugs=("pgecons-update",),
        client_levels=UPDATE_LADDER,
        pg_settings=CONF_2021,
        source=SOURCE_2021 + ", 検証手続き > 環境 (postgresql.conf) and > 更新系 (10 client levels, up to 288, 432)",
        procedure=procedure_text(
            (
                "client levels",
                "「クライアント同時接続数(10水準)」「192接続で頭打ちにならなかったため、288、432接続で計測」",
            )
        )
        + "\n"
        + PROCEDURE_2021,
    ),
    StudyPresetData(
        slug="pgecons-2020-windows-reference",
        name="PGECons 2020 Windows版定点観測: 参照系",
        scenario_slugs=("pgecons-windows-reference",),
        client_levels=WINDOWS_REFERENCE_LADDER,
        pg_settings=CONF_WINDOWS_2020,
        source=SOURCE_2020 + ", 検証手続き > 環境 (postgresql.conf) p.16 and 検証方法（参照系） p.17",
        procedure=procedure_text(
            ("client levels", "「１，2，4，8，16，24，32，40, 48 で実施（スレッド数は半分）」"),
            (
                "run order",
                f"{NOT_STATED} for 参照系: fixed, client levels ascending, as the same study's 更新系 "
                "「上記順番で1回ずつ測定、これを3周する」",
            ),
            *PROCEDURE_WINDOWS,
        ),
        run_order=RunOrder.ASCENDING.value,
    ),
    StudyPresetData(
        slug="pgecons-2020-windows-update",
        name="PGECons 2020 Windows版定点観測: 更新系",
        scenario_slugs=("pgecons-windows-update",),
        client_levels=REFERENCE_LADDER,
        pg_settings=CONF_WINDOWS_2020,
        source=SOURCE_2020 + ", 検証手続き > 環境 (postgresql.conf) p.16 and 検証方法（更新系） p.18",
        procedure=procedure_text(
            ("client levels", "「1, 16, 32, 64, 96, 128, 160, 192で実施（スレッド数は半分）」"),
            ("run order", "「上記順番で1回ずつ測定、これを3周する」: fixed, client levels ascending"),
            *PROCEDURE_WINDOWS,
        ),
        run_order=RunOrder.ASCENDING.value,
    ),
)
