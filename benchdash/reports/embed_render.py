"""An embedded chart drawn by the report's renderer (figure_drawing.py draws its page's plotly figure): the chart,
and its stamp under it, as SVG (ReportLab's renderSVG: text stays text) or PNG (renderPM over Pillow, raster.py)."""

from __future__ import annotations

from reportlab.graphics import renderSVG
from reportlab.graphics.shapes import Drawing, Group, String
from reportlab.lib import colors

from benchdash.reports.embeds import Embed
from benchdash.reports.figure_drawing import figure_drawing
from benchdash.reports.pdf import report_font
from benchdash.reports.raster import drawing_png

WIDTH, CHART_HEIGHT = 800, 400  # points; 2 pixels a point in the PNG: 1600 wide
STAMP_LINE = 11
STAMP_COLOR = colors.HexColor("#444444")


def embed_drawing(embed: Embed) -> Drawing:
    font = report_font()
    lines = embed.lines
    stamp_height = STAMP_LINE * len(lines) + 8
    chart = figure_drawing(
        embed.figure, title=embed.title, subtitle=embed.subtitle, width=WIDTH, height=CHART_HEIGHT, font=font
    )
    drawing = Drawing(WIDTH, CHART_HEIGHT + stamp_height)
    drawing.add(Group(*chart.contents, transform=(1, 0, 0, 1, 0, stamp_height)))
    for number, line in enumerate(lines):
        y = stamp_height - STAMP_LINE * (number + 1)
        drawing.add(String(4, y, line, fontName=font, fontSize=8, fillColor=STAMP_COLOR))
    return drawing


def embed_png(embed: Embed) -> bytes:
    return drawing_png(embed_drawing(embed))


def embed_svg(embed: Embed) -> bytes:
    return renderSVG.drawToString(embed_drawing(embed)).encode()
