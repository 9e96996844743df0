"""A source build is queued in a study like any build: beside an installed one, compared with it."""

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from benchdash.inventory.source_builds import build_register_source
from benchdash.studies.models import Study
from tests.queue.support import paced_reference_scenario, register_build, register_host
from tests.source_tree import source_tarball

pytestmark = pytest.mark.django_db(transaction=True)


def test_queue_study_takes_a_source_build_beside_an_installed_one(
    presets, local_target, installed_build, broker, tmp_path: Path
) -> None:
    paced_reference_scenario()
    register_host(local_target)
    installed = register_build(installed_build)
    source = build_register_source(
        name="15-from-source", tarball=str(source_tarball(tmp_path)), configure_flags="--debug", version="15.18"
    )
    args = ["--host", "local", "--scenarios", "paced-reference", "--clients", "1", "--repetitions", "1"]
    args += ["--builds", f"{installed.name},{source.name}", "--baseline", installed.name, "--duration", "2"]
    call_command("queue_study", *args, stdout=io.StringIO(), stderr=io.StringIO())
    study = Study.objects.get(kind=Study.Kind.MEASURED)
    assert set(study.builds.all()) == {installed, source} and study.baseline == installed
    assert sorted(study.trials.values_list("build__name", flat=True)) == sorted([installed.name, source.name])
