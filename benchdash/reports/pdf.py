"""A report as a PDF (ReportLab): per study its environment and procedure, then per scenario the chart with its
manifest, the 前バージョン比 table with intervals and verdicts and the evidence of each difference, and last the
conclusions. Japanese text is set in IPAexGothic, embedded (Debian's fonts-ipaexfont-gothic)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from xml.sax.saxutils import escape

from django.utils.translation import gettext as _
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, StyleSheet1, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import KeepTogether, PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from benchdash.reports.content import ScenarioSection, StudyReport
from benchdash.reports.evidence import ratio_text
from benchdash.reports.manifest import Manifest
from benchdash.reports.numbers import figure_text
from benchdash.reports.pdf_chart import chart_drawing

JAPANESE_FONT_FILES = (
    Path("/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf"),
    Path("/usr/share/fonts/truetype/fonts-japanese-gothic.ttf"),
)
# Without the font file the PDF names a standard Japanese font that readers supply (nothing embedded).
FALLBACK_FONT = "HeiseiKakuGo-W5"
PAGE_WIDTH = A4[0] - 36 * mm


@cache
def report_font() -> str:
    font_file = next((path for path in JAPANESE_FONT_FILES if path.exists()), None)
    if font_file is None:
        pdfmetrics.registerFont(UnicodeCIDFont(FALLBACK_FONT))
        return FALLBACK_FONT
    pdfmetrics.registerFont(TTFont("IPAexGothic", str(font_file)))
    return "IPAexGothic"


def report_pdf(reports: Sequence[StudyReport], title: str) -> bytes:
    buffer = io.BytesIO()
    styles = _styles(report_font())
    document = SimpleDocTemplate(
        buffer, pagesize=A4, title=title, author="benchdash", leftMargin=18 * mm, rightMargin=18 * mm
    )
    story: list = [Paragraph(escape(title), styles["Title"])]
    for number, report in enumerate(reports):
        if number:
            story.append(PageBreak())
        story += _study_story(report, styles, with_heading=len(reports) > 1)
    if not reports:
        story.append(Paragraph(escape(_("No official study this year.")), styles["BodyText"]))
    document.build(story)
    return buffer.getvalue()


def _styles(font: str) -> StyleSheet1:
    styles = getSampleStyleSheet()
    for name in ("Title", "Heading1", "Heading2", "Heading3", "BodyText", "Code"):
        styles[name].fontName = font
    styles["BodyText"].wordWrap = "CJK"  # Japanese has no spaces to break at
    styles.add(ParagraphStyle("Small", parent=styles["BodyText"], fontSize=7.5, leading=9.5, textColor="#444444"))
    styles.add(ParagraphStyle("Cell", parent=styles["BodyText"], fontSize=8, leading=10))
    return styles


def _study_story(report: StudyReport, styles: StyleSheet1, *, with_heading: bool) -> list:
    story: list = [Paragraph(escape(report.heading), styles["Heading1"])] if with_heading else []
    story += _steps_table(_("Environment"), report.environment, styles)
    story += _steps_table(_("Procedure"), report.procedure, styles)
    for section in report.sections:
        story += _section_story(report, section, styles)
    if not report.sections:
        story.append(Paragraph(escape(_("No finished trials yet.")), styles["BodyText"]))
    story.append(Paragraph(escape(_("Notes and conclusions")), styles["Heading2"]))
    conclusions = report.study.conclusions or _("None written yet.")
    story += [Paragraph(escape(paragraph), styles["BodyText"]) for paragraph in conclusions.split("\n") if paragraph]
    return story


def _steps_table(heading: str, steps: Sequence, styles: StyleSheet1) -> list:
    rows = [[_cell(str(step.name), styles), _cell(str(step.value), styles)] for step in steps]
    table = Table(rows, colWidths=[45 * mm, PAGE_WIDTH - 45 * mm])
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("TEXTCOLOR", (0, 0), (0, -1), "#555555")]))
    return [Paragraph(escape(heading), styles["Heading2"]), table]


def _section_story(report: StudyReport, section: ScenarioSection, styles: StyleSheet1) -> list:
    drawing = chart_drawing(section.chart, width=PAGE_WIDTH, height=85 * mm, font=report_font())
    figure = [drawing, *_manifest_paragraphs(report.manifest, styles)]
    evidence = [Paragraph("• " + escape(line), styles["Cell"]) for line in section.evidence]
    return [
        Paragraph(escape(section.table.scenario_name), styles["Heading2"]),
        KeepTogether(figure),
        Spacer(1, 3 * mm),
        _ratio_table(report, section, styles),
        Paragraph(escape(_("Evidence of each difference")), styles["Heading3"]),
        *evidence,
    ]


def _manifest_paragraphs(manifest: Manifest, styles: StyleSheet1) -> list[Paragraph]:
    text = " · ".join(f"{escape(label)}: {escape(value)}" for label, value in manifest.lines())
    link = f'<link href="{escape(manifest.rerun_url)}" color="#1d4f91">{escape(_("Run this design again"))}</link>'
    return [Paragraph(text, styles["Small"]), Paragraph(f"{link}: {escape(manifest.rerun_url)}", styles["Small"])]


def _ratio_table(report: StudyReport, section: ScenarioSection, styles: StyleSheet1) -> Table:
    table = section.table
    header = [_("clients")] + [column.name for column in table.columns]
    header += [_("ratio to the previous version") + f" ({column.name})" for column in table.compared_columns]
    rows = [[_cell(text, styles) for text in header]]
    for row in table.rows:
        clients = f"{row.clients} {row.conditions}".strip()
        figures = [figure_text(cell.point.figure if cell.point else None) for cell in row.cells]
        rows.append([_cell(text, styles) for text in [clients, *figures, *map(ratio_text, row.compared_cells)]])
    widths = _column_widths(len(table.columns), len(table.compared_columns))
    result = Table(rows, colWidths=widths, repeatRows=1)
    result.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#bbbbbb")),
                ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#eef1f6")),
                ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
            ]
        )
    )
    return result


def _column_widths(builds: int, compared: int) -> list[float]:
    clients = 22 * mm
    ratio = min(55 * mm, (PAGE_WIDTH - clients) * 0.5 / max(compared, 1))
    figure = (PAGE_WIDTH - clients - ratio * compared) / max(builds, 1)
    return [clients, *[figure] * builds, *[ratio] * compared]


def _cell(text: str, styles: StyleSheet1) -> Paragraph:
    return Paragraph(escape(text), styles["Cell"])
