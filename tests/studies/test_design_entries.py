"""Each entry builds its own StudyDesign from its own input, and the same study gives the same design: the form,
queue_study's options, and "run again" of the saved study (StudyDesign.from_study)."""

from pathlib import Path

import pytest

import benchdash
from benchdash.studies.design import StudyDesign
from benchdash.studies.forms import StudyForm, design_initial
from benchdash.studies.lifecycle import services
from benchdash.studies.management.commands.queue_study import Command
from tests.factories import BuildFactory, HostFactory, ScenarioFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows():
    return {
        "host": HostFactory(name="db"),
        "old": BuildFactory(version="15.4", version_sort=150004),
        "new": BuildFactory(version="15.5", version_sort=150005),
        "scenario": ScenarioFactory(slug="ref"),
    }


def queue_study_design(*args: str) -> StudyDesign:
    command = Command()
    options = vars(command.create_parser("manage.py", "queue_study").parse_args(args))
    return command.study_design(options)


def form_design(rows) -> StudyDesign:
    form = StudyForm(
        {
            "title": "same",
            "year": "2026",
            "db_host": rows["host"].pk,
            "builds": [rows["old"].pk, rows["new"].pk],
            "baseline": rows["old"].pk,
            "scenarios": [rows["scenario"].pk],
            "client_levels": "1,16",
            "repetitions": "3",
            "max_repetitions": "6",
            "threshold": "1.5",
            "statistic": "mean",
            "warmup_runs": "1",
            "run_order": "random",
            "duration_s": "60",
            "scale": "16",
            "pg_settings": "work_mem = 8MB",
            "collect_sar": "on",
            "collect_wait_events": "on",
            "seed": "5",
            "threads": "half",
            "pgbench_vacuum": "on",
            "pgbench_build": rows["new"].pk,
        }
    )
    assert form.is_valid(), form.errors
    return form.design()


def in_id_order(design: StudyDesign) -> StudyDesign:
    return design.replace(builds=tuple(sorted(design.builds, key=lambda build: build.pk)))


def test_the_form_and_queue_study_build_the_same_design_for_the_same_study(rows):
    queued = queue_study_design(
        *("--host", "db", "--builds", "PostgreSQL 15.5,PostgreSQL 15.4", "--baseline", "PostgreSQL 15.4"),
        *("--scenarios", "ref", "--clients", "1,16", "--repetitions", "3", "--max-repetitions", "6"),
        *("--threshold", "1.5", "--duration", "60", "--scale", "16", "--setting", "work_mem=8MB"),
        *("--seed", "5", "--title", "same", "--year", "2026", "--statistic", "mean"),
        *("--warmup-runs", "1"),
        *("--threads", "half", "--pgbench-vacuum", "--pgbench-build", "PostgreSQL 15.5"),
    )
    assert in_id_order(queued) == in_id_order(form_design(rows))
    assert (queued.threads, queued.pgbench_vacuum, queued.pgbench_build) == ("half", True, rows["new"])
    assert queued.threshold == 0.015 and queued.collectors.wait_events and not queued.collectors.perf


def test_run_again_gives_back_the_design_the_study_was_saved_from(rows):
    design = form_design(rows)
    study = services.study_create(design=design)
    assert (study.statistic, study.warmup_runs) == ("mean", 1)
    assert study.trials.filter(warmup=True, repetition=0).count() == 2 * 2
    assert StudyDesign.from_study(study) == in_id_order(design)
    assert design_initial(StudyDesign.from_study(study))["statistic"] == "mean"


def test_no_module_outside_views_and_forms_builds_a_query_dict():
    root = Path(benchdash.__file__).parent
    builders = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if "QueryDict(" in path.read_text() and "views" not in path.parts and path.name != "forms.py"
    ]
    assert builders == []
