"""PDF: text, headings, tables and pages, read with pdfplumber (pdfminer.six layout).

* **Reading order**: pdfminer's layout analysis (``LAParams``: boxes in column
  flow), page after page; text boxes become paragraphs (a hyphen at a line's
  end joined), bullet lines list items.
* **Headings**: the PDF's outline (bookmarks) when it has two entries or more,
  each matched to its line on its page (else added there, in outline order:
  before the next entry found on the page, or after the page's text);
  otherwise a font rule: a short line set larger than the body text, or a
  bold numbered or upper-case one. Distinct styles, largest first, give the
  levels; a numbered heading (``2.1``) goes one level deeper per number.
* **Running headers and footers** (the same line in the top or bottom margin of
  most pages, page numbers too) are dropped.
* **Tables** (pdfplumber's ruled-line finder, widened and checked in
  :mod:`~sectio.ingest.documents.pdf_tables`) are one Markdown table each,
  placed where their first line was; one read from column rules only, or with
  merged cells, rows run together or columns without a rule, is flagged
  (:attr:`Converted.flagged`). A table of one row or one column (a framed
  paragraph) is read as text.
* **Images** covering more than 4% of a page, drawings (a page drawing five
  curves or more: a diagram, a chart; put after the page's text), and pages
  that are an image without text (scanned), are flagged blocks saying so.
* **Pages**: every line keeps its (1-based, physical) page.
* **Title**: the metadata's title when it is one (not "Microsoft Word - a.doc"
  nor a file name), else the first heading.
* **Line numbers** down a margin (a transcript's ``1``-``25``) are dropped, and a
  text box that goes on the paragraph before it (a first line indented apart,
  a line broken before a word in lower case) is joined to it.

Raises :class:`~sectio.errors.ContractError` for a file that is not a readable
PDF, an encrypted one, and one without any text layer (a scanned PDF: OCR it
first).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from sectio.errors import ContractError
from sectio.ingest.documents.converted import Converted, MarkdownWriter
from sectio.ingest.documents.pdf_model import Figure, Item, Line, TableItem, TextBox
from sectio.ingest.documents.pdf_outline import OutlineLevels, meta_title, place_unmatched
from sectio.ingest.documents.pdf_outline import outline as _outline
from sectio.ingest.documents.pdf_tables import find_tables
from sectio.ingest.documents.units import titled_label, unit_level

BBox = tuple[float, float, float, float]

LAPARAMS = {"word_margin": 0.1, "line_margin": 0.5, "boxes_flow": 0.5, "all_texts": True}
#: Share of the page height, at the top and at the bottom, where running lines are looked for.
MARGIN = 0.08
#: Longest heading (words, its lines joined); a longer run of heading-styled lines is text.
MAX_HEADING_WORDS = 25
#: At most this many lines of unit labels alone in one box open the box after it
#: ("CHAPTER II" over "Article 5").
MAX_LABEL_LINES = 3
#: Most words of a box's opening run of one style for it to be read as a title.
LEAD_WORDS = 12
#: Numbers one above the other at one left edge that make a page's line numbering.
LINE_NUMBERS = 5
#: Curves a page must draw to hold a drawing (a diagram or chart in vector graphics).
MIN_CURVES = 5
#: Share of a page an image must cover to be reported as a figure.
FIGURE_AREA = 0.04
_NUMBERED = re.compile(r"^((?:\d+\.)*\d+)\.?\s+\S")
_LINE_NO = re.compile(r"^\d{1,2}$")
_BULLET = re.compile(r"^[•▪◦●·■□\-–—*]\s+")
_PAGE_NO = re.compile(r"^(page\s*)?\d+(\s*(of|/)\s*\d+)?$", re.IGNORECASE)


def _line(obj: Any, page: int, height: float) -> Line | None:
    from pdfminer.layout import LTChar

    chars = [c for c in obj if isinstance(c, LTChar) and c.upright]
    text = " ".join(
        "".join(c.get_text() for c in obj if not isinstance(c, LTChar) or c.upright).split()
    )
    if not chars or not text:
        return None
    size = round(statistics.median(c.size for c in chars) * 2) / 2
    bold = (
        sum(1 for c in chars if re.search(r"bold|black|heavy", c.fontname, re.I)) > len(chars) / 2
    )
    return Line(text, size, bold, height - obj.y1, page, height, x0=obj.x0)


def _inside(bbox: tuple[float, float, float, float], boxes: list[BBox]) -> int | None:
    x0, top, x1, bottom = bbox
    cx, cy = (x0 + x1) / 2, (top + bottom) / 2
    for i, (bx0, btop, bx1, bbottom) in enumerate(boxes):
        if bx0 <= cx <= bx1 and btop <= cy <= bbottom:
            return i
    return None


def _layout(objs: Any, area: float) -> Any:
    """The text boxes and large images of a layout, in its order (figures opened)."""
    from pdfminer.layout import LTFigure, LTImage, LTTextBoxHorizontal

    for obj in objs:
        if isinstance(obj, LTTextBoxHorizontal) or (
            isinstance(obj, LTImage) and obj.width * obj.height > FIGURE_AREA * area
        ):
            yield obj
        elif isinstance(obj, LTFigure):
            yield from _layout(obj, area)


def _curves(objs: Any) -> int:
    """How many curves (not straight rules, not rectangles) a layout draws."""
    from pdfminer.layout import LTCurve, LTFigure, LTLine, LTRect

    n = 0
    for obj in objs:
        if isinstance(obj, LTFigure):
            n += _curves(obj)
        elif isinstance(obj, LTCurve) and not isinstance(obj, LTLine | LTRect):
            n += 1
    return n


def _page_items(page: Any, n: int) -> list[Item]:
    """The page's boxes, tables and figures in reading order."""
    from pdfminer.layout import LTImage

    tables = find_tables(page)
    bboxes = [t.bbox for t in tables]
    placed: set[int] = set()
    items: list[Item] = []
    height = page.height
    for obj in _layout(page.layout, page.width * page.height):
        if isinstance(obj, LTImage):
            items.append(Figure(n))
            continue
        box = TextBox(n)
        for line in obj:
            t = _inside((line.x0, height - line.y1, line.x1, height - line.y0), bboxes)
            if t is not None:
                if t not in placed:
                    items.extend([box, TableItem(n, tables[t].rows, tables[t].why)])
                    box = TextBox(n)
                    placed.add(t)
                continue
            got = _line(line, n, height)
            if got:
                box.lines.append(got)
        _mark_lead(box)
        items.append(box)
    items.extend(TableItem(n, t.rows, t.why) for i, t in enumerate(tables) if i not in placed)
    if _curves(page.layout) >= MIN_CURVES:
        items.append(Figure(n, drawn=True))
    items = _join_continued(_drop_line_numbers(items))
    if not any(isinstance(i, TextBox | TableItem) for i in items) and items:
        return [Figure(n, scanned=True)]
    return items


