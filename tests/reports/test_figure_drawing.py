"""The report's renderer of any page figure (reports/figure_drawing.py): pure, on figure dicts shaped as the pages'."""

import pytest
from reportlab.graphics.shapes import Circle, Drawing, Line, Rect, String
from reportlab.lib import colors

from benchdash.reports.figure_drawing import figure_drawing
from benchdash.reports.figure_marks import paint

RED, BLUE = "#c92a2a", "#1d4f91"


def drawn(figure: dict) -> Drawing:
    return figure_drawing(figure, title="t", subtitle="s", width=800, height=400, font="Helvetica")


def shapes(drawing: Drawing, kind: type, color: str | None = None) -> list:
    found = [shape for shape in drawing.contents if isinstance(shape, kind)]
    if color is None:
        return found
    return [shape for shape in found if getattr(shape, "fillColor", None) == colors.HexColor(color)]


def test_stacked_bars_sit_on_one_another_at_the_heights_of_their_values():
    figure = {
        "data": [
            {"type": "bar", "name": "user", "x": [["1", "1"], ["13", "14"]], "y": [30, 50], "marker": {"color": BLUE}},
            {"type": "bar", "name": "system", "x": [["1", "1"], ["13", "14"]], "y": [20, 10], "marker": {"color": RED}},
        ],
        "layout": {"barmode": "stack", "yaxis": {"range": [0, 100]}},
    }
    drawing = drawn(figure)
    # Wider than the legend's swatches:
    user, system = ([bar for bar in shapes(drawing, Rect, color) if bar.width > 10] for color in (BLUE, RED))

    assert len(user) == len(system) == 2
    assert system[0].y == pytest.approx(user[0].y + user[0].height)  # stacked on the first
    assert user[0].height / system[0].height == pytest.approx(30 / 20)
    assert user[1].height / user[0].height == pytest.approx(50 / 30)
    texts = [shape.text for shape in shapes(drawing, String)]
    assert "1 · 13" in texts and "user" in texts and "system" in texts  # the two-level labels, the legend


def test_an_icicle_draws_each_call_as_wide_as_its_share_of_its_caller():
    figure = {
        "data": [
            {
                "type": "icicle",
                "ids": ["0", "1", "2"],
                "labels": ["all", "ExecScan", "pg_parse_query"],
                "parents": ["", "0", "0"],
                "values": [100, 60, 40],
            }
        ]
    }
    rects = [shape for shape in shapes(drawn(figure), Rect) if shape.width > 0 and shape.strokeColor == colors.white]

    root, scan, parse = rects
    assert scan.width + parse.width == pytest.approx(root.width)
    assert scan.width / parse.width == pytest.approx(60 / 40)
    assert scan.y < root.y  # callees under their caller


def test_lines_break_where_a_value_is_missing_and_a_zoom_leaves_out_what_lies_outside():
    trace = {"type": "scatter", "mode": "lines+markers", "x": [1, 2, 4, 8], "y": [100, None, 300, 400]}
    whole = drawn({"data": [trace], "layout": {"xaxis": {"tickvals": [1, 2, 4, 8]}}})
    zoomed = drawn({"data": [trace], "layout": {"xaxis": {"tickvals": [1, 2, 4, 8], "range": [0, 5]}}})

    assert len(shapes(whole, Circle)) == 3 and len(shapes(zoomed, Circle)) == 2
    assert "8" in [shape.text for shape in shapes(whole, String)]
    assert "8" not in [shape.text for shape in shapes(zoomed, String)]


def test_a_band_shows_as_its_colour_on_white_and_a_change_line_stays_over_it():
    band = {"type": "rect", "xref": "x", "yref": "paper", "x0": -0.5, "x1": 1.5, "y0": 0, "y1": 1}
    line = {"type": "line", "xref": "x", "yref": "paper", "x0": 0.5, "x1": 0.5, "y0": 0, "y1": 1, "line": {}}
    figure = {
        "data": [{"type": "scatter", "mode": "markers", "x": ["13.4", "14.0"], "y": [400, 420]}],
        "layout": {"shapes": [line, band | {"fillcolor": "rgba(250, 176, 5, 0.18)"}]},
    }
    drawing = drawn(figure)
    contents = drawing.contents
    pale = paint("rgba(250,176,5,0.18)")
    [rect] = [shape for shape in contents if isinstance(shape, Rect) and shape.fillColor == pale]
    [marker] = [shape for shape in contents if isinstance(shape, Line) and shape.strokeDashArray is None and
                shape.x1 == shape.x2 and shape.x1 > rect.x + 1]  # fmt: skip

    assert paint("rgba(250, 176, 5, 0.18)").red == pytest.approx(1 - 0.18 + 0.18 * 250 / 255)
    assert contents.index(rect) < contents.index(marker)
    assert marker.x1 == pytest.approx(rect.x + rect.width / 2)  # between the two categories
