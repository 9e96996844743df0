"""A calibration (issue 42, point 3): bad input refused with a message and nothing queued; a real one on the tests'
sshd target, its trials run as the worker runs them, each slowed run under the quota computed from what the
unthrottled runs used, and its rounds evaluated into detections and real effects."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import translation

from benchdash.studies.design import StudyDesign
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.calibration import calibration_create, calibration_evaluate
from benchdash.studies.lifecycle.outcome import trial_finish
from benchdash.studies.lifecycle.specs import trial_spec
from benchdash.studies.models import Calibration, Scenario, Study
from tests.cgroups import delegate_cgroup
from tests.queue.support import register_build, register_host
from workers.attempt import run_attempt
from workers.cpu_quota import quota_us

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english():
    """The wording as an English reader gets it (the site's default language is Japanese)."""
    with translation.override("en"):
        yield


@pytest.fixture
def select_only() -> Scenario:
    return Scenario.objects.create(slug="select-only", name="select-only", builtin="select-only", prewarm=False)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"scenarios": "select-only,tpcb", "clients": "2"}, "one build, one scenario and one client level"),
        ({"scenarios": "select-only", "clients": "1,2"}, "one build, one scenario and one client level"),
        ({"scenarios": "select-only", "clients": "2", "rounds": 2}, "rounds: from 3 to 40"),
        ({"scenarios": "select-only", "clients": "2", "sizes": "2,2"}, "sizes: distinct whole percentages"),
        ({"scenarios": "select-only", "clients": "2", "sizes": "2,$(reboot)"}, "--sizes: whole percentages"),
        ({"scenarios": "select-only", "clients": "2", "arrangement": "duet_aa", "sizes": "2"}, "a duet's calibration"),
    ],
)
def test_bad_input_is_refused_with_a_message_and_nothing_is_queued(
    options, message, local_target, installed_build, select_only
):
    Scenario.objects.create(slug="tpcb", name="tpcb", builtin="tpcb-like")
    host, build = register_host(local_target), register_build(installed_build)
    with pytest.raises(CommandError, match="the calibration was not queued|--sizes") as refused:
        call_command("calibrate", host.name, "--builds", build.name, "--duration", "1", **options)
    assert message in str(refused.value)
    assert not Study.objects.exists() and not Calibration.objects.exists()


def calibration_design(host, build, scenario) -> StudyDesign:
    """One build, one scenario, 2 clients, 1 s runs: the smallest design a calibration takes."""
    return StudyDesign(
        title="calibration",
        year=2026,
        db_host=host,
        builds=(build,),
        baseline=build,
        scenarios=(scenario,),
        client_levels=(2,),
        repetitions=3,
        seed=42,
        duration_s=1,
        threshold=0.02,
    )


def test_a_calibration_slows_each_run_by_its_quota_and_measures_what_the_design_detects(
    ssh_target, installed_build, select_only
):
    delegate_cgroup(ssh_target.username)
    host, build = register_host(ssh_target), register_build(installed_build)
    calibration = calibration_create(design=calibration_design(host, build, select_only), rounds=3, sizes=[10, 50])
    study = calibration.study
    services.study_enqueue(study=study)
    trials = list(study.trials.order_by("position").select_related("variant"))
    assert [trial.variant.slowdown_pct for trial in trials[:2]] == [0, 0]  # each round: A and A' first
    assert len(trials) == 12 and {trial.repetition for trial in trials} == {1, 2, 3}
    quotas = {}
    for trial in trials:
        claimed = services.trial_claim(trial_id=trial.pk, worker="test")
        spec = trial_spec(claimed)
        outcome = run_attempt(spec, should_cancel=lambda: False)
        trial_finish(trial=claimed, outcome=outcome)
        assert outcome.ok, outcome.error
        assert spec.cpu_quota is not None and outcome.server_cores is not None
        quotas[trial.pk] = spec.cpu_quota.quota_us
    unthrottled = [trial for trial in study.trials.all() if trial.variant.slowdown_pct == 0]
    assert all(quotas[trial.pk] is None for trial in unthrottled)
    # the last slowed run's quota: its size less than the mean of every unthrottled run's cores before it
    last = study.trials.filter(variant__slowdown_pct=50).order_by("position").last()
    before = [trial.server_cores for trial in unthrottled if trial.position < last.position]
    assert quotas[last.pk] == quota_us(sum(before) / len(before), 50)
    measured = calibration_evaluate(study_id=study.pk)
    assert measured is not None and measured.measured_at is not None
    (three,) = measured.detections  # 3 rounds: one study of 3 runs a side (the calls' math: test_calibration_evaluate)
    assert (three["runs"], three["studies"], sorted(three["called"])) == (3, 1, ["10", "50"])
    assert three["false_alarms"] in (0, 1)
    effects = measured.real_effects
    assert effects["50"] > 0.25 and effects["50"] > effects["10"], effects


def test_a_duet_calibration_is_the_design_s_a_a_duet_and_is_evaluated_like_a_sequential_one(
    local_target, installed_build, select_only
):
    host, build = register_host(local_target), register_build(installed_build)
    calibration = calibration_create(
        design=calibration_design(host, build, select_only).replace(arrangement="duet"), rounds=3, sizes=[]
    )
    study = calibration.study
    assert (study.arrangement, calibration.design_kind, calibration.sizes) == ("duet_aa", "duet", [])
    assert [variant.build_id for variant in study.variants.all()] == [build.pk, build.pk]
    # Both sides of each round as the duet's round finish stores them: the partner 1% slower, 3 rounds.
    tps_of = {0: [1000.0, 1100.0, 950.0], 1: [990.0, 1089.0, 940.5]}
    for side, variant in enumerate(study.variants.order_by("pk")):
        for trial in variant.trials.order_by("repetition"):
            trial.status, trial.tps = "succeeded", tps_of[side][trial.repetition - 1]
            trial.save(update_fields=["status", "tps"])
    measured = calibration_evaluate(study_id=study.pk)
    assert measured is not None and measured.real_effects == {}
    (three,) = measured.detections
    assert (three["runs"], three["studies"], three["called"]) == (3, 1, {})
    assert three["false_alarms"] == 0  # a steady 1% paired difference, under the 2% threshold
