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

Raises :class:`~sectio.errors.ContractError` for a file that is not a readable
PDF, an encrypted one, and one without any text layer (a scanned PDF: OCR it
first).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sectio.errors import ContractError
from sectio.ingest.documents.converted import Converted, MarkdownWriter
from sectio.ingest.documents.pdf_tables import find_tables

Box = tuple[float, float, float, float]

LAPARAMS = {"word_margin": 0.1, "line_margin": 0.5, "boxes_flow": 0.5, "all_texts": True}
#: Share of the page height, at the top and at the bottom, where running lines are looked for.
MARGIN = 0.08
#: Longest heading (words, its lines joined); a longer run of heading-styled lines is text.
MAX_HEADING_WORDS = 25
#: Most words of a box's opening run of one style for it to be read as a title.
LEAD_WORDS = 12
#: Curves a page must draw to hold a drawing (a diagram or chart in vector graphics).
MIN_CURVES = 5
#: Share of a page an image must cover to be reported as a figure.
FIGURE_AREA = 0.04
_NUMBERED = re.compile(r"^((?:\d+\.)*\d+)\.?\s+\S")
_BULLET = re.compile(r"^[•▪◦●·■□\-–—*]\s+")
_PAGE_NO = re.compile(r"^(page\s*)?\d+(\s*(of|/)\s*\d+)?$", re.IGNORECASE)


@dataclass
class _Line:
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


@dataclass
class _Box:
    page: int
    lines: list[_Line] = field(default_factory=list)


@dataclass
class _Table:
    page: int
    rows: list[list[str | None]]
    #: Why it cannot be trusted as read ('' when it can).
    why: str = ""


@dataclass
class _Figure:
    page: int
    scanned: bool = False
    #: Drawn as vector curves (a diagram, a chart), not an image.
    drawn: bool = False


_Item = _Box | _Table | _Figure


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _line(obj: Any, page: int, height: float) -> _Line | None:
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
    return _Line(text, size, bold, height - obj.y1, page, height)


def _inside(bbox: tuple[float, float, float, float], boxes: list[Box]) -> int | None:
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


def _page_items(page: Any, n: int) -> list[_Item]:
    """The page's boxes, tables and figures in reading order."""
    from pdfminer.layout import LTImage

    tables = find_tables(page)
    bboxes = [t.bbox for t in tables]
    placed: set[int] = set()
    items: list[_Item] = []
    height = page.height
    for obj in _layout(page.layout, page.width * page.height):
        if isinstance(obj, LTImage):
            items.append(_Figure(n))
            continue
        box = _Box(n)
        for line in obj:
            t = _inside((line.x0, height - line.y1, line.x1, height - line.y0), bboxes)
            if t is not None:
                if t not in placed:
                    items.extend([box, _Table(n, tables[t].rows, tables[t].why)])
                    box = _Box(n)
                    placed.add(t)
                continue
            got = _line(line, n, height)
            if got:
                box.lines.append(got)
        _mark_lead(box)
        items.append(box)
    items.extend(_Table(n, t.rows, t.why) for i, t in enumerate(tables) if i not in placed)
    if _curves(page.layout) >= MIN_CURVES:
        items.append(_Figure(n, drawn=True))
    items = [i for i in items if not isinstance(i, _Box) or i.lines]
    if not any(isinstance(i, _Box | _Table) for i in items) and items:
        return [_Figure(n, scanned=True)]
    return items


def _mark_lead(box: _Box) -> None:
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


def _running(pages: list[list[_Item]]) -> set[str]:
    """Keys of lines repeated in the margins of most pages (headers, footers)."""
    seen: Counter[str] = Counter()
    for items in pages:
        keys = {
            _margin_key(line)
            for item in items
            if isinstance(item, _Box)
            for line in item.lines
            if _in_margin(line)
        }
        seen.update(keys)
    need = max(3, int(0.4 * len(pages)) + 1)
    return {k for k, c in seen.items() if c >= need}


def _in_margin(line: _Line) -> bool:
    return line.top < MARGIN * line.height or line.top > (1 - MARGIN) * line.height


def _margin_key(line: _Line) -> str:
    return re.sub(r"\d+", "#", line.text.lower())


def _drop_running(pages: list[list[_Item]]) -> list[_Item]:
    running = _running(pages) if len(pages) >= 3 else set()
    out: list[_Item] = []
    for items in pages:
        for item in items:
            if isinstance(item, _Box):
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

    def __init__(self, lines: list[_Line]) -> None:
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

    def _candidate(self, ln: _Line) -> bool:
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

    def _styled(self, ln: _Line) -> int:
        """The level of ``ln`` by its style (0: not a heading style)."""
        rank = self.rank.get((ln.size, ln.bold), 0) if self._candidate(ln) else 0
        if not rank:
            return 0
        numbered = _NUMBERED.match(ln.text)
        depth = numbered.group(1).count(".") if numbered else 0
        return min(rank + depth, 6)

    def level(self, ln: _Line) -> int:
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


