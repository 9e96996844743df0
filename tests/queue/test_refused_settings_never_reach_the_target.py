"""A setting the forms refuse, put into a study's row behind their back, still never reaches the target:
the trial built from the row fails with the reason, and no postgresql.conf on the target holds it."""

import glob
import uuid
from pathlib import Path

import pytest

from benchdash.studies.lifecycle.specs import trial_spec
from benchdash.studies.models import Study
from tests.factories import ScenarioFactory, StudyFactory, TrialFactory
from tests.queue.support import own_work_dir, register_build, register_host
from workers.attempt import run_attempt

pytestmark = pytest.mark.django_db


def set_lines(work_dir: str) -> set[tuple[str, str]]:
    """(name, value) of every line that sets something in any configuration file of any cluster on the target."""
    pairs = set()
    for path in glob.glob(f"{work_dir}/clusters/*/data/*.conf"):
        for line in Path(path).read_text().splitlines():
            name, equals, value = line.split("#", 1)[0].partition("=")
            if equals:
                pairs.add((name.strip().lower(), value.strip().strip("'")))
    return pairs


@pytest.mark.parametrize(
    ("setting", "reason"),
    [
        ({"archive_command": "touch {witness}"}, "archive_command runs a command"),
        ({"shared_preload_libraries": "{witness}"}, "shared_preload_libraries loads code"),
        ({"listen_addresses": "*"}, "listen_addresses decides where the server listens"),
        ({"shared_buffers": "banana"}, "shared_buffers = banana"),
    ],
)
def test_a_refused_setting_stored_directly_fails_the_trial_and_stays_off_the_target(
    local_target, installed_build, setting, reason
):
    witness = f"/tmp/benchdash-witness-{uuid.uuid4().hex}"
    host = register_host(local_target)
    build = register_build(installed_build)
    study = StudyFactory(db_host=host, builds=[build], scenarios=[ScenarioFactory(slug="select")])
    refused = {name: value.format(witness=witness) for name, value in setting.items()}
    stored = {"work_mem": "4MB", **refused}
    Study.objects.filter(pk=study.pk).update(pg_settings=stored)
    trial = TrialFactory(study=study, build=build, scenario=study.scenarios.get(), reset_data=True)

    outcome = run_attempt(trial_spec(trial), should_cancel=lambda: False)

    assert not outcome.ok and reason in outcome.error
    assert outcome.deterministic  # no second attempt: the store fails the trial at once
    written = set_lines(own_work_dir(host))
    assert ("include_if_exists", "benchdash.conf") in written, "the cluster was made, up to its settings"
    # work_mem may be written (pristine data made for the study takes its allowed settings); the refused one never.
    assert written.isdisjoint(refused.items())
    assert not Path(witness).exists()
