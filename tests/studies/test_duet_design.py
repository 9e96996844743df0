"""The duet design (issue 42, point 5): the option in each entry, what a duet refuses and why, and its plan: each
round's two sides of a cell side by side, their halves of the CPUs swapped every round from a drawn start."""

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from benchdash.studies.design import StudyDesign, design_problems
from benchdash.studies.forms import StudyForm, design_initial
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.plan import plan_design
from benchdash.studies.models import Arrangement, Study
from tests.factories import BuildFactory, HostFactory, ScenarioFactory

pytestmark = pytest.mark.django_db
GIB = 2**30
FACTS = {"memory_bytes": 16 * GIB, "disk_free_bytes": 100 * GIB, "cpu_threads": 4}


@pytest.fixture
def design():
    old, new = BuildFactory(version="15.4", version_sort=150004), BuildFactory(version="15.5", version_sort=150005)
    return StudyDesign(
        title="duet",
        year=2026,
        db_host=HostFactory(name="db", facts=FACTS),
        builds=(old, new),
        baseline=old,
        scenarios=(ScenarioFactory(slug="ref"), ScenarioFactory(slug="upd")),
        client_levels=(1, 2),
        repetitions=4,
        seed=11,
        arrangement=Arrangement.DUET,
    )


def messages(design: StudyDesign, facts=FACTS) -> dict[str, list[str]]:
    with translation.override("en"):
        problems = design_problems(design, facts)
        return {
            name: [str(message) for error in errors for message in error.messages] for name, errors in problems.items()
        }


def test_a_duet_of_two_builds_on_a_host_of_four_cpus_has_no_problems(design):
    assert messages(design) == {}


def test_a_duet_refuses_what_it_cannot_run_each_with_its_reason(design):
    third = BuildFactory(version="15.6", version_sort=150006)
    assert messages(design.replace(builds=(*design.builds, third))) == {
        "arrangement": ["A duet runs exactly two sides at once (two builds, or two variants), not 3."]
    }
    assert messages(design, FACTS | {"cpu_threads": 1})["db_host"] == [
        "A duet needs a DB host of at least 2 CPUs, one half for each side; this one has 1."
    ]
    assert messages(design.replace(max_repetitions=8))["max_repetitions"] == [
        "A duet runs its planned rounds only: leave adaptive repetitions off."
    ]
    assert messages(design.replace(client_host=HostFactory(name="client")))["client_host"] == [
        "A duet runs each side's pgbench on the DB host, in that side's CPUs."
    ]


def test_a_variant_cpu_count_beyond_a_half_and_a_host_or_load_axis_are_refused(design):
    from benchdash.studies.variant_design import parse_axes

    one = design.replace(builds=design.builds[:1])
    assert "PostgreSQL 15.4 cpus=3: 3 CPUs do not fit in a half of the DB host (2 CPUs)." in messages(
        one.replace(vary=tuple(parse_axes(["cpus=1,3"])))
    ).get("vary", [])
    HostFactory(name="other", facts=FACTS)
    assert "A duet runs both sides on one DB host: vary no host." in messages(
        one.replace(vary=tuple(parse_axes(["host=db,other"])))
    ).get("vary", [])


def test_an_aa_duet_runs_one_build_on_both_sides_labelled_a_and_b(design):
    aa = design.replace(builds=design.builds[:1], arrangement=Arrangement.DUET_AA)
    assert messages(aa) == {}
    assert [(variant.label, variant.baseline) for variant in aa.variants()] == [
        ("PostgreSQL 15.4 (A)", True),
        ("PostgreSQL 15.4 (B)", False),
    ]
    assert messages(aa.replace(builds=design.builds))["arrangement"] == [
        "An A/A duet runs one build on both sides: choose one build, vary none."
    ]
    study = services.study_create(design=aa)
    assert list(study.variants.values_list("label", flat=True)) == ["PostgreSQL 15.4 (A)", "PostgreSQL 15.4 (B)"]
    assert study.trials.count() == 2 * 2 * 2 * 4