def _drop_line_numbers(items: list[Item]) -> list[Item]:
    """The page's items without its line numbering (a transcript's or a pleading's
    ``1``-``25`` down the margin: ``LINE_NUMBERS`` numbers or more at one left edge);
    boxes left empty are dropped."""
    gutters: Counter[int] = Counter(
        round(ln.x0)
        for it in items
        if isinstance(it, TextBox)
        for ln in it.lines
        if _LINE_NO.match(ln.text)
    )
    drop = {x for x, count in gutters.items() if count >= LINE_NUMBERS}
    for it in items:
        if isinstance(it, TextBox) and drop:
            it.lines = [
                ln for ln in it.lines if not (_LINE_NO.match(ln.text) and round(ln.x0) in drop)
            ]
    return [i for i in items if not isinstance(i, TextBox) or i.lines]


def _continues(a: Line, b: Line, single: bool) -> bool:
    """Whether line ``b``, opening a text box, goes on the paragraph that line ``a`` (the
    last of the box before it) is in: same style, close below it, and either ``a`` ends
    no sentence and ``b`` starts in lower case, or ``a`` is a box's only line indented
    from ``b`` (a paragraph's first line, which pdfminer boxes apart)."""
    if (a.size, a.bold) != (b.size, b.bold) or _BULLET.match(b.text) or not b.text:
        return False
    gap = b.top - a.top
    if not 0 < gap <= 3.0 * max(a.size, 1.0):
        return False
    lower = b.text[0].islower() and not a.text.endswith((".", "!", "?", ":"))
    indented = single and 3 <= a.x0 - b.x0 <= 40
    return lower or indented


