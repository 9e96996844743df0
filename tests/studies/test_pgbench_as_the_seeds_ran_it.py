"""Issue 41, points 3 and 5, in the store: pgbench's threads as a rule or a number held to pgbench's rule, clients
above the scale noted and never refused, pgbench without -n, a build's own pgbench, and a WAL directory per variant;
each carried from the design to the saved study, its trials and the spec the engine gets."""

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from benchdash.inventory.models import Build
from benchdash.studies.design import StudyDesign, design_problems_offline
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.specs import trial_spec
from benchdash.studies.models import Scenario
from benchdash.studies.procedure import scenario_procedures
from benchdash.studies.threads import thread_count, threads_choice
from benchdash.studies.variant_design import Axis, parse_axis
from tests.factories import BuildFactory, HostFactory, ScenarioFactory

pytestmark = pytest.mark.django_db
GIB = 2**30
FACTS = {"memory_bytes": 16 * GIB, "disk_free_bytes": 100 * GIB}


@pytest.fixture
def design():
    build = BuildFactory(version="15.4", version_sort=150004)
    return StudyDesign(
        title="seed 003",
        year=2026,
        db_host=HostFactory(name="db", work_dir="/var/lib/benchdash"),
        builds=(build,),
        baseline=build,
        scenarios=(ScenarioFactory(slug="tpcb", builtin=Scenario.Builtin.TPCB),),
        client_levels=(1, 10),
        repetitions=3,
        seed=7,
        scale=25,
        pg_settings={"shared_buffers": "128MB", "max_connections": "300"},
    )


def problems_of(design):
    with translation.override("en"):
        found = design_problems_offline(design, FACTS)
        return {
            name: [str(message) for error in errors for message in error.messages] for name, errors in found.items()
        }


@pytest.mark.parametrize(
    ("written", "stored"),
    [("", ""), ("half", "half"), ("clients", "same"), ("Same", "same"), ("1", "one"), ("32", "32"), (" 08 ", "8")],
)
def test_threads_are_written_as_a_rule_or_a_number(written, stored):
    assert threads_choice(written) == stored


@pytest.mark.parametrize("written", ["0", "-2", "4097", "quarter", "２"])
def test_other_threads_are_refused_saying_what_to_write(written):
    with translation.override("en"), pytest.raises(ValidationError, match="write half, same"):
        threads_choice(written)


def test_seed_002s_256_clients_on_32_threads_pass_and_a_level_pgbench_refuses_is_named(design):
    seed_002 = design.replace(client_levels=(64, 256), threads="32", scale=256)
    assert problems_of(seed_002) == {}
    assert [thread_count("32", clients) for clients in seed_002.client_levels] == [32, 32]

    refused = problems_of(design.replace(client_levels=(1, 48, 64), threads="32"))
    assert refused == {
        "threads": [
            "-j 32 at 1 clients: pgbench needs at least as many clients as threads, and the clients a multiple of "
            "the threads.",
            "-j 32 at 48 clients: pgbench needs at least as many clients as threads, and the clients a multiple of "
            "the threads.",
        ]
    }


def test_clients_above_the_scale_are_allowed_with_a_note_on_contention(design):
    seed_003 = design.replace(client_levels=(1, 10, 50, 100))
    assert problems_of(seed_003) == {}
    with translation.override("en"):
        note = seed_003.contention_note()
    assert note is not None
    assert note.startswith("TPC-B-like at 50, 100 clients on scale 25: more clients than branches")
    assert design.contention_note() is None  # 10 clients on 25 branches
    select_only = seed_003.replace(scenarios=(ScenarioFactory(slug="ro", builtin=Scenario.Builtin.SELECT_ONLY),))
    assert select_only.contention_note() is None


def test_only_an_installed_build_can_lend_its_pgbench(design):
    archive = BuildFactory(version="16.4", version_sort=160004, kind=Build.Kind.ARCHIVE, bin_dir="")
    with translation.override("en"):
        assert problems_of(design.replace(pgbench_build=archive)) == {
            "pgbench_build": [
                f"{archive.name} ships no pgbench the pgbench host can run: pick an installed build, or the host's "
                "pgbench."
            ]
        }
    assert problems_of(design.replace(pgbench_build=design.baseline)) == {}


def test_the_study_s_choices_reach_its_trials_and_the_engine_s_spec(design):
    pgbench_build = BuildFactory(version="13.16", version_sort=130016, bin_dir="/usr/lib/postgresql/13/bin")
    chosen = design.replace(
        client_levels=(2, 8),
        threads="2",
        pgbench_vacuum=True,
        pgbench_build=pgbench_build,
        vary=(Axis("wal_dir", ("pgdata", "/mnt/wal")),),
    )
    study = services.study_create(design=chosen)
    services.study_enqueue(study=study)

    assert sorted({trial.threads for trial in study.trials.all()}) == [2]
    assert sorted(study.variants.values_list("wal_dir", flat=True)) == ["", "/mnt/wal"]
    spec = trial_spec(study.trials.filter(variant__wal_dir="/mnt/wal").first())
    assert (spec.threads, spec.pgbench_vacuum, spec.initdb_options.wal_dir) == (2, True, "/mnt/wal")
    assert spec.pgbench_build is not None and spec.pgbench_build.bin_dir == "/usr/lib/postgresql/13/bin"
    with translation.override("en"):
        steps = {step.name: step.value for step in scenario_procedures(study, study.scenarios.all())[0].steps}
    assert steps["threads (-j)"] == "2"  # the study's page lists the study's choice, not the scenario's rule
    assert StudyDesign.from_study(study, vary=chosen.vary) == chosen.replace(client_host=design.db_host)


def test_without_a_choice_each_scenario_s_rule_sets_the_threads(design):
    study = services.study_create(design=design.replace(client_levels=(2, 8)))
    services.study_enqueue(study=study)
    assert sorted({trial.threads for trial in study.trials.all()}) == [1, 4]  # the factory's scenario: half


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("wal_dir=relative/wal", "an absolute path of the DB host"),
        ("wal_dir=/mnt/../etc", "an absolute path of the DB host"),
        ("wal_dir=/mnt/wal dir", "an absolute path of the DB host"),
        ("wal_dir=/", "an absolute path of the DB host"),
    ],
)
def test_a_wal_dir_axis_takes_absolute_paths_or_pgdata_only(line, message):
    with translation.override("en"), pytest.raises(ValidationError, match=message):
        parse_axis(line)
    assert parse_axis("wal_dir=pgdata,/mnt/wal/").values == ("pgdata", "/mnt/wal/")


def test_a_wal_dir_inside_the_db_host_s_work_dir_is_refused(design):
    inside = design.replace(vary=(Axis("wal_dir", ("/var/lib/benchdash/wal",)),))
    assert problems_of(inside) == {
        "vary": [
            "PostgreSQL 15.4: the WAL directory /var/lib/benchdash/wal is inside the work dir of db "
            "(/var/lib/benchdash)."
        ]
    }
