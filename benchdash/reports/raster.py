"""A ReportLab drawing as a PNG, drawn by Pillow: the report's own renderer (renderPM) with a graphics state of ours.

ReportLab 5 rasterises only through rlPyCairo, whose pycairo has no wheel for Linux (it compiles against cairo's
headers); Pillow, which ReportLab already installs, draws the few things a chart holds: paths, filled shapes and
text in the report's TrueType font. renderPM walks the drawing and hands each shape to this state as path
operations in the drawing's coordinates (y up); the state maps them through the current matrix onto an image drawn
at SUPERSAMPLE times the size and scaled down, which smooths the edges (Pillow draws without anti-aliasing).
"""

from __future__ import annotations

import io
import math
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont
from reportlab.graphics.renderbase import renderScaledDrawing
from reportlab.graphics.renderPM import PMCanvas, _PMRenderer
from reportlab.graphics.shapes import Drawing
from reportlab.pdfbase.pdfmetrics import getFont, stringWidth

SUPERSAMPLE = 2
CURVE_STEPS = 8  # straight pieces per Bézier curve: markers are a few pixels wide
Point = tuple[float, float]


def drawing_png(drawing: Drawing, *, scale: float = 2.0) -> bytes:
    """The drawing as PNG bytes, `scale` pixels per point (2: sharp on a high-density screen or a slide)."""
    drawing = renderScaledDrawing(drawing)
    canvas = _PillowCanvas(drawing.width, drawing.height, dpi=72 * scale)
    _PMRenderer().draw(drawing, canvas, 0, 0)
    buffer = io.BytesIO()
    canvas._gs.image().save(buffer, "PNG")
    return buffer.getvalue()


class _PillowCanvas(PMCanvas):
    @staticmethod
    def _getGState(w: int, h: int, bg: int, backend: Any = None, fmt: str = "RGB24") -> PillowState:
        return PillowState(w, h, bg)

    # renderPM's own two go through a font-to-path step that needs pycairo: the state sets its font itself.
    def setFont(self, fontName: str, fontSize: float, leading: float | None = None) -> None:  # noqa: N802, N803
        self._gs.setFont(fontName, fontSize)

    def drawString(  # noqa: N802
        self,
        x: float,
        y: float,
        text: str,
        _fontInfo: tuple[str, float] | None = None,
        text_anchor: str = "left",
        **_: Any,
    ) -> None:
        state = self._gs
        before = (state.fontName, state.fontSize)
        if _fontInfo:
            state.setFont(*_fontInfo)
        width = stringWidth(text, state.fontName, state.fontSize)
        state.drawString(x - {"end": width, "middle": width / 2}.get(text_anchor, 0), y, text)
        state.setFont(*before)


