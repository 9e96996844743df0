"""A ReportChart drawn with ReportLab's own graphics: vector lines, the title on top, axis titles and a legend
under the plot that wraps instead of clipping a long build name."""

from __future__ import annotations

from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing, Group, String
from reportlab.graphics.widgets.markers import makeMarker
from reportlab.lib import colors

from benchdash.reports.figures import ReportChart
from benchdash.reports.numbers import figure_text
from benchdash.studies.results.charts import PALETTE

LEGEND_ROW_HEIGHT = 12
LEGEND_COLUMNS = 3


def chart_drawing(chart: ReportChart, *, width: float, height: float, font: str) -> Drawing:
    legend_rows = -(-len(chart.series) // LEGEND_COLUMNS)
    bottom = 40 + legend_rows * LEGEND_ROW_HEIGHT
    drawing = Drawing(width, height)
    drawing.add(String(0, height - 12, chart.title, fontName=font, fontSize=10))
    drawing.add(String(0, height - 24, chart.subtitle, fontName=font, fontSize=8, fillColor=colors.HexColor("#444444")))
    plot = _plot(chart, font)
    plot.x, plot.y, plot.width, plot.height = 55, bottom, width - 70, height - bottom - 40
    drawing.add(plot)
    drawing.add(
        String(plot.x + plot.width / 2, bottom - 26, chart.x_title, fontName=font, fontSize=8, textAnchor="middle")
    )
    y_title = String(0, 0, chart.y_title, fontName=font, fontSize=8, textAnchor="middle")
    drawing.add(Group(y_title, transform=(0, 1, -1, 0, 10, plot.y + plot.height / 2)))  # a quarter turn
    drawing.add(_legend(chart, font, x=plot.x, y=legend_rows * LEGEND_ROW_HEIGHT, width=plot.width))
    return drawing


def _plot(chart: ReportChart, font: str) -> LinePlot:
    plot = LinePlot()
    xs = chart.x_values
    plot.data = [
        [(x, value) for x, value in zip(xs, series.values, strict=True) if value is not None] for series in chart.series
    ]
    for number in range(len(chart.series)):
        color = colors.HexColor(PALETTE[number % len(PALETTE)])
        plot.lines[number].strokeColor = color
        plot.lines[number].strokeWidth = 1.5
        plot.lines[number].symbol = makeMarker("FilledCircle", size=3, fillColor=color, strokeColor=color)
    plot.xValueAxis.valueSteps = xs
    plot.xValueAxis.valueMin = 0 if chart.numeric_x else -0.5
    plot.xValueAxis.valueMax = max(xs) * (1.03 if chart.numeric_x else 1) + (0 if chart.numeric_x else 0.5)
    labels = dict(zip(xs, chart.x_labels, strict=True))
    plot.xValueAxis.labelTextFormat = lambda value: labels.get(value, "")
    plot.yValueAxis.valueMin = 0
    plot.yValueAxis.labelTextFormat = figure_text
    for axis in (plot.xValueAxis, plot.yValueAxis):
        axis.labels.fontName, axis.labels.fontSize = font, 7
    plot.yValueAxis.visibleGrid = True
    plot.yValueAxis.gridStrokeColor = colors.HexColor("#dddddd")
    return plot


def _legend(chart: ReportChart, font: str, *, x: float, y: float, width: float) -> Legend:
    legend = Legend()
    legend.x, legend.y = x, y
    legend.fontName, legend.fontSize = font, 8
    legend.alignment = "right"
    legend.columnMaximum = -(-len(chart.series) // LEGEND_COLUMNS) or 1
    legend.deltax = width / LEGEND_COLUMNS
    legend.dxTextSpace = 4
    legend.colorNamePairs = [
        (colors.HexColor(PALETTE[number % len(PALETTE)]), series.name) for number, series in enumerate(chart.series)
    ]
    return legend
