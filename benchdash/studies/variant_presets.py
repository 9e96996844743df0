"""The seeds' studies that compare something other than versions, as study presets with their axes (`vary`).

Each reproduces its seed's design with the client levels and repetitions the seed states, and says where it is
silent (NOT_STATED): then it does the plain thing, never a step taken from another seed. Hosts are named by what
they are (physical, kvm-guest, windows, linux, docker-...): a site registers hosts of those names, or edits the
vary box, before queueing. The findings these studies published are in published_findings.py.
"""

from benchdash.studies.presets import CONF_WINDOWS_2020, NOT_STATED, ScenarioPreset, StudyPresetData, procedure_text
from workers.spec import Reset, RunOrder

SOURCE_2014 = "PGECons 2014年度WG1活動報告 (https://www.pgecons.org/downloads/89), as summarised by アシスト (seed 004)"
SOURCE_2020_OS = "PGECons 2020年度 Windows版定点観測検証, Linux WindowsOS 比較検証 (seed 001)"
SOURCE_2008 = "DoRuby「Postgres8_3⇔8_1の性能比較してみました」 (seed 003)"

DURATION = ("duration (-T)", f"{NOT_STATED} in the seed: 60 s, benchdash's default; set it in the form")
REPETITIONS_2014 = ("repetitions", f"{NOT_STATED} in seed 004 (a summary): 3, with the median, as 2020 and 2021")
SCALE_2014 = ("scale", f"{NOT_STATED} in seed 004: 2000, as the 定点観測 of 2020 and 2021; set it in the form")
SCRIPTS_2014 = (
    "workload",
    "「前述した定点観測と同じ参照および更新処理」; the 2014 scripts are not in seed 004: the 定点観測 scripts of "
    "seed 000 (参照系 reads 10,000 rows: 「10,000行のデータをランダムに取得する処理」)",
)
# Seed 004 states no setting, but its sessions (up to 384) need more connections than the default 100.
CONF_2014 = {"max_connections": "500"}
SETTINGS_2014 = (
    "postgresql.conf",
    f"{NOT_STATED} in seed 004: the server's defaults but max_connections = 500, as 2020 and 2021, for 384 sessions",
)
# Seed 004 names the sessions where TPS peaked (24, 48, 80, 192, 320, 384) and the ranges, not the levels measured.
LADDER_2014_REFERENCE = (1, 8, 16, 24, 32, 48, 64, 80, 96, 128)
LADDER_2014_UPDATE = (1, 16, 32, 64, 128, 192, 256, 320, 384)
LADDER_2014_KVM = (1, 8, 16, 24, 32, 48, 64)
LADDER_NOT_STATED = f"{NOT_STATED} as a list"
WINDOWS_REFERENCE_LADDER = (1, 2, 4, 8, 16, 24, 32, 40, 48)
WINDOWS_UPDATE_LADDER = (1, 16, 32, 64, 96, 128, 160, 192)
DORUBY_COMMON = (
    (
        "repetitions",
        "「各結果値については、それぞれの条件で10回行い、その平均値を算出」: 10 (benchdash shows the median)",
    ),
    (
        "TPS",
        "「tps値(※)については、including connections establishing の値を取得」: "
        "both are kept where pgbench prints both",
    ),
    ("postgresql.conf", "「設定ファイルについては、ほぼデフォルト値を使用する」: the server's defaults"),
    ("procedure", "the doruby-tpcb scenario: fresh data for every run, no prewarm, nothing after the run"),
    ("run order", f"{NOT_STATED}: random, each round shuffled (benchdash's default)"),
)

VARIANT_SCENARIOS: tuple[ScenarioPreset, ...] = (
    ScenarioPreset(
        slug="doruby-tpcb",
        name="DoRuby 2008: pgbench's TPC-B as the post ran it",
        description=(
            "pgbench's built-in script with seed 003's plain procedure: fresh data for every run "
            "(its HOT test reads the table after one run of 「pgbench -c 10 -t 10000」), no prewarm, "
            "nothing after the run.\n"
            + procedure_text(
                ("fillfactor", "100 (pgbench's default) unless a variant sets it: 「-F 90」"),
                ("threads (-j)", f"{NOT_STATED}: pgbench's default, 1"),
                ("prewarm", f"{NOT_STATED}: none"),
                ("after each run", f"{NOT_STATED}: nothing"),
            )
        ),
        source=SOURCE_2008,
        builtin="tpcb-like",
        scale=25,
        fillfactor=100,
        reset=Reset.TRIAL.value,
    ),
)