def _join_continued(items: list[Item]) -> list[Item]:
    """Text boxes that go on the paragraph of the box before them (:func:`_continues`),
    joined to it; boxes stay in their order."""
    out: list[Item] = []
    for it in items:
        prev = out[-1] if out else None
        if (
            isinstance(it, TextBox)
            and isinstance(prev, TextBox)
            and _continues(prev.lines[-1], it.lines[0], len(prev.lines) == 1)
        ):
            prev.lines.extend(it.lines)
            _mark_lead(prev)
            continue
        out.append(it)
    return out


def _mark_lead(box: TextBox) -> None:
    """Mark the lines that open the box or a change of style (``opens``), and the
    box's opening run of one style as lead lines when it is short and does not end a
    sentence (a title of one or two lines above its text)."""
    if not box.lines:
        return
    style = (box.lines[0].size, box.lines[0].bold)
    run = 0
    while run < len(box.lines) and (box.lines[run].size, box.lines[run].bold) == style:
        run += 1
    words = sum(len(ln.text.split()) for ln in box.lines[:run])
    lead = words <= LEAD_WORDS and not box.lines[run - 1].text.endswith((".", ":"))
    for ln in box.lines[:run]:
        ln.lead = lead
    previous: tuple[float, bool] | None = None
    for ln in box.lines:
        ln.opens = (ln.size, ln.bold) != previous
        previous = (ln.size, ln.bold)


def _running(pages: list[list[Item]]) -> set[str]:
    """Keys of lines repeated in the margins of most pages (headers, footers)."""
    seen: Counter[str] = Counter()
    for items in pages:
        keys = {
            _margin_key(line)
            for item in items
            if isinstance(item, TextBox)
            for line in item.lines
            if _in_margin(line)
        }
        seen.update(keys)
    need = max(3, int(0.4 * len(pages)) + 1)
    return {k for k, c in seen.items() if c >= need}


def _in_margin(line: Line) -> bool:
    return line.top < MARGIN * line.height or line.top > (1 - MARGIN) * line.height


def _margin_key(line: Line) -> str:
    return re.sub(r"\d+", "#", line.text.lower())


def _drop_running(pages: list[list[Item]]) -> list[Item]:
    running = _running(pages) if len(pages) >= 3 else set()
    out: list[Item] = []
    for items in pages:
        for item in items:
            if isinstance(item, TextBox):
                item.lines = [
                    ln
                    for ln in item.lines
                    if not (
                        _in_margin(ln) and (_margin_key(ln) in running or _PAGE_NO.match(ln.text))
                    )
                ]
                if not item.lines:
                    continue
            out.append(item)
    return out


