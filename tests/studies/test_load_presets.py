from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import translation

from benchdash.inventory.models import Build
from benchdash.studies.models import Scenario, Study, StudyPreset, Trial
from workers.spec import Reset

# Word for word from seed 000 (検証手続き > 参照系 / 更新系), as the Japanese font shows it.
SEED_REFERENCE = """\
¥set naccounts 100000 * :scale
¥set row_count 10000
¥set aid_max :naccounts - :row_count
¥set aid random(1 :aid_max)
SELECT count(abalance) FROM pgbench_accounts
WHERE aid BETWEEN :aid and :aid + :row_count;
"""
SEED_UPDATE = """\
¥set naccounts 100000 * :scale
¥set aid_val random(1, :naccounts)
UPDATE pgbench_accounts
SET filler=repeat(md5(current_timestamp::text),2)
WHERE aid = :aid_val;
"""


def load_presets() -> str:
    out = StringIO()
    call_command("load_presets", stdout=out)
    return out.getvalue()


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in (Scenario, StudyPreset, Study, Trial, Build)}


@pytest.mark.django_db
def test_it_changes_nothing_when_run_twice() -> None:
    first_output = load_presets()
    counts_after_first = row_counts()
    second_output = load_presets()

    assert row_counts() == counts_after_first
    assert counts_after_first["Scenario"] == 8  # the 2008 studies' doruby-tpcb too
    assert counts_after_first["StudyPreset"] == 15  # the 2021 and 2020 designs and the seeds' variant studies
    assert "scenario pgecons-reference: created" in first_output
    assert "scenario pgecons-reference" not in second_output
    assert "presets: 0 created or updated, 23 unchanged" in second_output
    assert "0 studies created" in second_output
    assert "0 figures created, 41 already present" in second_output


@pytest.mark.django_db
def test_it_puts_back_a_preset_that_was_edited() -> None:
    load_presets()
    Scenario.objects.filter(slug="pgecons-update").update(fillfactor=100)

    output = load_presets()

    assert "scenario pgecons-update: updated" in output
    assert Scenario.objects.get(slug="pgecons-update").fillfactor == 80


@pytest.mark.django_db
def test_the_reference_script_is_the_seed_word_for_word_with_backslash_and_comma() -> None:
    load_presets()
    expected = SEED_REFERENCE.replace("¥", "\\").replace("random(1 :aid_max)", "random(1, :aid_max)")

    scenario = Scenario.objects.get(slug="pgecons-reference")

    assert scenario.script == expected
    assert "random(1, :aid_max)" in scenario.description
    assert scenario.fillfactor is None
    assert scenario.reset == Reset.ONCE


@pytest.mark.django_db
def test_the_update_scenario_rebuilds_data_for_every_trial_with_fillfactor_80() -> None:
    load_presets()

    scenario = Scenario.objects.get(slug="pgecons-update")

    assert scenario.script == SEED_UPDATE.replace("¥", "\\")
    assert scenario.fillfactor == 80
    assert scenario.reset == Reset.TRIAL
    # seed 000 states neither a VACUUM / CHECKPOINT step, nor pg_prewarm, nor -j: none is taken from 001
    assert scenario.checkpoint_vacuum is False
    assert scenario.prewarm == "none"
    assert scenario.threads_for(432) == 1


@pytest.mark.django_db
def test_the_builtin_scenarios_name_their_pgbench_script() -> None:
    load_presets()

    builtins = dict(Scenario.objects.exclude(builtin="").values_list("slug", "builtin"))

    assert builtins == {
        "pgbench-tpcb": "tpcb-like",
        "pgbench-select-only": "select-only",
        "pgbench-simple-update": "simple-update",
        "doruby-tpcb": "tpcb-like",
    }


@pytest.mark.django_db
def test_the_presets_carry_the_seeds_client_ladders() -> None:
    load_presets()

    ladders = dict(StudyPreset.objects.values_list("slug", "client_levels"))

    assert len(ladders) == 15  # the seeds' variant studies' ladders: tests/studies/test_variant_presets.py
    assert {slug: ladders[slug] for slug in ladders if slug.startswith(("pgecons-2021", "pgecons-2020-windows"))} == {
        "pgecons-2021-reference": [1, 16, 32, 64, 96, 128, 160, 192],
        "pgecons-2021-update": [1, 16, 32, 64, 96, 128, 160, 192, 288, 432],
        "pgecons-2020-windows-reference": [1, 2, 4, 8, 16, 24, 32, 40, 48],
        "pgecons-2020-windows-update": [1, 16, 32, 64, 96, 128, 160, 192],
    }


@pytest.mark.django_db
def test_the_2021_presets_carry_the_2021_postgresql_conf() -> None:
    load_presets()

    preset = StudyPreset.objects.get(slug="pgecons-2021-update")

    assert preset.pg_settings == {
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
    assert (preset.repetitions, preset.scale) == (3, 2000)
    assert list(preset.scenarios.values_list("slug", flat=True)) == ["pgecons-update"]
    assert "seed 000" in preset.source


@pytest.mark.django_db
def test_the_windows_presets_carry_the_windows_postgresql_conf() -> None:
    load_presets()

    preset = StudyPreset.objects.get(slug="pgecons-2020-windows-reference")

    assert preset.pg_settings["shared_buffers"] == "64GB"
    assert preset.pg_settings["maintenance_work_mem"] == "2047MB"
    assert preset.pg_settings["checkpoint_timeout"] == "1d"
    assert preset.pg_settings["effective_cache_size"] == "128GB"
    assert list(preset.scenarios.values_list("slug", flat=True)) == ["pgecons-windows-reference"]


@pytest.mark.django_db
def test_it_imports_the_published_history() -> None:
    load_presets()

    assert Study.objects.filter(kind=Study.Kind.PUBLISHED, status=Study.Status.DONE).count() == 6
    assert Trial.objects.filter(published=True).count() == 41


@pytest.mark.django_db
def test_a_scenario_and_a_study_preset_are_named_in_the_readers_language_under_one_slug() -> None:
    load_presets()
    scenario = Scenario.objects.get(slug="pgbench-select-only")
    preset = StudyPreset.objects.get(slug="pgecons-2014-checksums")
    with translation.override("ja"):
        named = (str(scenario), str(preset), scenario.display_description[:22])
    assert named == (
        "pgbench 組み込み 参照のみ（select-only）",
        "PGECons 2014: ページチェックサムの有無（参照系）",
        "benchdash 独自の手順（このスクリプ",
    )
    with translation.override("en"):
        named = (str(scenario), str(preset), scenario.display_description[:22])
    assert named == (
        "pgbench built-in select only",
        "PGECons 2014: page checksums on and off (参照系)",
        "benchdash's own proced",
    )