class PillowState:
    """The graphics state renderPM's canvas asks of a backend: colours, line width, the matrix, the font, and the
    path operations; attributes it only sets (caps, joins, opacity) are kept and not drawn."""

    def __init__(self, width: int, height: int, background: int) -> None:
        self.width, self.height = width, height
        self._image = Image.new("RGB", (width * SUPERSAMPLE, height * SUPERSAMPLE), _rgb_of_int(background))
        self._draw = ImageDraw.Draw(self._image)
        self._paths: list[list[Point]] = []
        self.ctm: tuple[float, ...] = (1, 0, 0, 1, 0, 0)
        self.strokeColor: Any = None
        self.fillColor: Any = None
        self.strokeWidth = 1.0
        self.fontName, self.fontSize = "Helvetica", 10.0
        self.textRenderMode, self.fillMode, self.dashArray = 0, 0, None
        self.strokeOpacity = self.fillOpacity = 1.0
        self.lineCap = self.lineJoin = 0

    def image(self) -> Image.Image:
        return self._image.reduce(SUPERSAMPLE)  # the mean of each square of pixels

    def setFont(self, name: str, size: float) -> None:  # noqa: N802 (renderPM's name)
        self.fontName, self.fontSize = name, size

    def pathBegin(self) -> None:  # noqa: N802
        self._paths = []

    def moveTo(self, x: float, y: float) -> None:  # noqa: N802
        self._paths.append([self._device(x, y)])

    def lineTo(self, x: float, y: float) -> None:  # noqa: N802
        if not self._paths:
            self._paths.append([])
        self._paths[-1].append(self._device(x, y))

    def curveTo(self, x1: float, y1: float, x2: float, y2: float, x3: float, y3: float) -> None:  # noqa: N802
        start = self._paths[-1][-1]
        points = (start, self._device(x1, y1), self._device(x2, y2), self._device(x3, y3))
        self._paths[-1] += [_bezier(points, step / CURVE_STEPS) for step in range(1, CURVE_STEPS + 1)]

    def pathClose(self) -> None:  # noqa: N802
        if self._paths and self._paths[-1]:
            self._paths[-1].append(self._paths[-1][0])

    def pathFill(self, fillMode: Any = None) -> None:  # noqa: N802, N803
        if self.fillColor is None:
            return
        for path in self._paths:
            if len(path) > 2:
                self._draw.polygon(path, fill=_rgb(self.fillColor))

    def pathStroke(self) -> None:  # noqa: N802
        if self.strokeColor is None or not self.strokeWidth:
            return
        width = max(1, round(self.strokeWidth * self._stretch() * SUPERSAMPLE))
        for path in self._paths:
            if len(path) > 1:
                self._draw.line(path, fill=_rgb(self.strokeColor), width=width, joint="curve")

    def clipPathClear(self) -> None:  # noqa: N802
        """Charts clip nothing: a clip path is not applied."""

    def drawString(self, x: float, y: float, text: str) -> None:  # noqa: N802
        """The text from its baseline's start at (x, y), turned as the matrix turns (an axis title a quarter)."""
        if self.fillColor is None or not text:
            return
        a, b = self.ctm[0], self.ctm[1]
        font = _font(self.fontName, round(self.fontSize * self._stretch() * SUPERSAMPLE))
        origin = self._device(x, y)
        angle = math.degrees(math.atan2(b, a))
        if abs(angle) < 0.01:
            self._draw.text(origin, text, font=font, fill=_rgb(self.fillColor), anchor="ls")
            return
        self._draw_turned(text, font, origin, angle)

    def _draw_turned(self, text: str, font: ImageFont.FreeTypeFont, origin: Point, angle: float) -> None:
        left, top, right, bottom = font.getbbox(text, anchor="ls")
        mask = Image.new("L", (math.ceil(right - left) + 2, math.ceil(bottom - top) + 2), 0)
        ImageDraw.Draw(mask).text((-left + 1, -top + 1), text, font=font, fill=255, anchor="ls")
        turned = mask.rotate(angle, expand=True, resample=Image.Resampling.BICUBIC)
        # Where the baseline's start lands in the turned mask: turned about the centre, the centre moved by expand.
        dx, dy = -left + 1 - mask.width / 2, -top + 1 - mask.height / 2
        radians = math.radians(angle)
        moved_x = dx * math.cos(radians) + dy * math.sin(radians) + turned.width / 2
        moved_y = -dx * math.sin(radians) + dy * math.cos(radians) + turned.height / 2
        corner = (round(origin[0] - moved_x), round(origin[1] - moved_y))
        self._image.paste(Image.new("RGB", turned.size, _rgb(self.fillColor)), corner, turned)

    def _device(self, x: float, y: float) -> Point:
        a, b, c, d, e, f = self.ctm
        return ((a * x + c * y + e) * SUPERSAMPLE, (self.height - (b * x + d * y + f)) * SUPERSAMPLE)

    def _stretch(self) -> float:
        a, b, c, d = self.ctm[:4]
        return math.sqrt(abs(a * d - b * c))


def _bezier(points: tuple[Point, Point, Point, Point], t: float) -> Point:
    u = 1 - t
    weights = (u**3, 3 * u * u * t, 3 * u * t * t, t**3)
    return (
        sum(w * p[0] for w, p in zip(weights, points, strict=True)),
        sum(w * p[1] for w, p in zip(weights, points, strict=True)),
    )


def _rgb(color: Any) -> tuple[int, int, int]:
    return (round(color.red * 255), round(color.green * 255), round(color.blue * 255))


def _rgb_of_int(value: int) -> tuple[int, int, int]:
    return ((value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF)


@lru_cache(maxsize=32)
def _font(name: str, pixels: int) -> ImageFont.FreeTypeFont:
    """A registered TrueType font (the report's, pdf.report_font) from its own bytes; a standard font (the default
    Helvetica of a label nobody set) in Pillow's own face."""
    font = getFont(name)
    data = getattr(getattr(font, "face", None), "_ttf_data", None)
    if data:
        return ImageFont.truetype(io.BytesIO(data), max(1, pixels))
    return ImageFont.load_default(max(1, pixels))  # type: ignore[return-value]
