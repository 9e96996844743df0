"""Each study preset against its seed's text: scale, client ladder, repetitions, run order, threads rule,
prewarm, fillfactor, data reset and what runs after each run, read off the seeds' own words.

The excerpts below are the seeds' text as it stands (000: PGECons 2021, 001: PGECons 2020 Windows); the
values are parsed from them, not written twice. Where a seed states nothing, the preset must not have
borrowed the step from another seed.
"""

import re
import unicodedata

import pytest

from benchdash.studies.seed_data import SCENARIOS, STUDY_PRESETS, ScenarioPreset, StudyPresetData

# seed 000, 検証手続き > 環境 / 参照系 / 更新系 / 参照系ベンチマーク結果
SEED_000 = """\
$ pgbench -i -s 2000 《データベース名》 -F 80
- pgbenchで30GBほどの試験用データベースを作成
- 更新系試験のみフィルファクタ80をオプション指定
検証手続き > 参照系
- PostgreSQLバージョン(2水準)とクライアント同時接続数(8水準)がTPSに及ぼす影響を計測
- $2 \\times 8 = 16$ 種類のベンチマークをランダムな順序で3回繰り返す
- 得られたTPSの中央値を結果として採用
検証手続き > 更新系
- 試行の都度\\$PGDATAを作り直す
(それ以外は参照系と同様)
- PostgreSQLバージョン(2水準)とクライアント同時接続数(10水準)がTPSに及ぼす影響を計測
 - 2020年度、192接続で頭打ちにならなかったため、288、432接続で計測
- 2×10=20種類のベンチマークをランダムな順序で3回繰り返す
- 得られたTPSの中央値を結果として採用
参照系ベンチマーク結果
クライアント数	TPS		前バージョン比
1	437.2413	412.9373	94%
16	4778.467	4668.131	98%
32	8404.637	8193.761	97%
64	8546.134	8361.549	98%
96	8405.358	8229.714	98%
128	8310.025	8120.542	98%
160	8218.915	8055.056	98%
192	8188.156	8000.038	98%
"""
SEED_000_REFERENCE, SEED_000_UPDATE = SEED_000.split("検証手続き > 更新系")
SEED_000_UPDATE = SEED_000_UPDATE.split("参照系ベンチマーク結果")[0]

# seed 001, Windows版定点観測検証: 試験データベースサイズ, 検証方法（参照系）, 検証方法（更新系）
SEED_001_DATA = """\
 pgbenchで30GBほどの試験用データベースを作成
 fillfactorの設定はデフォルト(テーブルのfillfactor=100)、unlogged
tableの指定はなし
 PGDATA領域とWAL格納領域を別パーティーションに分離する
$ pgbench -i -s 2000 《データベース名》
"""
SEED_001_REFERENCE = """\
 同時クライアント数(仮測定により策定)
 １，2，4，8，16，24，32，40, 48 で実施（スレッド数は半分）
 測定前に、キャッシュへの読み込みを実施
 SELECT pg_prewarm('pgbench_accounts’);
 3回測定し、中央値を採用
"""
SEED_001_UPDATE = """\
 同時クライアント数(仮測定により策定)
 1, 16, 32, 64, 96, 128, 160, 192で実施（スレッド数は半分）
 上記順番で1回ずつ測定、これを3周する
 1回測定するたびにcheck pointとvacuumを実施する
 各測定周の初めに、キャッシュへの読み込みを実施
 SELECT pg_prewarm('pgbench_accounts’);
 各測定周の最後に検証データの再作成と
vacuum full, check point, ANALYZEを実施
 3周測定した結果の中央値を採用
"""