class _Styles:
    """The font rule: which lines are headings, and at which level."""

    def __init__(self, lines: list[Line]) -> None:
        weights: Counter[float] = Counter()
        for ln in lines:
            weights[ln.size] += 1  # lines, not characters: a box of fine print is not the body
        self.body = weights.most_common(1)[0][0] if weights else 0.0
        styles: Counter[tuple[float, bool]] = Counter(
            (ln.size, ln.bold) for ln in lines if self._candidate(ln)
        )
        common = {s for s, c in styles.items() if c > 0.4 * len(lines) and len(lines) > 10}
        ranked = sorted((s for s in styles if s not in common), key=lambda s: (-s[0], not s[1]))
        self.rank = {s: i + 1 for i, s in enumerate(ranked)}
        #: Numbers of the numbered headings (``"2"``, ``"3.1"``) -> their level.
        self.numbers: dict[str, int] = {}
        for ln in lines:
            numbered = _NUMBERED.match(ln.text)
            if numbered and self._styled(ln):
                self.numbers.setdefault(numbered.group(1), self._styled(ln))

    def _candidate(self, ln: Line) -> bool:
        words = ln.text.split()
        if not 0 < len(words) <= 20 or len(ln.text) > 150 or not re.search(r"[A-Za-z]", ln.text):
            return False
        if ln.text.endswith((",", ";")) or _PAGE_NO.match(ln.text):
            return False
        if ln.size >= self.body + 1.0:
            return True
        if ln.bold and ln.size >= self.body - 0.25:
            upper = ln.text.isupper() and len(words) <= 10
            lead = ln.lead and len(words) <= 12 and not ln.text.endswith((".", ":"))
            return bool(_NUMBERED.match(ln.text)) or upper or lead
        return False

    def _styled(self, ln: Line) -> int:
        """The level of ``ln`` by its style (0: not a heading style)."""
        rank = self.rank.get((ln.size, ln.bold), 0) if self._candidate(ln) else 0
        if not rank:
            return 0
        numbered = _NUMBERED.match(ln.text)
        depth = numbered.group(1).count(".") if numbered else 0
        return min(rank + depth, 6)

    def level(self, ln: Line) -> int:
        """The heading level of ``ln`` (0: not a heading): by its style, else one level
        under its parent when it opens a box or a change of style with a sub-number of
        a numbered heading (``2.1 Adults`` set as text under ``2. DOSAGE``)."""
        styled = self._styled(ln)
        numbered = _NUMBERED.match(ln.text)
        if styled or not numbered or not ln.opens or ln.size < self.body - 0.25:
            return styled
        number = numbered.group(1)
        parent = self.numbers.get(number.rsplit(".", 1)[0]) if "." in number else None
        short = len(ln.text.split()) <= 15 and not ln.text.endswith((".", ":", ",", ";"))
        return min(parent + 1, 6) if parent and short else 0


def _labels_with_their_boxes(items: list[Item]) -> list[Item]:
    """``items`` with each text box that holds only a law's unit labels ("Article 5", or
    "CHAPTER II" over "Article 5") moved into the text box after it, as its first lines:
    the title they label (set in a style of its own) is laid out as another box."""
    out: list[Item] = []
    for item in items:
        prev = out[-1] if out else None
        if (
            isinstance(item, TextBox)
            and isinstance(prev, TextBox)
            and 0 < len(prev.lines) <= MAX_LABEL_LINES
            and all(unit_level(ln.text) is not None for ln in prev.lines)
        ):
            item.lines[:0] = prev.lines
            out[-1] = item
            continue
        out.append(item)
    return out


def _write_box(w: MarkdownWriter, box: TextBox, level_of: Any) -> None:
    """A text box: heading lines as headings, the rest as paragraphs and list items. A
    law's unit label on a line of its own that opens the box or a paragraph ("Article 5",
    set as text) opens the heading after it ("Article 5 - Prohibited AI practices"), or
    is one itself, titled by the line after it when that reads as a title; a label
    inside a paragraph ("... Government Code / Section 54957 / ...") stays text."""
    run: list[Line] = []
    heading: list[Line] = []
    label: list[Line] = []  # a unit label waiting for its title

    def flush(titled: bool = False) -> None:
        """Write what is held; ``titled``: a heading line comes next (a label waits)."""
        if heading:
            title = " ".join(ln.text for ln in heading)
            if len(title.split()) > MAX_HEADING_WORDS:  # a paragraph set large, not a title
                run[:0] = heading
            else:
                head = f"{label[0].text} - {title}" if label else title
                at = (unit_level(label[0].text) if label else None) or level_of(heading[0])
                w.heading(at, head, box.page)
                label.clear()
            heading.clear()
        if label and not titled:  # no title came: the label alone
            w.heading(unit_level(label[0].text) or 1, label.pop().text, box.page)
        if run:
            _write_text(w, run, box.page)
            run.clear()

    for ln in box.lines:
        level = level_of(ln)
        # a label mid-paragraph is a reference; one right after a label is a label too
        opens = ln is box.lines[0] or ln.opens or bool(label)
        if not level and opens and unit_level(ln.text) is not None:
            flush()
            label.append(ln)
            continue
        titled = titled_label(label[0].text, ln.text) if not level and label else None
        if titled:
            w.heading(unit_level(label.pop().text) or 1, titled, box.page)
            continue
        if level:
            same = heading and (heading[-1].size, heading[-1].bold) == (ln.size, ln.bold)
            if not same or run:
                flush(titled=not heading and not run)
            heading.append(ln)
        else:
            if heading or label:
                flush()
            run.append(ln)
    flush()


