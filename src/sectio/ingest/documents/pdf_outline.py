"""PDF headings from the outline (bookmarks), and the title, read with PDFium.

:func:`outline` gives the bookmarks and :func:`meta_title` the metadata's
title; :class:`OutlineLevels` tells a line's level from the bookmarks;
:func:`place_unmatched` adds a heading for each bookmark whose title is not the
text of its page, where it belongs in outline order.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sectio.ingest.documents.pdf_model import Item, Line, TextBox, norm


def outline(path: Path) -> list[tuple[int, str, int]]:
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


class OutlineLevels:
    """Headings from the outline: a line matching an entry of its page is that heading
    (its whole title, or the start of it: a title broken over lines)."""

    def __init__(self, outline: list[tuple[int, str, int]]) -> None:
        self.left: dict[int, list[tuple[int, str]]] = {}
        for level, title, page in outline:
            self.left.setdefault(page, []).append((level, norm(title)))

    def __call__(self, ln: Line) -> int:
        key = norm(ln.text)
        for i, (level, title) in enumerate(self.left.get(ln.page, [])):
            if _is_title(key, title):
                if key == title:
                    del self.left[ln.page][i]
                return min(level, 6)
        return 0


def _matched_at(boxes: list[Item], titles: list[str]) -> dict[int, int]:
    """Outline entry (index in ``titles``, normalised) -> index of the first item of
    ``boxes`` (one page) with a line that :class:`OutlineLevels` reads as it."""
    at: dict[int, int] = {}
    used: set[int] = set()
    for n, item in enumerate(boxes):
        for ln in item.lines if isinstance(item, TextBox) else []:
            key = norm(ln.text)
            k = next((k for k, t in enumerate(titles) if k not in used and _is_title(key, t)), None)
            if k is not None:
                at.setdefault(k, n)
                if key == titles[k]:
                    used.add(k)
    return at


def place_unmatched(items: list[Item], outline: list[tuple[int, str, int]]) -> list[Item]:
    """``items`` with a heading line added for each outline entry no line of its page
    matches (the bookmark's title is not the page's text): before the item holding
    the page's next matched entry; else after the page's last item when an entry
    before it matched, else at the top of the page (outline order is kept)."""
    by_page: dict[int, list[str]] = {}
    for _, title, page in outline:
        by_page.setdefault(page, []).append(title)
    out: list[Item] = []
    for page in sorted({it.page for it in items}, key=lambda p: p):
        mine = [it for it in items if it.page == page]
        titles = by_page.get(page, [])
        at = _matched_at(mine, [norm(t) for t in titles])
        slots: dict[int, list[Item]] = {}
        for k, title in enumerate(titles):
            if k not in at:
                after = any(j in at for j in range(k))
                end = len(mine) if after else 0
                nxt = next((at[j] for j in range(k + 1, len(titles)) if j in at), end)
                line = Line(title, 0.0, False, 0.0, page, 1.0)
                slots.setdefault(nxt, []).append(TextBox(page, [line]))
        for n, item in enumerate(mine):
            out.extend(slots.get(n, []))
            out.append(item)
        out.extend(slots.get(len(mine), []))
    return out


#: A metadata title that is a program's placeholder or a file name, not the document's.
_NOT_A_TITLE = re.compile(
    r"^(microsoft (word|powerpoint|excel) - |untitled)"
    r"|\.(docx?|pdf|exe|tmp|indd|qxd|rtf)$|^[\w.-]+$",
    re.IGNORECASE,
)


def meta_title(path: Path) -> str:
    """The title in the PDF's metadata, when it is one: two words or more, not a
    placeholder ("Microsoft Word - a.doc", "Untitled") nor a file name; else ''."""
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(str(path))
        title = " ".join(str(doc.get_metadata_dict().get("Title") or "").split())
        doc.close()
    except Exception:  # unreadable metadata is no title; the text still reads
        return ""
    return "" if _NOT_A_TITLE.search(title) or len(title.split()) < 2 else title


__all__ = ["OutlineLevels", "meta_title", "outline", "place_unmatched"]
