"""column_texts(): one number format per column of a table, each figure rounded as the CSV rounds it."""

from benchdash.studies.results.numbers import column_texts


def test_every_figure_of_a_column_gets_the_places_of_its_most_precise_one():
    assert column_texts([437.2413, 8404.637, 34000.0, None]) == ["437.2413", "8,404.6370", "34,000.0000", "—"]


def test_a_column_of_whole_figures_has_no_decimals_and_float_noise_never_shows():
    assert column_texts([34000.0, 1.7 * 20000]) == ["34,000", "34,000"]
    assert column_texts([100 * 1.09, 412.5]) == ["109.0", "412.5"]


def test_a_figure_is_rounded_to_the_csv_s_four_places():
    assert column_texts([412.93731234]) == ["412.9373"]
    assert column_texts([None, None]) == ["—", "—"]
