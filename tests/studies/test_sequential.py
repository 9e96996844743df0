"""The group-sequential looks of studies/results/sequential.py: the boundaries spend exactly the 5%."""

import numpy as np
import pytest

from benchdash.studies.results.sequential import Design, boundaries, spent


def test_the_spending_function_spends_nothing_early_and_everything_at_the_cap():
    assert spent(1.0) == pytest.approx(0.05)
    assert spent(0.3) == pytest.approx(2 - 2 * 0.999827, abs=1e-5)  # z 1.96 / sqrt(0.3) = 3.578
    assert spent(0.3) < spent(0.5) < spent(0.9) < 0.05


def test_two_looks_give_the_lan_demets_obrien_fleming_boundaries():
    first, last = boundaries((0.5, 1.0))
    assert first == pytest.approx(2.7718, abs=1e-3)  # 1.96 / sqrt(0.5): the first look spends alpha(0.5) alone
    assert last == pytest.approx(1.9793, abs=2e-3)  # below 1.96 + a little: nearly the whole 5% is left


def test_the_boundaries_keep_the_false_alarm_rate_at_five_percent_whatever_the_look():
    fractions = tuple(runs / 10 for runs in range(3, 11))
    found = np.array(boundaries(fractions))
    rng = np.random.default_rng(5)
    steps = rng.normal(size=(200_000, len(fractions))) * np.sqrt(np.diff((0.0, *fractions)))
    z = np.cumsum(steps, axis=1) / np.sqrt(fractions)
    assert (np.abs(z) > found).any(axis=1).mean() == pytest.approx(0.05, abs=0.002)


def test_a_study_draws_each_look_at_its_own_confidence():
    design = Design(3, 10)
    assert design.looks == list(range(3, 11))
    confidences = [design.confidence(runs) for runs in design.looks]
    assert confidences == sorted(confidences, reverse=True)
    assert confidences[0] == pytest.approx(0.99965, abs=1e-5)
    assert design.final_confidence == pytest.approx(0.9661, abs=1e-3)  # Bonferroni would have 99.375%
    assert design.confidence(12) == design.final_confidence and design.confidence(1) == confidences[0]


@pytest.mark.parametrize("design", [Design(), Design(3), Design(3, 3), Design(5, 4)])
def test_a_fixed_design_has_one_look_at_ninety_five_percent(design):
    assert design.confidence(3) == 0.95 == design.final_confidence


def test_a_first_look_that_spends_nearly_nothing_gets_a_finite_boundary():
    design = Design(1, 20)  # the first look at 1/20 of the cap spends 1e-18 of the 5%
    assert boundaries(tuple(runs / 20 for runs in design.looks))[0] == 8.0
    assert design.final_confidence == pytest.approx(0.9698, abs=1e-3)
