"""A report as a 16:9 slide deck (python-pptx): a title slide, then per scenario a chart slide, the chart titled with
its scenario, unit and study, drawn as a native chart (members restyle it in PowerPoint), and a slide of its
comparison table (figures, then a ratio per comparison named by its axis, with its interval and verdict) as a native
table; under each the figure's manifest and its "run this design again" link."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _
from pptx import Presentation
from pptx.chart.data import CategoryChartData, XyChartData
from pptx.dml.color import RGBColor
from pptx.enum.chart import XL_CHART_TYPE, XL_LEGEND_POSITION
from pptx.presentation import Presentation as Deck
from pptx.util import Emu, Inches, Pt

from benchdash.reports.content import StudyReport
from benchdash.reports.evidence import ratio_text
from benchdash.reports.figures import ReportChart
from benchdash.reports.manifest import Manifest
from benchdash.studies.results.charts import PALETTE
from benchdash.studies.results.tables import ScenarioTable

SLIDE_WIDTH, SLIDE_HEIGHT = Inches(13.333), Inches(7.5)  # 16:9
TITLE_ONLY_LAYOUT = 5
MARGIN = Inches(0.5)


def report_pptx(reports: Sequence[StudyReport], title: str) -> bytes:
    deck = Presentation()
    deck.slide_width, deck.slide_height = SLIDE_WIDTH, SLIDE_HEIGHT
    cover = deck.slides.add_slide(deck.slide_layouts[0])
    cover.shapes.title.text = title
    cover.placeholders[1].text = "\n".join(report.heading for report in reports) or _("No official study this year.")
    for report in reports:
        for section in report.sections:
            _chart_slide(deck, section.chart, report.manifest)
            _table_slide(deck, section.table, report.manifest)
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def _titled_slide(deck: Deck, text: str) -> Any:  # python-pptx's shapes take lengths its stubs call int
    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_ONLY_LAYOUT])
    title = slide.shapes.title
    title.left, title.top, title.width, title.height = MARGIN, Inches(0.2), SLIDE_WIDTH - 2 * MARGIN, Inches(0.9)
    title.text = text
    title.text_frame.paragraphs[0].font.size = Pt(28)
    return slide


def _chart_slide(deck: Deck, chart: ReportChart, manifest: Manifest) -> None:
    slide = _titled_slide(deck, chart.title)
    chart_type, data = _chart_type_and_data(chart)
    width, height = SLIDE_WIDTH - 2 * MARGIN, Inches(5.2)
    frame = slide.shapes.add_chart(chart_type, MARGIN, Inches(1.1), width, height, data)
    _style(frame.chart, chart)
    _manifest_box(slide, manifest)


def _table_slide(deck: Deck, table: ScenarioTable, manifest: Manifest) -> None:
    """A scenario's comparison table, as the PDF prints it: clients, each line's figure, then each comparison's ratio
    with its interval and verdict, headed by its axis and both sides ('data checksums on / off', 'PostgreSQL 15.2')."""
    slide = _titled_slide(deck, _("%(scenario)s: comparison") % {"scenario": table.scenario_name})
    header = [_("clients")] + [column.name for column in table.columns]
    header += [f"{column.ratio_label}\n{column.name}" for column in table.compared_columns]
    rows = [header] + [
        [f"{row.clients} {row.conditions}".strip(), *(cell.figure for cell in row.cells)]
        + [ratio_text(cell) for cell in row.compared_cells]
        for row in table.rows
    ]
    height = min(Inches(5.2), Inches(0.4) * len(rows))
    shape = slide.shapes.add_table(len(rows), len(header), MARGIN, Inches(1.1), SLIDE_WIDTH - 2 * MARGIN, height)
    for row_number, texts in enumerate(rows):
        for column_number, text in enumerate(texts):
            cell = shape.table.cell(row_number, column_number)
            cell.text = text
            cell.text_frame.paragraphs[0].font.size = Pt(11 if len(rows) <= 12 else 8)
    _manifest_box(slide, manifest)


def _chart_type_and_data(chart: ReportChart) -> tuple[int, XyChartData | CategoryChartData]:
    if chart.numeric_x:
        data = XyChartData()
        for series in chart.series:
            line = data.add_series(series.name)
            for x, value in zip(chart.x_values, series.values, strict=True):
                if value is not None:
                    line.add_data_point(x, value)
        return XL_CHART_TYPE.XY_SCATTER_LINES, data
    categories = CategoryChartData()
    categories.categories = chart.x_labels
    for series in chart.series:
        categories.add_series(series.name, series.values)
    return XL_CHART_TYPE.LINE_MARKERS, categories


def _style(native, chart: ReportChart) -> None:  # type: ignore[no-untyped-def]
    native.has_title = True
    native.chart_title.text_frame.text = f"{chart.title}\n{chart.subtitle}"
    native.chart_title.text_frame.paragraphs[0].font.size = Pt(16)
    native.chart_title.text_frame.paragraphs[1].font.size = Pt(11)
    native.has_legend = True
    native.legend.position = XL_LEGEND_POSITION.BOTTOM
    native.legend.include_in_layout = False
    native.legend.font.size = Pt(12)
    for axis, text in ((native.category_axis, chart.x_title), (native.value_axis, chart.y_title)):
        axis.has_title = True
        axis.axis_title.text_frame.text = text
        axis.tick_labels.font.size = Pt(11)
    native.value_axis.tick_labels.number_format = "#,##0"
    native.value_axis.tick_labels.number_format_is_linked = False
    for number, plot_series in enumerate(native.plots[0].series):
        plot_series.format.line.color.rgb = RGBColor.from_string(PALETTE[number % len(PALETTE)].lstrip("#"))
        plot_series.smooth = False


def _manifest_box(slide, manifest: Manifest) -> None:  # type: ignore[no-untyped-def]
    top = Inches(6.35)
    box = slide.shapes.add_textbox(MARGIN, top, SLIDE_WIDTH - 2 * MARGIN, Emu(SLIDE_HEIGHT - top - Inches(0.1)))
    frame = box.text_frame
    frame.word_wrap = True
    frame.text = " · ".join(f"{label}: {value}" for label, value in manifest.lines())
    frame.paragraphs[0].font.size = Pt(9)
    link = frame.add_paragraph().add_run()
    link.text = _("Run this design again") + ": " + manifest.rerun_url
    link.hyperlink.address = manifest.rerun_url
    link.font.size = Pt(9)
