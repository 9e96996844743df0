"""reports/raster.py: a ReportLab drawing rasterised by Pillow puts each shape where the drawing says (y up), in its
colour, and turns text as its group turns it (an axis title a quarter)."""

import io

from PIL import Image
from reportlab.graphics.shapes import Circle, Drawing, Group, Line, Rect, String
from reportlab.lib import colors

from benchdash.reports.pdf import report_font
from benchdash.reports.raster import drawing_png

RED, BLUE, WHITE = (255, 0, 0), (0, 0, 255), (255, 255, 255)


def rendered(drawing: Drawing, scale: float = 1.0) -> Image.Image:
    data = drawing_png(drawing, scale=scale)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return Image.open(io.BytesIO(data)).convert("RGB")


def inked_box(image: Image.Image) -> tuple[int, int, int, int]:
    """The box around every pixel that is not white."""
    box = Image.eval(image.convert("L"), lambda value: 255 if value < 200 else 0).getbbox()
    assert box is not None, "nothing drawn"
    return box


def test_shapes_land_where_the_drawing_puts_them_with_y_up_and_in_their_colours() -> None:
    drawing = Drawing(200, 100)
    drawing.add(Rect(10, 10, 40, 30, fillColor=colors.red, strokeColor=None))  # bottom left
    drawing.add(Circle(160, 70, 15, fillColor=colors.blue, strokeColor=None))  # top right

    image = rendered(drawing, scale=2.0)

    assert image.size == (400, 200)
    assert image.getpixel((60, 200 - 50)) == RED  # the rectangle's middle, y counted from the bottom
    assert image.getpixel((320, 200 - 140)) == BLUE  # the circle's centre
    assert image.getpixel((60, 40)) == WHITE and image.getpixel((320, 160)) == WHITE


def test_a_line_is_drawn_with_its_width() -> None:
    drawing = Drawing(100, 100)
    drawing.add(Line(0, 50, 100, 50, strokeColor=colors.black, strokeWidth=4))

    left, top, right, bottom = inked_box(rendered(drawing))

    assert (left, right) == (0, 100) and 3 <= bottom - top <= 5 and top in range(46, 50)


def test_text_turned_a_quarter_stands_upright_and_level_text_lies_flat() -> None:
    font = report_font()
    level, turned = Drawing(300, 300), Drawing(300, 300)
    level.add(String(50, 150, "TPS (median) 中央値", fontName=font, fontSize=14))
    title = String(0, 0, "TPS (median) 中央値", fontName=font, fontSize=14)
    turned.add(Group(title, transform=(0, 1, -1, 0, 150, 50)))  # as pdf_chart turns the y axis title

    level_left, level_top, level_right, level_bottom = inked_box(rendered(level))
    left, top, right, bottom = inked_box(rendered(turned))

    assert level_right - level_left > 3 * (level_bottom - level_top)  # wide and low
    assert bottom - top > 3 * (right - left)  # tall and narrow
    assert right <= 152 and bottom <= 300 - 48  # it rises from (150, 50): left of x = 150, above y = 50
