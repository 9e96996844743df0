"""Which trials a study on two DB hosts sends, by its host order and load (studies/lifecycle/host_turns.py): every
trial claimed and finished here as a worker would, each sent trial's task read from the callbacks that would send it.
The same on real workers and targets: tests/queue/test_host_comparisons.py."""

import pytest

from benchdash.studies.design import StudyDesign, design_problems_offline
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.outcome import trial_finish
from benchdash.studies.models import HostOrder, Load, Study, Trial
from benchdash.studies.variant_design import parse_axes
from tests.factories import BuildFactory, HostFactory, ScenarioFactory
from tests.studies.test_services import good_outcome
from workers.spec import TrialOutcome

pytestmark = pytest.mark.django_db


def two_host_study(*vary: str, host_order: str = HostOrder.TOGETHER) -> Study:
    """One build, two client levels, two repetitions, on the hosts linux and windows."""
    linux, _windows = HostFactory(name="linux"), HostFactory(name="windows")
    build = BuildFactory(name="pg13", version="13.0")
    design = StudyDesign(
        title="hosts",
        year=2020,
        db_host=linux,
        builds=(build,),
        baseline=build,
        scenarios=(ScenarioFactory(slug="ref"),),
        client_levels=(1, 2),
        repetitions=2,
        seed=3,
        vary=tuple(parse_axes(["host=linux,windows", *vary])),
        host_order=host_order,
    )
    return services.study_create(design=design)


def sent(callbacks) -> list[int]:
    """The trials whose tasks the callbacks send (the others: the study's end)."""
    return [callback.keywords["trial_id"] for callback in callbacks if "trial_id" in getattr(callback, "keywords", {})]


def run_every_trial(study: Study, capture, outcome_of=lambda trial: good_outcome()) -> list[list[Trial]]:
    """Each step's trials, claimed together as their tasks were sent together; each finished (with outcome_of's
    outcome), then the study goes on after it as the task does."""
    with capture() as callbacks:
        services.study_enqueue(study=study)
    due, steps = sent(callbacks), []
    while due:
        trials = [services.trial_claim(trial_id=trial_id, worker=f"w{trial_id}") for trial_id in due]
        steps.append(trials)
        due = []
        for trial in trials:
            trial_finish(trial=trial, outcome=outcome_of(trial))
            with capture() as callbacks:
                services.study_continue(study_id=study.pk, host_id=trial.host_id)
            due += sent(callbacks)
    study.refresh_from_db()
    return steps


def test_one_after_another_runs_every_trial_of_the_first_host_then_the_next_ones(django_capture_on_commit_callbacks):
    study = two_host_study(host_order=HostOrder.IN_TURN)
    steps = run_every_trial(study, django_capture_on_commit_callbacks)
    assert [[trial.host.name for trial in step] for step in steps] == [["linux"]] * 4 + [["windows"]] * 4
    assert study.status == Study.Status.DONE


def test_together_starts_both_hosts_at_once(django_capture_on_commit_callbacks):
    steps = run_every_trial(two_host_study(), django_capture_on_commit_callbacks)
    assert sorted(trial.host.name for trial in steps[0]) == ["linux", "windows"]


def test_the_load_axis_runs_each_alone_trial_by_itself_and_each_at_once_trial_with_its_partner(
    django_capture_on_commit_callbacks,
):
    study = two_host_study("load=alone,at_once")
    steps = run_every_trial(study, django_capture_on_commit_callbacks)
    alone = [step for step in steps if step[0].variant.load == Load.ALONE]
    at_once = [step for step in steps if step[0].variant.load == Load.AT_ONCE]
    assert [len(step) for step in alone] == [1] * 8 and [len(step) for step in at_once] == [2] * 4
    for first, second in at_once:
        assert {first.host.name, second.host.name} == {"linux", "windows"}
        assert (first.scenario_id, first.clients, first.repetition) == (
            second.scenario_id,
            second.clients,
            second.repetition,
        )
        assert second.variant.load == Load.AT_ONCE
    assert study.status == Study.Status.DONE and study.trials.filter(status=Trial.Status.SUCCEEDED).count() == 16


def design_of(study: Study, **changes) -> StudyDesign:
    return StudyDesign.from_study(study, **changes)


@pytest.mark.parametrize(
    ("vary", "host_order", "field"),
    [
        (["cpus=1,2"], HostOrder.IN_TURN, "host_order"),
        (["load=alone,at_once"], HostOrder.TOGETHER, "vary"),
        (["host=linux,windows", "load=alone,at_once"], HostOrder.IN_TURN, "host_order"),
    ],
)
def test_a_design_that_orders_or_loads_hosts_it_does_not_have_is_refused_by_name(vary, host_order, field):
    study = two_host_study()
    design = design_of(study, vary=tuple(parse_axes(vary)), host_order=host_order)
    assert field in design_problems_offline(design)


def test_one_after_another_on_two_hosts_is_a_good_design_and_run_again_keeps_it():
    study = two_host_study(host_order=HostOrder.IN_TURN)
    assert study.host_order == HostOrder.IN_TURN
    design = design_of(study, vary=tuple(parse_axes(["host=linux,windows"])))
    assert design.host_order == HostOrder.IN_TURN
    assert "host_order" not in design_problems_offline(design) and "vary" not in design_problems_offline(design)


def test_an_at_once_trial_that_is_retried_runs_again_at_the_same_moment_as_its_partner(
    django_capture_on_commit_callbacks,
):
    """Its first attempt failed beside its partner's good run: the pair is retried together, never the one alone."""
    study = two_host_study("load=alone,at_once")
    failed: list[int] = []

    def outcome_of(trial: Trial) -> TrialOutcome:
        if trial.variant.load == Load.AT_ONCE and not failed:
            failed.append(trial.pk)
            return TrialOutcome(ok=False, error="the connection dropped")  # retried: attempts are left
        return good_outcome()

    steps = run_every_trial(study, django_capture_on_commit_callbacks, outcome_of)
    at_once = [sorted(trial.pk for trial in step) for step in steps if step[0].variant.load == Load.AT_ONCE]
    assert len(at_once) == 5 and at_once[0] == at_once[1]  # the failed slot, then the same pair again
    assert all(len(pair) == 2 for pair in at_once)
    study.refresh_from_db()
    assert study.status == Study.Status.DONE and study.trials.filter(status=Trial.Status.SUCCEEDED).count() == 16
    assert sorted(study.trials.filter(attempts=2).values_list("pk", flat=True)) == at_once[0]
