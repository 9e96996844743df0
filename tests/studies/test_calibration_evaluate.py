"""A calibration's rounds resampled into studies on constructed inputs: no false alarm where A and A' do not differ,
calls that rise with the size of the slowdown, each size's real effect, and the studies counted (issue 42, point 3)."""

import math
import random

from benchdash.studies.results.calibration import CalibrationRound, evaluate, real_effects


def rounds_of(count: int, cv: float, *, seed: int = 7, sizes=(2, 5, 10)) -> list[CalibrationRound]:
    """Rounds whose runs spread by cv around 1000 TPS, each size slowed by its own percentage."""
    noise = random.Random(seed)

    def run(scale: float) -> float:
        return 1000 * scale * math.exp(noise.gauss(0, cv))

    return [CalibrationRound(run(1), run(1), {size: run(1 - size / 100) for size in sizes}) for _ in range(count)]


def test_a_and_a_prime_that_do_not_differ_give_no_false_alarm_and_every_slowdown_is_called():
    wobble = [1.0, 1.003, 0.998, 1.002, 0.999]
    rounds = [CalibrationRound(1000 + index, 1000 + index, {5: 900 * wobble[index]}) for index in range(5)]
    (three, five) = evaluate(rounds, threshold=0.02)
    assert (three.runs, three.studies, three.false_alarms) == (3, 10, 0)  # C(5, 3) studies, every one
    assert (five.runs, five.studies) == (5, 1)
    # the pairs' own spread is tiny (the same ratio every round): 10% slower is called in every study
    assert three.called == {5: 10} and five.called == {5: 1}


def test_calls_rise_with_the_size_and_false_alarms_stay_rare():
    detections = evaluate(rounds_of(12, 0.02), threshold=0.01, seed=3, resamples=100)
    assert [detection.runs for detection in detections] == [3, 5, 8, 10]
    for detection in detections:
        assert detection.studies == (66 if detection.runs == 10 else 100)  # C(12, 10) = 66 <= 100: all of them
        assert detection.called[2] <= detection.called[5] <= detection.called[10]
        assert detection.false_alarms <= 0.1 * detection.studies
    three, ten = detections[0], detections[-1]
    assert ten.called[10] == ten.studies
    assert three.called[2] / three.studies <= ten.called[2] / ten.studies  # more runs a side, more calls


def test_each_sizes_real_effect_is_what_the_runs_say_beside_the_nominal_size():
    rounds = [CalibrationRound(1000, 1010, {2: 990, 5: 940}), CalibrationRound(1200, 1190, {2: 1176, 5: 1128})]
    assert real_effects(rounds) == {2: round(1 - math.sqrt(0.99 * 0.98), 4), 5: round(1 - math.sqrt(0.94 * 0.94), 4)}


def test_too_few_rounds_give_no_studies():
    assert evaluate(rounds_of(2, 0.02)) == []
    assert real_effects([]) == {}