def test_each_rounds_two_sides_of_a_cell_come_together_on_swapped_halves(design):
    planned = plan_design(design)
    assert [trial.position for trial in planned] == list(range(len(planned)))
    pairs = list(zip(planned[::2], planned[1::2], strict=True))
    assert len(pairs) == 2 * 2 * 4
    for leader, partner in pairs:
        assert (leader.scenario_id, leader.clients, leader.repetition) == (
            partner.scenario_id,
            partner.clients,
            partner.repetition,
        )
        assert leader.variant_id == 1 and partner.variant_id == 2  # the first variant (the baseline's) leads
        assert {leader.duet_half, partner.duet_half} == {0, 1}
    by_cell: dict[tuple[int, int], list[int | None]] = {}
    for leader, _partner in pairs:
        by_cell.setdefault((leader.scenario_id, leader.clients), []).append(leader.duet_half)
    for halves in by_cell.values():  # swapped every round, from a start the seed draws
        assert halves in ([0, 1, 0, 1], [1, 0, 1, 0])
    assert len({tuple(halves) for halves in by_cell.values()}) == 2  # the start is drawn, not fixed
    assert plan_design(design) == planned


def test_the_saved_study_keeps_the_arrangement_and_each_trial_its_half(design):
    study = services.study_create(design=design)
    assert study.arrangement == "duet" and study.is_duet
    halves = list(study.trials.order_by("position").values_list("duet_half", flat=True))
    assert sorted(set(halves)) == [0, 1] and len(halves) == 32
    assert StudyDesign.from_study(study).arrangement == Arrangement.DUET
    assert design_initial(StudyDesign.from_study(study))["arrangement"] == "duet"


def test_the_form_and_queue_study_take_the_arrangement(design):
    old, new = design.builds
    form = StudyForm(
        {
            "title": "duet",
            "year": "2026",
            "db_host": design.db_host.pk,
            "builds": [old.pk, new.pk],
            "baseline": old.pk,
            "scenarios": [scenario.pk for scenario in design.scenarios],
            "client_levels": "1,2",
            "repetitions": "4",
            "run_order": "random",
            "duration_s": "60",
            "scale": "1",
            "seed": "11",
            "arrangement": "duet",
        }
    )
    assert form.is_valid(), form.errors
    assert form.design().arrangement == "duet"
    duet_s = form.estimated_seconds(form.planned_trials())
    form.cleaned_data["arrangement"] = "sequential"
    assert form.estimated_seconds(form.planned_trials()) > 1.9 * duet_s  # a duet runs its pairs at once
    call_command(
        "queue_study",
        *("--host", "db", "--builds", "PostgreSQL 15.4,PostgreSQL 15.5", "--scenarios", "ref"),
        *("--clients", "1", "--repetitions", "2", "--arrangement", "duet", "--duration", "1"),
    )
    assert Study.objects.get().arrangement == "duet"


def test_queue_study_refuses_a_bad_duet_with_its_message_and_queues_nothing(design):
    BuildFactory(version="15.6", version_sort=150006)
    with translation.override("en"), pytest.raises(CommandError, match="A duet runs exactly two sides at once"):
        call_command(
            "queue_study",
            *("--host", "db", "--builds", "PostgreSQL 15.4,PostgreSQL 15.5,PostgreSQL 15.6", "--scenarios", "ref"),
            *("--clients", "1", "--repetitions", "2", "--arrangement", "duet", "--duration", "1"),
        )
    assert not Study.objects.exists()


def test_each_side_s_settings_must_fit_half_the_host_s_memory(design):
    facts = FACTS | {"memory_bytes": 2 * GIB}
    sized_for_the_host = design.replace(pg_settings={"shared_buffers": "1200MB"})
    assert "pg_settings" not in messages(sized_for_the_host.replace(arrangement=Arrangement.SEQUENTIAL), facts)
    assert "the server cannot start" in messages(sized_for_the_host, facts)["pg_settings"][0]
