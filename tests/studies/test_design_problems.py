"""benchdash/studies/design.py: design_problems on a StudyDesign built directly, with no form, against given facts."""

import pytest
from django.utils import translation

from benchdash.studies.design import Collectors, StudyDesign, design_problems
from benchdash.studies.models import Scenario
from tests.factories import BuildFactory, HostFactory, ScenarioFactory

pytestmark = pytest.mark.django_db
GIB = 2**30


@pytest.fixture
def design():
    build = BuildFactory(version="15.4", version_sort=150004)
    return StudyDesign(
        title="design",
        year=2026,
        db_host=HostFactory(name="db"),
        builds=(build,),
        baseline=build,
        scenarios=(ScenarioFactory(slug="tpcb", builtin=Scenario.Builtin.TPCB),),
        client_levels=(1, 8),
        repetitions=3,
        seed=7,
        scale=8,
        pg_settings={"shared_buffers": "128MB"},
        collectors=Collectors(sar=True, wait_events=True),
    )


def messages(problems):
    return {name: [message for error in errors for message in error.messages] for name, errors in problems.items()}


def test_a_design_that_fits_its_host_has_no_problems(design):
    assert design_problems(design, {"memory_bytes": 16 * GIB, "disk_free_bytes": 100 * GIB}) == {}


def test_each_problem_is_keyed_by_the_field_it_is_about(design):
    crowded = design.replace(client_levels=(1, 16), max_repetitions=3, threads="4")
    with translation.override("en"):
        problems = messages(design_problems(crowded, {"memory_bytes": 16 * GIB, "disk_free_bytes": 100 * GIB}))
    assert problems == {
        "threads": [
            "-j 4 at 1 clients: pgbench needs at least as many clients as threads, and the clients a multiple of the "
            "threads."
        ],
        "max_repetitions": ["More than the planned repetitions, or empty (off)."],
    }


def test_the_facts_given_are_the_db_host_s_own_for_its_memory_and_disk(design):
    with translation.override("en"):
        problems = messages(design_problems(design, {"memory_bytes": 64 * 2**20, "disk_free_bytes": 2**20}))
    assert set(problems) == {"pg_settings", "scale"}
    assert "the server cannot start" in problems["pg_settings"][0]
    assert problems["scale"][0].startswith("Scale 8 needs about")


def test_a_baseline_outside_the_builds_is_a_problem_of_the_baseline(design):
    other = BuildFactory(version="15.5", version_sort=150005)
    with translation.override("en"):
        problems = messages(design_problems(design.replace(baseline=other), {"memory_bytes": 16 * GIB}))
    assert problems["baseline"] == ["The baseline must be one of the chosen builds."]
