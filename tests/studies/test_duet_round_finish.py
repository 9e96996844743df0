"""A duet round stored whole or not at all (outcome.duet_round_finish), and a duet study's rounds sent one leader at
a time (host_turns), on the store alone: the engine's rounds are tests/engine/test_duet.py's."""

import pytest

from benchdash.studies.design import StudyDesign
from benchdash.studies.lifecycle import services
from benchdash.studies.lifecycle.host_turns import duet_partner, next_trials
from benchdash.studies.lifecycle.outcome import duet_round_finish
from benchdash.studies.lifecycle.specs import duet_specs
from benchdash.studies.models import Arrangement, Attempt, Trial
from tests.factories import BuildFactory, HostFactory, ScenarioFactory
from workers.failure_kind import FailureKind
from workers.spec import TrialOutcome

pytestmark = pytest.mark.django_db


@pytest.fixture
def study():
    build = BuildFactory(version="15.4", version_sort=150004)
    design = StudyDesign(
        title="aa duet",
        year=2026,
        db_host=HostFactory(name="db", facts={"cpu_threads": 2}),
        builds=(build,),
        baseline=build,
        scenarios=(ScenarioFactory(slug="ref"),),
        client_levels=(1,),
        repetitions=2,
        seed=3,
        arrangement=Arrangement.DUET_AA,
    )
    study = services.study_create(design=design)
    study.status = study.Status.RUNNING
    study.save()
    return study


def side_outcome(tps: float, ok: bool = True) -> TrialOutcome:
    error = "" if ok else "server crashed"
    kind = None if ok else FailureKind.TARGET_FAILED
    return TrialOutcome(ok=ok, tps=tps, error=error, failure_kind=kind, host_facts={"duet_halves": ["0", "1"]})


def claimed_leader(study) -> Trial:
    pending = Trial.objects.filter(study=study, status=Trial.Status.PENDING)
    (leader,) = next_trials(study.pk, pending)
    claimed = services.trial_claim(trial_id=leader.pk, worker="w1")
    assert claimed is not None
    return claimed


def test_only_the_leader_of_the_first_round_is_sent_and_its_partner_is_the_same_cell(study):
    leader = claimed_leader(study)
    partner = duet_partner(leader)
    assert partner is not None and partner.status == Trial.Status.PENDING
    assert (leader.position, partner.position) == (0, 1)
    assert {leader.duet_half, partner.duet_half} == {0, 1}
    assert next_trials(study.pk, Trial.objects.filter(study=study, status=Trial.Status.PENDING)) == []
    first, second = duet_specs(leader, partner)
    assert (first.duet_half, second.duet_half) == (leader.duet_half, partner.duet_half)
    assert second.fence == first.fence != "" and second.attempt == first.attempt == 1


def test_a_failed_round_puts_both_sides_back_and_a_round_that_went_well_stores_both(study):
    leader = claimed_leader(study)
    partner = duet_partner(leader)
    assert partner is not None
    duet_round_finish(leader=leader, partner=partner, outcomes=(side_outcome(0, ok=False), side_outcome(0, ok=False)))
    both = Trial.objects.filter(pk__in=[leader.pk, partner.pk])
    assert sorted(both.values_list("status", "attempts")) == [("pending", 1), ("pending", 1)]
    assert sorted(Attempt.objects.filter(trial__in=both).values_list("result", flat=True)) == ["retried", "retried"]

    again = claimed_leader(study)
    assert again.pk == leader.pk and again.attempts == 2
    duet_round_finish(leader=again, partner=partner, outcomes=(side_outcome(101.0), side_outcome(99.0)))
    stored = {trial.pk: trial for trial in both}
    assert (stored[leader.pk].status, stored[leader.pk].tps, stored[leader.pk].attempts) == ("succeeded", 101.0, 2)
    assert (stored[partner.pk].status, stored[partner.pk].tps, stored[partner.pk].attempts) == ("succeeded", 99.0, 2)
    for trial in stored.values():
        assert trial.duet_cpus == str(trial.duet_half)  # halves "0" and "1" on a host of two CPUs
    # the next round's leader goes next, on the other half
    following = claimed_leader(study)
    assert following.repetition == 2 and following.duet_half == 1 - stored[leader.pk].duet_half