VARIANT_PRESETS: tuple[StudyPresetData, ...] = (
    StudyPresetData(
        slug="pgecons-2014-checksums",
        name="PGECons 2014: page checksums on and off (参照系)",
        scenario_slugs=("pgecons-reference",),
        client_levels=LADDER_2014_REFERENCE,
        pg_settings=CONF_2014,
        source=SOURCE_2014 + ", ページチェックサム p16-p18",
        vary="checksums=off,on",
        procedure=procedure_text(
            ("compared", "「データベースクラスタ作成時に「-k」オプションをつける」: initdb -k vs none, on 9.4"),
            ("client levels", f"「セッション数を1から128まで変化させて」 (定点観測): {LADDER_NOT_STATED}"),
            SCRIPTS_2014,
            REPETITIONS_2014,
            SCALE_2014,
            SETTINGS_2014,
            DURATION,
        ),
    ),
    StudyPresetData(
        slug="pgecons-2014-core-scalability",
        name="PGECons 2014: 更新系 scalability by CPU count (15, 30, 45, 60 cores)",
        scenario_slugs=("pgecons-update",),
        client_levels=LADDER_2014_UPDATE,
        pg_settings=CONF_2014,
        source=SOURCE_2014 + ", 更新系 p19-p36",
        vary="cpus=15,30,45,60",
        procedure=procedure_text(
            ("compared", "「コア数を15、30、45、60に」: the server's CPU set, for each build (9.3 and 9.4 RC1)"),
            (
                "client levels",
                f"「セッション数を1から最大384まで変化させて」: {LADDER_NOT_STATED}; 192, 320, 384 named",
            ),
            (
                "evidence",
                "「CPUやディスクI/Oがボトルネックではないことはsarコマンドによるシステム稼働情報から把握」: sar on",
            ),
            SCRIPTS_2014,
            REPETITIONS_2014,
            SCALE_2014,
            SETTINGS_2014,
            DURATION,
        ),
    ),
    *(
        StudyPresetData(
            slug=f"pgecons-2014-kvm-{kind}",
            name=f"PGECons 2014: physical server vs KVM guest ({label})",
            scenario_slugs=(scenario,),
            client_levels=LADDER_2014_KVM,
            pg_settings=CONF_2014,
            source=SOURCE_2014 + ", KVM p37-p48",
            vary="host=physical,kvm-guest\ncpus=10",
            procedure=procedure_text(
                (
                    "compared",
                    "「物理、仮想サーバともにCPUコア数を10、メモリサイズを96GBに統一」: hosts physical and kvm-guest",
                ),
                ("client levels", f"{LADDER_NOT_STATED}: the peaks 「24セッション」 and 「48セッション」 are named"),
                (
                    "evidence",
                    "「sarコマンドによるCPU使用状況をみると、仮想サーバではセッション数の増加に伴いstealの値が大きくなり」",
                ),
                SCRIPTS_2014,
                REPETITIONS_2014,
                SCALE_2014,
                SETTINGS_2014,
                DURATION,
            ),
        )
        for kind, label, scenario in (
            ("reference", "参照系", "pgecons-reference"),
            ("update", "更新系", "pgecons-update"),
        )
    ),
    StudyPresetData(
        slug="pgecons-2014-kvm-two-guests",
        name="PGECons 2014: two KVM guests loaded at once (更新系)",
        scenario_slugs=("pgecons-update",),
        client_levels=LADDER_2014_KVM,
        pg_settings=CONF_2014,
        source=SOURCE_2014 + ", KVM p37-p48",
        vary="host=kvm-guest-1,kvm-guest-2\ncpus=10",
        procedure=procedure_text(
            (
                "compared",
                "「同じコア数とメモリを割り当てた仮想サーバを同一の物理サーバ上に2台用意し、"
                "更新処理をそれぞれのサーバに対して同時実行」: "
                "two DB hosts run at the same time; the one-guest-alone baseline is the kvm-update preset",
            ),
            ("client levels", LADDER_NOT_STATED),
            SCRIPTS_2014,
            REPETITIONS_2014,
            SCALE_2014,
            SETTINGS_2014,
            DURATION,
        ),
    ),
    *(
        StudyPresetData(
            slug=f"pgecons-2014-docker-{kind}",
            name=f"PGECons 2014: Docker, 4 patterns and no container ({label})",
            scenario_slugs=(scenario,),
            client_levels=LADDER_2014_REFERENCE,
            pg_settings=CONF_2014,
            source=SOURCE_2014 + ", Docker p49-p61",
            vary="host=no-container,docker-hostfs-hostnet,docker-hostfs-bridge,docker-containerfs-hostnet,"
            "docker-containerfs-bridge",
            procedure=procedure_text(
                (
                    "compared",
                    "「ファイルシステムの配置場所(ホスト直接またはコンテナ内)、ネットワークの種別(ホスト直接または仮想ネットワーク)」"
                    "「非コンテナ環境を加えた合計5パターン」: five DB hosts",
                ),
                ("client levels", LADDER_NOT_STATED),
                SCRIPTS_2014,
                REPETITIONS_2014,
                SCALE_2014,
                SETTINGS_2014,
                DURATION,
            ),
        )
        for kind, label, scenario in (
            ("reference", "参照系", "pgecons-reference"),
            ("update", "更新系", "pgecons-update"),
        )
    ),
    *(
        StudyPresetData(
            slug=f"pgecons-2020-os-{kind}",
            name=f"PGECons 2020: Windows vs Linux on one dual-boot server ({label})",
            scenario_slugs=(scenario,),
            client_levels=ladder,
            pg_settings=CONF_WINDOWS_2020,
            source=SOURCE_2020_OS + ", p.22",
            vary="host=windows,linux",
            run_order=RunOrder.ASCENDING.value,
            procedure=procedure_text(
                (
                    "compared",
                    "「DB serverにデュアルブートでインストールしたRHEL 8.3に OSを切り替えて、"
                    "構成や検証モデルと測定フロー、"
                    "conf設定などすべてWindowsOS版測定と同条件としたうえで PostgreSQL 13での比較検証を実施」",
                ),
                ("client levels, run order, repetitions", "those of the Windows procedure (p.17, p.18)"),
                (
                    "postgresql.conf",
                    "the Windows study's (pgecons-2020-windows presets): choose it as the settings preset",
                ),
                DURATION,
            ),
        )
        for kind, label, scenario, ladder in (
            ("reference", "参照系", "pgecons-windows-reference", WINDOWS_REFERENCE_LADDER),
            ("update", "更新系", "pgecons-windows-update", WINDOWS_UPDATE_LADDER),
        )
    ),
    StudyPresetData(
        slug="doruby-2008-transactions",
        name="DoRuby 2008: TPS by transactions per client (-t 10 .. 1000)",
        scenario_slugs=("doruby-tpcb",),
        client_levels=(10,),
        pg_settings={},
        source=SOURCE_2008 + ", テスト1 ②",
        vary="transactions=10,100,500,1000",
        repetitions=10,
        scale=25,
        procedure=procedure_text(
            ("compared", "「pgbench -c 10 -t XX -s 25 pgbench_test」「XXの数値を 10~1000までのtps値の結果を測定」"),
            ("scale", "「スケーリングファクターを25で設定」: 25"),
            *DORUBY_COMMON,
        ),
    ),
    StudyPresetData(
        slug="doruby-2008-hot",
        name="DoRuby 2008: HOT and fillfactor, table size and dead tuples before and after",
        scenario_slugs=("doruby-tpcb",),
        client_levels=(10,),
        pg_settings={},
        source=SOURCE_2008 + ", テスト2",
        vary="fillfactor=100,90\ntransactions=10000",
        repetitions=1,
        scale=10,
        procedure=procedure_text(
            (
                "compared",
                "「pgbench -i -s 10 -F 90 hot_test」 vs 「pgbench -i -s 10 hot_test」, "
                "then 「pgbench -c 10 -t 10000 hot_test」",
            ),
            (
                "measured",
                "「SELECT pg_size_pretty(pg_relation_size(‘accounts’))」「SELECT * FROM pgstattuple(‘accounts’)」: "
                "table health",
            ),
            ("scale", "「pgbench -i -s 10」: 10"),
            ("repetitions", f"{NOT_STATED} for テスト2 (one reading each): 1"),
            ("postgresql.conf", "「設定ファイルについては、ほぼデフォルト値を使用する」: the server's defaults"),
        ),
    ),
)
