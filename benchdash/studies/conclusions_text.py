"""A study's notes and conclusions, written in Markdown, as the report page (HTML) and the PDF (ReportLab's
paragraph markup) show them: the only importer of markdown-it-py.

Safe by construction: raw HTML in the text is not passed through (it prints as text), a link whose address runs
code (javascript:, vbscript:, data:, file:) is refused by markdown-it's own check and stays text, and every piece of
text is escaped on the way out. A single line break stays a break, as the page showed the text before.
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.token import Token

MARKDOWN = MarkdownIt("commonmark", {"html": False, "breaks": True})
# What a PDF paragraph opens and closes for each inline mark (ReportLab's own paragraph tags).
PDF_TAGS = {"strong_open": "<b>", "strong_close": "</b>", "em_open": "<i>", "em_close": "</i>"}
LINK_COLOR = "#1d4f91"


@dataclass(frozen=True)
class TextBlock:
    """One block of the text for the PDF: kind is paragraph, item (of a list), heading or code; markup is
    ReportLab paragraph markup, every text in it escaped (code: plain text, its lines kept)."""

    kind: str
    markup: str


def conclusions_html(text: str) -> SafeString:
    """The text as HTML for a page; safe to show (module description)."""
    return mark_safe(MARKDOWN.render(text))  # noqa: S308 - html off, links checked, text escaped by markdown-it


def conclusions_blocks(text: str) -> list[TextBlock]:
    """The text as blocks of ReportLab paragraph markup, in order."""
    blocks: list[TextBlock] = []
    items, in_heading = 0, False  # how deep in list items, and whether in a heading, the next inline text is
    for token in MARKDOWN.parse(text):
        items += {"list_item_open": 1, "list_item_close": -1}.get(token.type, 0)
        in_heading = token.type == "heading_open" or (in_heading and token.type != "heading_close")
        if token.type in ("fence", "code_block"):
            blocks.append(TextBlock("code", token.content.rstrip("\n")))
        elif token.type == "inline":
            kind = "heading" if in_heading else "item" if items else "paragraph"
            blocks.append(TextBlock(kind, _inline_markup(token.children or [])))
    return blocks


def _inline_markup(tokens: list[Token]) -> str:
    parts = []
    for token in tokens:
        if token.type == "text":
            parts.append(escape(token.content))
        elif token.type == "code_inline":
            parts.append(_code_markup(token.content))
        elif token.type in ("softbreak", "hardbreak"):
            parts.append("<br/>")
        elif token.type == "link_open":
            parts.append(f"<link href={quoteattr(str(token.attrGet('href') or ''))} color={quoteattr(LINK_COLOR)}>")
        elif token.type == "link_close":
            parts.append("</link>")
        else:
            parts.append(PDF_TAGS.get(token.type, escape(token.content)))
    return "".join(parts)


def _code_markup(code: str) -> str:
    """Courier where it has every glyph (ASCII); other code in the report's font, on grey all the same."""
    face = ' face="Courier"' if code.isascii() else ""
    return f'<font{face} backColor="#eeeeee">{escape(code)}</font>'