def _write_text(w: MarkdownWriter, lines: list[Line], page: int) -> None:
    items: list[str] = []
    text = ""
    for ln in lines:
        if _BULLET.match(ln.text):
            if text:
                w.paragraph(text, page)
                text = ""
            items.append(_BULLET.sub("", ln.text))
        elif items and not text:
            items[-1] += " " + ln.text
        else:
            if items:
                w.items(items, page)
                items = []
            text = _join(text, ln.text)
    if items:
        w.items(items, page)
    if text:
        w.paragraph(text, page)


def _join(text: str, line: str) -> str:
    if not text:
        return line
    if text.endswith("-") and line[:1].islower():
        return text[:-1] + line
    return f"{text} {line}"


def text_layer_refusal(path: Path) -> str:
    """Why ``path`` cannot be read as a PDF at all (no text on any page, encrypted,
    broken), told quickly by PDFium; '' when it can be read (or PDFium is missing)."""
    try:
        import pypdfium2 as pdfium
    except ImportError:
        return ""
    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            return "an encrypted PDF; decrypt it first"
        return f"not a readable PDF ({exc})"
    try:
        for i in range(len(doc)):
            textpage = doc[i].get_textpage()
            found = textpage.get_text_range().strip()
            textpage.close()
            if found:
                return ""
        return (
            f"no text layer on any of its {len(doc)} pages (a scanned PDF?); "
            "OCR it first (e.g. ocrmypdf) and ingest the result"
        )
    finally:
        doc.close()


def read_pdf(path: Path) -> Converted:
    """``path`` (a PDF) as Markdown with its pages; see the module docstring.

    Raises:
        ContractError: not a readable PDF, encrypted, or without a text layer.
    """
    pages = _parse(path)
    items = _drop_running(pages)
    lines = [ln for it in items if isinstance(it, TextBox) for ln in it.lines]
    if not lines and not any(isinstance(it, TableItem) for it in items):
        raise ContractError(
            f"{path}: no text layer on any of its {len(pages)} pages (a scanned PDF?); "
            "OCR it first (e.g. ocrmypdf) and ingest the result"
        )
    outline = _outline(path)
    if outline:
        items = place_unmatched(items, outline)
    level_of = OutlineLevels(outline) if outline else _Styles(lines).level
    items = _labels_with_their_boxes(items)
    w = MarkdownWriter()
    title = meta_title(path)
    if title:
        w.front["title"] = title
    for item in items:
        if isinstance(item, TextBox):
            _write_box(w, item, level_of)
        elif isinstance(item, TableItem):
            why = item.why
            w.table(item.rows, item.page, bool(why), f"a table: {why} (page {item.page})")
        else:
            what = (
                "a page without text (a scanned page?)"
                if item.scanned
                else "a drawing (vector graphics)"
                if item.drawn
                else "a figure"
            )
            w.figure(f"Page {item.page}: {what}", item.page)
    return w.done("pdf", page_count=len(pages))


def _parse(path: Path) -> list[list[Item]]:
    import pdfplumber
    from pdfminer.pdfdocument import PDFPasswordIncorrect

    try:
        with pdfplumber.open(path, laparams=LAPARAMS) as pdf:
            return [_page_items(page, n) for n, page in enumerate(pdf.pages, 1)]
    except PDFPasswordIncorrect as exc:
        raise ContractError(f"{path}: an encrypted PDF; decrypt it first") from exc
    except ContractError:
        raise
    except Exception as exc:
        raise ContractError(f"{path}: not a readable PDF ({type(exc).__name__}: {exc})") from exc


__all__ = ["read_pdf", "text_layer_refusal"]
