"""A document converted to Markdown, with where each line came from.

Every reader of :mod:`sectio.ingest.documents` writes Markdown through a
:class:`MarkdownWriter`, which keeps, per line of the result, the page it came
from (PDF; None elsewhere) and whether the block holding it is one the parser
is not sure of (a table with merged cells, an image, a scanned page): the
chunk cut from it is flagged ``requires_visual_check``.

Example:
    >>> w = MarkdownWriter()
    >>> w.heading(1, "Dosage")
    >>> w.paragraph("Take one tablet.", page=2)
    >>> w.table([["Dose", "Age"], ["5 mg", "12+"]], page=2, flagged=True)
    >>> doc = w.done("pdf", page_count=2)
    >>> doc.markdown.splitlines()[0], doc.pages[2], sorted(doc.flagged)
    ('# Dosage', 2, [5, 6, 7])
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

#: A line that Markdown would read as something else than text (a heading, a quote,
#: HTML, a fence, a thematic break): escaped with a backslash.
_SPECIAL = re.compile(r"^(#|>|<|```|~~~|={3,}|-{3,}|\*{3,}|_{3,}|\+ |\|)")


def escape_line(line: str) -> str:
    """``line`` as literal Markdown text: leading whitespace dropped (no indented
    code) and a leading character Markdown would act on escaped."""
    line = line.strip()
    return "\\" + line if _SPECIAL.match(line) else line


def cell(text: str | None) -> str:
    """One table cell on one line, pipes escaped."""
    return " ".join((text or "").split()).replace("|", "\\|")


@dataclass
class Converted:
    """A document as Markdown, with per-line provenance (``pages[line]``, 1-based;
    index 0 unused) and the lines of blocks to check against the source."""

    markdown: str
    kind: str
    pages: list[int | None] = field(default_factory=list)
    flagged: set[int] = field(default_factory=set)
    page_count: int = 0
    #: Why the document's flagged blocks were flagged (one phrase each, in order).
    notes: list[str] = field(default_factory=list)
    #: The anchors the source really has (HTML ids); None where headings' anchors are
    #: the Markdown path's own (Markdown, MDX) or there are none to link to.
    anchors: set[str] | None = None
    #: For a document read line for line with other files' lines spliced in (AsciiDoc's
    #: ``include::``): ``lines[n]``, the file's line that line ``n`` stands for; None: the
    #: same line.
    lines: list[int] | None = None

    def source_line(self, line: int) -> int:
        """The file's line that line ``line`` of the Markdown stands for."""
        if self.lines is None or not 0 < line < len(self.lines):
            return line
        return self.lines[line]

    def page_range(self, line: int, end_line: int) -> tuple[int, int] | None:
        """The first and last page of lines ``line..end_line``, or None (no pages)."""
        got = [p for p in self.pages[max(line, 0) : end_line + 1] if p is not None]
        return (min(got), max(got)) if got else None

    def is_flagged(self, line: int, end_line: int) -> bool:
        """Whether any line of ``line..end_line`` is in a flagged block."""
        return any(n in self.flagged for n in range(line, end_line + 1))


class MarkdownWriter:
    """Blocks appended in reading order, separated by blank lines."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._pages: list[int | None] = [None]
        self._flagged: set[int] = set()
        self._notes: list[str] = []
        self._anchors: set[str] = set()
        self.front: dict[str, str] = {}

    def _block(self, lines: Sequence[str], page: int | None, flagged: bool) -> None:
        lines = [ln for ln in lines if ln.strip()] if len(lines) > 1 else list(lines)
        if not lines or not any(ln.strip() for ln in lines):
            return
        if self._lines:
            self._lines.append("")
            self._pages.append(page)
        for line in lines:
            self._lines.append(line)
            self._pages.append(page)
            if flagged:
                self._flagged.add(len(self._lines))

    def heading(self, level: int, title: str, page: int | None = None, anchor: str = "") -> None:
        """A heading (levels 1-6); ``anchor`` becomes its ``{#id}``."""
        title = " ".join(title.split()).replace("#", "\\#")
        if title:
            tail = f" {{#{anchor}}}" if anchor and re.fullmatch(r"[\w-]+", anchor) else ""
            if tail:
                self._anchors.add(anchor)
            self._block([f"{'#' * min(max(level, 1), 6)} {title}{tail}"], page, False)

    def paragraph(self, text: str, page: int | None = None, flagged: bool = False) -> None:
        """Prose: each line escaped (see :func:`escape_line`)."""
        self._block([escape_line(ln) for ln in text.splitlines() if ln.strip()], page, flagged)

    def items(self, items: Sequence[str], page: int | None = None, ordered: bool = False) -> None:
        """A list, one item a line."""
        lines = []
        for n, item in enumerate(items, 1):
            text = " ".join(item.split())
            if text:
                lines.append(f"{n}. {text}" if ordered else f"- {text}")
        self._block(lines, page, False)

    def code(self, text: str, language: str = "", page: int | None = None) -> None:
        """A fenced code block."""
        fence = "````" if "```" in text else "```"
        self._block([fence + language, *text.strip("\n").splitlines(), fence], page, False)

    def table(
        self,
        rows: Sequence[Sequence[str | None]],
        page: int | None = None,
        flagged: bool = False,
        note: str = "",
    ) -> None:
        """A table as Markdown rows (the first row the header); ``flagged`` when the
        parser is not sure of it (``note`` says why)."""
        rows = [r for r in rows if any((c or "").strip() for c in r)]
        if not rows:
            return
        width = max(len(r) for r in rows)
        grid = [[cell(c) for c in r] + [""] * (width - len(r)) for r in rows]
        lines = ["| " + " | ".join(grid[0]) + " |", "|" + " --- |" * width]
        lines += ["| " + " | ".join(r) + " |" for r in grid[1:]]
        self._block(lines, page, flagged)
        if flagged and note:
            self._notes.append(note)

    def note(self, label: str, inner: MarkdownWriter, page: int | None = None) -> None:
        """An admonition: a quote led by its ``label`` in bold alone on its first line
        ("> **Warning**", as the Markdown reader writes a note: a chunk of its own), then
        the blocks ``inner`` holds, each line quoted."""
        label = " ".join(label.split())
        body = [f"> {ln}" if ln.strip() else ">" for ln in inner._lines]
        self._block([f"> **{label}**", *([">", *body] if body else [])], page, False)

    def figure(self, what: str, page: int | None = None) -> None:
        """Something the parser cannot read (an image, a scanned page): one flagged
        block saying so, so the section holding it sends the reader to the source."""
        where = f", page {page}" if page else ""
        self.table([[what], [f"not read as text: check the source{where}"]], page, True, what)

    def done(self, kind: str, page_count: int = 0, anchors: bool = False) -> Converted:
        """The Markdown (front matter first, if any) and its line provenance; with
        ``anchors``, the headings' anchors are the source's own (HTML ids)."""
        head: list[str] = []
        if self.front:
            head = ["---", *(f"{k}: {_yaml_str(v)}" for k, v in self.front.items()), "---", ""]
        lines = head + self._lines
        pages: list[int | None] = [None for _ in range(len(head) + 1)]
        pages.extend(self._pages[1:])
        flagged = {n + len(head) for n in self._flagged}
        return Converted(
            "\n".join(lines) + "\n",
            kind,
            pages,
            flagged,
            page_count,
            list(self._notes),
            set(self._anchors) if anchors else None,
        )


def _yaml_str(value: str) -> str:
    return '"' + " ".join(value.split()).replace("\\", "\\\\").replace('"', '\\"') + '"'


__all__ = ["Converted", "MarkdownWriter", "cell", "escape_line"]