PRESETS = {preset.slug: preset for preset in STUDY_PRESETS}
SCENARIO_PRESETS = {preset.slug: preset for preset in SCENARIOS}
# Each preset, the seed text of its study, and the seed text of its data.
STUDIES = {
    "pgecons-2021-reference": (SEED_000_REFERENCE, SEED_000),
    "pgecons-2021-update": (SEED_000_UPDATE, SEED_000),
    "pgecons-2020-windows-reference": (SEED_001_REFERENCE, SEED_001_DATA),
    "pgecons-2020-windows-update": (SEED_001_UPDATE, SEED_001_DATA),
}


def scenario_of(preset: StudyPresetData) -> ScenarioPreset:
    [slug] = preset.scenario_slugs
    return SCENARIO_PRESETS[slug]


def squeezed(text: str) -> str:
    """Without blanks and line breaks (the PDFs broke lines anywhere); 000 is a Markdown rendering, where \\$
    is its escape of $."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).replace("\\$", "$")


def numbers(text: str) -> list[int]:
    return [int(number) for number in re.findall(r"\d+", unicodedata.normalize("NFKC", text))]


def test_every_seed_study_has_its_preset():
    assert set(PRESETS) == set(STUDIES)


@pytest.mark.parametrize("slug", STUDIES)
def test_the_scale_is_the_seeds_pgbench_i_s(slug):
    _, data = STUDIES[slug]
    [scale] = re.findall(r"pgbench -i -s (\d+)", data)
    assert PRESETS[slug].scale == scenario_of(PRESETS[slug]).scale == int(scale)


def test_the_2021_ladders_are_the_published_table_and_the_update_adds_288_and_432():
    table = [int(line.split("\t")[0]) for line in SEED_000.split("前バージョン比\n")[1].splitlines()]
    levels = re.search(r"クライアント同時接続数\((\d+)水準\)", SEED_000_REFERENCE).group(1)
    assert list(PRESETS["pgecons-2021-reference"].client_levels) == table
    assert len(table) == int(levels)
    added = numbers(re.search(r"ため、(.*?)接続で計測", SEED_000_UPDATE).group(1))
    assert list(PRESETS["pgecons-2021-update"].client_levels) == table + added
    assert len(table + added) == int(re.search(r"クライアント同時接続数\((\d+)水準\)", SEED_000_UPDATE).group(1))


@pytest.mark.parametrize(
    ("slug", "text"),
    [("pgecons-2020-windows-reference", SEED_001_REFERENCE), ("pgecons-2020-windows-update", SEED_001_UPDATE)],
)
def test_the_windows_ladders_are_the_seeds(slug, text):
    line = next(line for line in text.splitlines() if "で実施" in line)
    assert list(PRESETS[slug].client_levels) == numbers(line.split("で実施")[0])


@pytest.mark.parametrize("slug", STUDIES)
def test_three_repetitions_and_the_median(slug):
    text, _ = STUDIES[slug]
    stated = re.search(r"(\d)(回繰り返す|回測定し|周する)", text).group(1)
    assert PRESETS[slug].repetitions == int(stated)
    assert "中央値" in text


@pytest.mark.parametrize("slug", STUDIES)
def test_the_run_order_is_random_only_where_the_seed_says_random(slug):
    text, _ = STUDIES[slug]
    if "ランダムな順序" in text:
        assert PRESETS[slug].run_order == "random"
    elif "上記順番で1回ずつ測定" in text:
        assert PRESETS[slug].run_order == "ascending"
    else:  # the Windows 参照系 states none: the same study's 更新系 order, and the preset says so
        assert PRESETS[slug].run_order == "ascending"
        assert "run order: not stated" in PRESETS[slug].procedure


@pytest.mark.parametrize("slug", STUDIES)
def test_the_threads_rule_is_half_only_where_the_seed_says_so(slug):
    text, _ = STUDIES[slug]
    scenario = scenario_of(PRESETS[slug])
    if "スレッド数は半分" in text:
        assert scenario.thread_rule == "half"
    else:  # no -j stated: pgbench's default, never the Windows study's clients / 2
        assert scenario.thread_rule == "one"
        assert "threads (-j): not stated" in scenario.description


@pytest.mark.parametrize("slug", STUDIES)
def test_prewarm_is_what_the_seed_says(slug):
    text, _ = STUDIES[slug]
    scenario = scenario_of(PRESETS[slug])
    if "各測定周の初めに、キャッシュへの読み込み" in text:
        assert scenario.prewarm == "round"
    elif "測定前に、キャッシュへの読み込み" in text:
        assert scenario.prewarm == "trial"
    else:
        assert "pg_prewarm" not in text and "キャッシュへの読み込み" not in text
        assert scenario.prewarm == "none"
        assert "prewarm: not stated" in scenario.description


@pytest.mark.parametrize("slug", STUDIES)
def test_the_fillfactor_is_the_seeds(slug):
    _, data = STUDIES[slug]
    scenario = scenario_of(PRESETS[slug])
    option = re.search(r"pgbench -i -s \d+ 《データベース名》 -F (\d+)", data)
    update_only = "更新系試験のみフィルファクタ" in data
    if option and (slug.endswith("-update") or not update_only):
        assert scenario.fillfactor == int(option.group(1))
    else:  # no -F for this workload: pgbench's default, 100
        assert scenario.fillfactor is None


@pytest.mark.parametrize("slug", STUDIES)
def test_data_is_rebuilt_as_the_seed_says(slug):
    text, _ = STUDIES[slug]
    scenario = scenario_of(PRESETS[slug])
    if squeezed("試行の都度$PGDATAを作り直す") in squeezed(text):
        assert (scenario.reset, scenario.reset_vacuum_full) == ("trial", False)
    elif "各測定周の最後に検証データの再作成" in text:
        # 「vacuum full, check point, ANALYZE」 after the rebuild, in this order (workers/cluster.py)
        assert squeezed("vacuum full, check point, ANALYZE") in squeezed(text)
        assert (scenario.reset, scenario.reset_vacuum_full) == ("round", True)
    else:
        assert (scenario.reset, scenario.reset_vacuum_full) == ("once", False)


@pytest.mark.parametrize("slug", STUDIES)
def test_checkpoint_and_vacuum_follow_each_run_only_where_the_seed_says_so(slug):
    text, _ = STUDIES[slug]
    scenario = scenario_of(PRESETS[slug])
    after_each_run = re.search(r"1回測定するたびに(check point)と(vacuum)を実施", text)
    assert scenario.checkpoint_vacuum is bool(after_each_run)
    if after_each_run:  # the engine runs CHECKPOINT first, as written (tests/engine/test_cluster.py)
        assert after_each_run.start(1) < after_each_run.start(2)


@pytest.mark.parametrize("slug", STUDIES)
def test_every_quote_in_a_preset_is_the_seeds_own_wording(slug):
    preset = PRESETS[slug]
    text, data = STUDIES[slug]
    quotes = re.findall(r"「(.*?)」", preset.procedure + scenario_of(preset).description)
    assert quotes
    seed = squeezed(SEED_000 + SEED_001_DATA + SEED_001_REFERENCE + SEED_001_UPDATE)
    assert [quote for quote in quotes if squeezed(quote) not in seed] == []


def test_no_seed_states_the_run_length_and_the_presets_say_so():
    assert all(preset.duration_s == 60 for preset in STUDY_PRESETS)
    assert all("duration (-T): not stated in the seed" in preset.procedure for preset in STUDY_PRESETS)


def test_the_windows_scripts_are_seed_001s():
    reference = SCENARIO_PRESETS["pgecons-windows-reference"].script
    update = SCENARIO_PRESETS["pgecons-windows-update"].script
    assert "SELECT count(abalance) FROM pgbench_accounts WHERE aid BETWEEN :aid and :aid + :row_count;" in reference
    assert "\\set aid random(1, :aid_max)" in reference
    assert "UPDATE pgbench_accounts SET filler=repeat(md5(current_timestamp::text),2) WHERE aid= :aid_val;" in update
