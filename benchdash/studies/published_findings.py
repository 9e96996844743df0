"""Published findings: what the seeds state about comparisons other than one version's TPS (checksums, CPU count,
virtualisation, containers, operating system, transactions per client, fillfactor and HOT, connection time).

Each finding is a statement of one source, with its number only where the source prints one (`value` None: the
source says it in words only, and `unstated` says what it leaves out). A study page shows the findings of what its
variants vary (findings_for_variants) and, on a published study, those of its own source (findings_for_source), the
way it shows the figures of a version comparison. Quotes are the seeds' words (../shared/seeds/).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q

from benchdash.studies.models import Study, Variant

SEED_004 = "PGECons 2014年度WG1活動報告 (https://www.pgecons.org/downloads/89), as summarised by アシスト (seed 004)"
SEED_003 = "DoRuby「Postgres8_3⇔8_1の性能比較してみました」 (seed 003)"
SEED_002 = "EDB Japan blog, COMMIT performance of 9.4, 9.6 and 11 (seed 002)"
SEED_001 = "PGECons 2020年度 Windows版定点観測検証, Linux WindowsOS 比較検証 (seed 001)"
# A published study's source names its document by these words (data/published_results.csv).
SOURCE_WORDS = {SEED_004: "PGECons 2014年度", SEED_003: "DoRuby", SEED_002: "EDB Japan", SEED_001: "PGECons 2020年度"}

# What a study varies (queue_study --vary's axis names) -> the Variant field that differs.
AXIS_FIELDS = {
    "checksums": "data_checksums",
    "cpus": "cpus",
    "fillfactor": "fillfactor",
    "host": "db_host",
    "transactions": "transactions",
    "connect": "connect_each_transaction",
}


@dataclass(frozen=True)
class Finding:
    """One statement of a source: `value` in `unit` as `qualifier` says (e.g. "up to about" 10 %), or None."""

    source: str
    axis: str
    workload: str
    versions: str
    compared: str
    measure: str
    value: float | None
    unit: str
    qualifier: str
    quote: str
    unstated: str

    @property
    def figure(self) -> str:
        """The number as the source prints it: 34,000, 8.66, 1.7; "" without one."""
        if self.value is None:
            return ""
        return f"{int(self.value):,}" if self.value == int(self.value) else str(self.value)


_KVM = "KVM guest vs physical server, 10 cores and 96 GB each (「CPUコア数を10、メモリサイズを96GBに統一」)"
_KVM_UNSTATED = "the version, the repetitions and the statistic; a table of the figures (shown as charts 図7-図9 only)"
_DOCKER = "4 Docker patterns (data on the host or in the container; host or virtual network) vs no container"
_HOT_UNSTATED = (
    "whether 「10回行い、その平均値」 (前提) covers テスト2; the scale is 10 here (「-s 10」), not the 25 of テスト1"
)
_T_TABLE = "8.1.4 vs 8.3.1, pgbench -c 10 -t N -s 25 (テスト1 ②)"
_T_QUOTE = (
    "「各結果値については、それぞれの条件で10回行い、その平均値を算出」"
    "「including connections establishing の値を取得」"
)

FINDINGS: tuple[Finding, ...] = (
    Finding(
        SEED_004,
        "host",
        "参照系",
        "not stated",
        _KVM,
        "TPS gap, guest below physical",
        10,
        "%",
        "up to about",
        "「24セッションまではセッション数の増加に伴って仮想サーバとの性能差が拡大し、最大約10%の差が確認されました」",
        _KVM_UNSTATED,
    ),
    Finding(
        SEED_004,
        "host",
        "参照系",
        "not stated",
        _KVM,
        "sessions of the highest TPS, physical",
        24,
        "sessions",
        "as stated",
        "「最も性能が高くなるセッション数は物理サーバではCPUコア数と同じ24セッション」",
        "why 24 equals the core count when the servers had 10 cores: the summary says both",
    ),
    Finding(
        SEED_004,
        "host",
        "参照系",
        "not stated",
        _KVM,
        "sessions of the highest TPS, guest",
        48,
        "sessions",
        "as stated",
        "「仮想サーバでは48セッションが最も性能が高く」",
        _KVM_UNSTATED,
    ),
    Finding(
        SEED_004,
        "host",
        "更新系",
        "not stated",
        _KVM,
        "TPS gap at the peak, guest below physical",
        40,
        "%",
        "at the peak",
        "「ピーク時の物理サーバとの性能差は40%という結果となりました」",
        _KVM_UNSTATED,
    ),
    Finding(
        SEED_004,
        "host",
        "更新系",
        "not stated",
        _KVM,
        "sar %steal on the guest",
        None,
        "%",
        "rises with sessions",
        "「仮想サーバではセッション数の増加に伴いstealの値が大きくなり」",
        "any %steal figure",
    ),
    Finding(
        SEED_004,
        "host",
        "更新系",
        "not stated",
        "two KVM guests loaded at once vs one guest alone",
        "TPS drop",
        7,
        "%",
        "about",
        "「仮想サーバ単体と比較すると図9にあるように7%程度の性能低下が見られました」",
        _KVM_UNSTATED,
    ),
    Finding(
        SEED_004,
        "host",
        "更新系",
        "not stated",
        "the two guests loaded at once, one vs the other",
        "TPS difference",
        None,
        "%",
        "none seen",
        "「2台の仮想サーバに対する更新処理の同時実行では性能差異がなかった」",
        "a figure",
    ),
    Finding(
        SEED_004,
        "host",
        "参照系",
        "not stated",
        _DOCKER,
        "TPS difference",
        None,
        "%",
        "equal in all 5",
        "「すべてのパターンで同等の性能を発揮することが確認されました」",
        "a figure",
    ),
    Finding(
        SEED_004,
        "host",
        "更新系",
        "not stated",
        _DOCKER,
        "TPS difference, data in the container",
        None,
        "%",
        "lower",
        "「ファイルシステムがホスト直接のケース(1および2)とコンテナ内のファイルシステムを利用するケース※1(3および4)で"
        "性能差異が発生しました」",
        "a figure; which pattern is which in 図11 (named in 図12, an image)",
    ),
    Finding(
        SEED_004,
        "checksums",
        "参照系",
        "9.4 RC1",
        "initdb -k (page checksums) vs none",
        "TPS difference",
        None,
        "%",
        "about the same",
        "「ページチェックサムの設定有無や負荷の状況にかかわらず、それぞれ同程度の性能が確認できており」",
        "a figure; 更新系 was not measured (「更新処理への影響度は、今後の性能WGでの定点観測に期待」)",
    ),
    Finding(
        SEED_004,
        "cpus",
        "更新系",
        "9.3",
        "15, 30, 45 and 60 cores",
        "highest TPS (15 cores, 192 sessions)",
        34000,
        "TPS",
        "the highest",
        "「9.3では15コア192セッションの環境下でのTPSが34,000と最も高く、コア数の増加に伴い性能が低下する」",
        "the TPS at 30, 45 and 60 cores (chart only); repetitions and statistic",
    ),
    Finding(
        SEED_004,
        "cpus",
        "更新系",
        "9.4 RC1",
        "15, 30, 45 and 60 cores",
        "highest TPS (15 cores, 320 sessions)",
        41000,
        "TPS",
        "the highest",
        "「最大TPSは15コア320セッションの41,000で、9.3と比べて1.2倍」",
        "the TPS at 30, 45 and 60 cores (chart only); repetitions and statistic",
    ),
    Finding(
        SEED_004,
        "cpus",
        "更新系",
        "9.4 RC1 vs 9.3",
        "15 cores, 384 sessions",
        "TPS ratio",
        1.7,
        "×",
        "as stated",
        "「384セッションで9.3と9.4の値を比較すると9.4が9.3の1.7倍の性能を発揮する」",
        "the TPS themselves",
    ),
    Finding(
        SEED_004,
        "cpus",
        "更新系",
        "9.3, 9.4 RC1",
        "15, 30, 45 and 60 cores",
        "CPU and disk use (sar)",
        None,
        "%",
        "not the bottleneck",
        "「CPUやディスクI/Oがボトルネックではないことはsarコマンドによるシステム稼働情報から把握」",
        "any sar figure",
    ),
    Finding(
        SEED_003,
        "fillfactor",
        "pgbench -c 10 -t 10000",
        "8.1.4",
        "fillfactor 100 (pgbench's default)",
        "pgbench_accounts size before → after",
        128,
        "MB",
        "before",
        "「128 MB」",
        _HOT_UNSTATED,
    ),
    Finding(
        SEED_003,
        "fillfactor",
        "pgbench -c 10 -t 10000",
        "8.1.4",
        "fillfactor 100 (pgbench's default)",
        "pgbench_accounts size before → after",
        141,
        "MB",
        "after",
        "「141 MB  <– 13MB増加」",
        _HOT_UNSTATED,
    ),
    Finding(
        SEED_003,
        "fillfactor",
        "pgbench -c 10 -t 10000",
        "8.1.4",
        "fillfactor 100 (pgbench's default)",
        "pgstattuple dead_tuple_percent before → after",
        0,
        "%",
        "before",
        "「dead_tuple_percent | 0」",
        _HOT_UNSTATED,
    ),
    Finding(
        SEED_003,
        "fillfactor",
        "pgbench -c 10 -t 10000",
        "8.1.4",
        "fillfactor 100 (pgbench's default)",
        "pgstattuple dead_tuple_percent before → after",
        8.66,
        "%",
        "after",
        "「dead_tuple_percent | 8.66」",
        _HOT_UNSTATED,
    ),
    Finding(
        SEED_003,
        "fillfactor",
        "pgbench -c 10 -t 10000",
        "8.3.1 (HOT)",
        "fillfactor 90 (「-F 90」)",
        "pgbench_accounts size before → after",
        137,
        "MB",
        "before and after",
        "「137 MB  <– 増減なし」",
        _HOT_UNSTATED,
    ),
    Finding(
        SEED_003,
        "fillfactor",
        "pgbench -c 10 -t 10000",
        "8.3.1 (HOT)",
        "fillfactor 90 (「-F 90」)",
        "pgstattuple dead_tuple_percent before → after",
        1.48,
        "%",
        "after (0 before)",
        "「dead_tuple_percent | 1.48」",
        _HOT_UNSTATED,
    ),
    *(
        Finding(
            SEED_003,
            "transactions",
            "TPC-B, mean of 10 runs, including connections",
            version,
            _T_TABLE,
            f"TPS at -t {transactions}",
            tps,
            "TPS",
            "as stated",
            _T_QUOTE,
            "threads; the settings (「ほぼデフォルト値」)",
        )
        for transactions, (old, new) in {
            10: (452.462072, 368.715249),
            100: (151.04483, 328.353416),
            500: (112.203988, 202.543517),
            1000: (104.065397, 165.649611),
        }.items()
        for version, tps in (("8.1.4", old), ("8.3.1", new))
    ),
    Finding(
        SEED_002,
        "connect",
        "pgbench -c 256 -j 32 -T 60 -n",
        "11.0 vs 9.4.3",
        "TPS including connections",
        "TPS gain",
        18,
        "%",
        "about",
        "「TPS(including connections establishing)は 約18%」",
        "the TPS themselves",
    ),
    Finding(
        SEED_002,
        "connect",
        "pgbench -c 256 -j 32 -T 60 -n",
        "11.0 vs 9.4.3",
        "TPS excluding connections",
        "TPS gain",
        17,
        "%",
        "about",
        "「TPS(excluding connections establishing)は 約17%多く」",
        "the TPS themselves",
    ),
    Finding(
        SEED_001,
        "host",
        "参照系",
        "13",
        "Linux (RHEL 8.3, xfs) vs Windows Server 2019 (NTFS), one dual-boot server",
        "clients from which Linux is ahead",
        24,
        "clients",
        "beyond",
        "「同時接続数16までは同等の傾向/性能があると言えるが、24接続を超えたところでLinux版が優位に」",
        "the TPS gap (chart only); repetitions and statistic",
    ),
    Finding(
        SEED_001,
        "host",
        "更新系",
        "13",
        "Linux (RHEL 8.3, xfs) vs Windows Server 2019 (NTFS), one dual-boot server",
        "clients from which Linux is clearly ahead",
        64,
        "clients",
        "from (a gap from 32)",
        "「32接続から差が出始め、64接続以降は明確にLinuxの優位を確認」",
        "the TPS gap (chart only); repetitions and statistic",
    ),
    Finding(
        SEED_001,
        "host",
        "更新系",
        "13",
        "Linux (RHEL 8.3, xfs) vs Windows Server 2019 (NTFS), one dual-boot server",
        "sar %util on Linux",
        100,
        "%",
        "stuck at",
        "「Linuxもsarによる%utilは100%に張り付いておりI/Oネックが確認された」",
        "the Windows side's disk figures",
    ),
)


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
    return [finding for finding in FINDINGS if SOURCE_WORDS[finding.source] in study.source]


def study_findings(study: Study) -> list[Finding]:
    """What the study page shows: its source's findings, then those of what it varies, each once."""
    return list(dict.fromkeys([*findings_for_source(study), *findings_for_variants(study)]))
