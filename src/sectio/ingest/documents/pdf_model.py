"""The PDF reader's items: lines, text boxes, tables and figures of a page, in order.

Example:
    >>> box = TextBox(1, [Line("Dosage", 12.0, True, 72.0, 1, 792.0)])
    >>> norm("2.1 Adults"), box.lines[0].page
    ('21adults', 1)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class Line:
    """One line of text: its words, median font size, whether mostly bold, its top
    (from the page's top), page (1-based) and the page's height."""

    text: str
    size: float
    bold: bool
    top: float
    page: int
    height: float
    #: In the short run of one style that opens its text box (the whole box, or
    #: followed by another style; at most ``LEAD_WORDS`` words): a title set apart.
    lead: bool = False
    #: First line of its box, or the first after a line of another style.
    opens: bool = False
    #: Its left edge (points from the page's left).
    x0: float = 0.0


@dataclass
class TextBox:
    """A block of lines pdfminer's layout analysis put together (a paragraph or less)."""

    page: int
    lines: list[Line] = field(default_factory=list)


@dataclass
class TableItem:
    """A table's rows, as read (``None``: a cell pdfplumber left empty for a span)."""

    page: int
    rows: list[list[str | None]]
    #: Why it cannot be trusted as read ('' when it can).
    why: str = ""


@dataclass
class Figure:
    """Something on a page that is not text: an image, a drawing, a scanned page."""

    page: int
    scanned: bool = False
    #: Drawn as vector curves (a diagram, a chart), not an image.
    drawn: bool = False


Item = TextBox | TableItem | Figure


def norm(text: str) -> str:
    """``text`` lower-cased, with only its letters and digits (for comparing titles)."""
    return re.sub(r"[^a-z0-9]+", "", text.lower())


__all__ = ["Figure", "Item", "Line", "TableItem", "TextBox", "norm"]
