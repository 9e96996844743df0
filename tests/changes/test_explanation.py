"""The explanation card: what moved between a change's two sides, ranked by the rule on the card. The seeds'
2021 comparison (13.4 vs 14.0 on the reference query, where 14.0's profile gave index_fetch_heap a larger share)
is the case of record."""

import pytest

from benchdash.changes.card import change_card
from benchdash.changes.explanation import Evidence, SideEvidence, explain
from benchdash.changes.models import ChangePoint, SeriesKind
from benchdash.inventory.models import Build
from benchdash.studies.evidence.store import evidence_refresh
from benchdash.studies.models import Scenario, Study
from tests.evidence_samples import SEED_13, SEED_14, folded, real_artifacts
from tests.factories import BuildFactory, ScenarioFactory, StudyFactory, succeeded_trial


def test_settings_and_environment_come_first_then_figures_by_how_far_they_moved():
    before = SideEvidence(
        cpu={"user": 40.0, "idle": 50.0},
        waits={"LWLock: WALWrite": 10.0},
        functions={"a": 5.0, "b": 20.0},
        settings={"wal_level": "replica", "jit": "on"},
        environment={"server_version": "13.4"},
    )
    after = SideEvidence(
        cpu={"user": 43.0, "idle": 49.5},
        waits={"LWLock: WALWrite": 2.0, "IO: DataFileRead": 4.0},
        functions={"b": 20.5},
        settings={"wal_level": "replica", "jit": "off"},
        environment={"server_version": "14.0"},
    )
    moved = explain(before, after)
    assert [(item.evidence, item.name) for item in moved] == [
        (Evidence.SETTING, "jit"),
        (Evidence.ENVIRONMENT, "server_version"),
        (Evidence.WAIT, "LWLock: WALWrite"),
        (Evidence.FUNCTION, "a"),
        (Evidence.WAIT, "IO: DataFileRead"),
        (Evidence.CPU, "user"),
    ]
    assert [item.moved for item in moved[2:]] == [-8.0, -5.0, 4.0, 3.0]


def test_a_cpu_figure_measured_on_one_side_only_is_not_compared():
    assert explain(SideEvidence(cpu={"user": 40.0}), SideEvidence()) == []


@pytest.mark.django_db
def test_the_seeds_13_4_against_14_0_puts_index_fetch_heap_first():
    scenario = ScenarioFactory(slug="pgecons-reference", name="参照系")
    old, new = BuildFactory(version="13.4"), BuildFactory(version="14.0")
    study = StudyFactory(builds=[old, new], scenarios=[scenario], baseline=old, collect_perf=True)
    for build, tps, stacks in ((old, 437.0, SEED_13), (new, 412.0, SEED_14)):
        for repetition in (1, 2, 3):
            trial = succeeded_trial(
                study,
                build,
                scenario,
                1,
                repetition,
                tps + repetition,
                transactions=int(tps * 4),
                server_version=build.version,
            )
            evidence_refresh(trial=trial, artifacts={**real_artifacts(), "perf_folded": folded(stacks)})
    change = change_13_4_to_14_0(study, scenario, old, new)
    moved = change_card(change)
    assert moved[0].evidence == Evidence.ENVIRONMENT and moved[0].name == "server_version"
    figures = [item for item in moved if item.moved is not None]
    first = figures[0]
    assert (first.evidence, first.name) == (Evidence.FUNCTION, "index_fetch_heap")
    assert first.moved == pytest.approx(100 * 180 / 1080 - 10.0, abs=0.05)
    assert all(item.evidence != Evidence.CPU for item in figures)


@pytest.mark.django_db
def test_the_card_leaves_out_host_facts_that_differ_between_any_two_runs():
    """Free space, load and boot time differ from run to run by nature; a kernel that differs is named."""
    old, new = BuildFactory(version="13.4"), BuildFactory(version="14.0")
    scenario = ScenarioFactory()
    study = StudyFactory(builds=[old, new], scenarios=[scenario], baseline=old, status="done")
    facts = {"kernel": "6.1.0-18", "disk_free_bytes": 9 * 2**30, "boot_time": 1700000000, "load_average": [0.1]}
    succeeded_trial(study, old, scenario, 1, 1, 439.0, host_facts=facts)
    later = facts | {"kernel": "6.1.0-21", "disk_free_bytes": 8 * 2**30, "boot_time": 1700090000, "load_average": [2.0]}
    succeeded_trial(study, new, scenario, 1, 1, 414.0, host_facts=later)
    change = change_13_4_to_14_0(study, scenario, old, new)
    environment = {item.name: (item.before, item.after) for item in change_card(change) or [] if item.moved is None}
    assert environment == {"host kernel": ("6.1.0-18", "6.1.0-21")}


def change_13_4_to_14_0(study: Study, scenario: Scenario, old: Build, new: Build) -> ChangePoint:
    """The seeds' 2021 change within one study: 13.4 to 14.0 at 1 client, 439 to 414 TPS."""
    return ChangePoint.objects.create(
        series_key=f"study:{study.pk}",
        series_kind=SeriesKind.STUDY,
        series_title="2021",
        scenario=scenario,
        clients=1,
        before_label="13.4",
        after_label="14.0",
        before_study=study,
        after_study=study,
        before_build=old,
        after_build=new,
        mean_before=439.0,
        mean_after=414.0,
        size=-0.057,
        pvalue=0.0001,
    )