def _write_box(w: MarkdownWriter, box: _Box, level_of: Any) -> None:
    """A text box: heading lines as headings, the rest as paragraphs and list items."""
    run: list[_Line] = []
    heading: list[_Line] = []

    def flush() -> None:
        if heading:
            title = " ".join(ln.text for ln in heading)
            if len(title.split()) > MAX_HEADING_WORDS:  # a paragraph set large, not a title
                run[:0] = heading
            else:
                w.heading(level_of(heading[0]), title, box.page)
            heading.clear()
        if run:
            _write_text(w, run, box.page)
            run.clear()

    for ln in box.lines:
        level = level_of(ln)
        if level:
            same = heading and (heading[-1].size, heading[-1].bold) == (ln.size, ln.bold)
            if not same or run:
                flush()
            heading.append(ln)
        else:
            if heading:
                flush()
            run.append(ln)
    flush()


def _write_text(w: MarkdownWriter, lines: list[_Line], page: int) -> None:
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


def _outline(path: Path) -> list[tuple[int, str, int]]:
    """``(level, title, page)`` per bookmark (pages 1-based), or [] without one."""
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(str(path))
        entries = []
        for mark in doc.get_toc():
            title, page = mark.get_title().strip(), _bookmark_page(mark)
            if title and page is not None:
                entries.append((mark.level + 1, title, page + 1))
        doc.close()
    except Exception:  # a broken outline is no outline; the text still reads
        return []
    return entries if len(entries) >= 2 else []


def _bookmark_page(mark: Any) -> int | None:
    """A bookmark's 0-based page (pypdfium2 4: ``page_index``; 5: its destination's)."""
    if hasattr(mark, "page_index"):
        return mark.page_index
    dest = mark.get_dest()
    index = dest.get_index() if dest is not None else None
    return index if isinstance(index, int) else None


def _is_title(key: str, title: str) -> bool:
    """Whether a line (normalised ``key``) is the outline ``title``, or its start."""
    return bool(key) and (key == title or (len(key) >= 4 and title.startswith(key)))


class _OutlineLevels:
    """Headings from the outline: a line matching an entry of its page is that heading
    (its whole title, or the start of it: a title broken over lines)."""

    def __init__(self, outline: list[tuple[int, str, int]]) -> None:
        self.left: dict[int, list[tuple[int, str]]] = {}
        for level, title, page in outline:
            self.left.setdefault(page, []).append((level, _norm(title)))

    def __call__(self, ln: _Line) -> int:
        key = _norm(ln.text)
        for i, (level, title) in enumerate(self.left.get(ln.page, [])):
            if _is_title(key, title):
                if key == title:
                    del self.left[ln.page][i]
                return min(level, 6)
        return 0


def _matched_at(boxes: list[_Item], titles: list[str]) -> dict[int, int]:
    """Outline entry (index in ``titles``, normalised) -> index of the first item of
    ``boxes`` (one page) with a line that :class:`_OutlineLevels` reads as it."""
    at: dict[int, int] = {}
    used: set[int] = set()
    for n, item in enumerate(boxes):
        for ln in item.lines if isinstance(item, _Box) else []:
            key = _norm(ln.text)
            k = next((k for k, t in enumerate(titles) if k not in used and _is_title(key, t)), None)
            if k is not None:
                at.setdefault(k, n)
                if key == titles[k]:
                    used.add(k)
    return at


def _place_unmatched(items: list[_Item], outline: list[tuple[int, str, int]]) -> list[_Item]:
    """``items`` with a heading line added for each outline entry no line of its page
    matches (the bookmark's title is not the page's text): before the item holding
    the page's next matched entry; else after the page's last item when an entry
    before it matched, else at the top of the page (outline order is kept)."""
    by_page: dict[int, list[str]] = {}
    for _, title, page in outline:
        by_page.setdefault(page, []).append(title)
    out: list[_Item] = []
    for page in sorted({it.page for it in items}, key=lambda p: p):
        mine = [it for it in items if it.page == page]
        titles = by_page.get(page, [])
        at = _matched_at(mine, [_norm(t) for t in titles])
        slots: dict[int, list[_Item]] = {}
        for k, title in enumerate(titles):
            if k not in at:
                after = any(j in at for j in range(k))
                end = len(mine) if after else 0
                nxt = next((at[j] for j in range(k + 1, len(titles)) if j in at), end)
                line = _Line(title, 0.0, False, 0.0, page, 1.0)
                slots.setdefault(nxt, []).append(_Box(page, [line]))
        for n, item in enumerate(mine):
            out.extend(slots.get(n, []))
            out.append(item)
        out.extend(slots.get(len(mine), []))
    return out


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
    lines = [ln for it in items if isinstance(it, _Box) for ln in it.lines]
    if not lines and not any(isinstance(it, _Table) for it in items):
        raise ContractError(
            f"{path}: no text layer on any of its {len(pages)} pages (a scanned PDF?); "
            "OCR it first (e.g. ocrmypdf) and ingest the result"
        )
    outline = _outline(path)
    if outline:
        items = _place_unmatched(items, outline)
    level_of = _OutlineLevels(outline) if outline else _Styles(lines).level
    w = MarkdownWriter()
    for item in items:
        if isinstance(item, _Box):
            _write_box(w, item, level_of)
        elif isinstance(item, _Table):
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


def _parse(path: Path) -> list[list[_Item]]:
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
