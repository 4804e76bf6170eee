"""A legal text's unit labels ("Article 5", "CHAPTER II", "ANNEX III") written as a line or a
paragraph of their own, the way regulations style their headings in HTML and text, and
whether the line after one reads as its title."""

from __future__ import annotations

import re

#: A legal text's unit labels written as a paragraph of their own, and the heading level
#: each stands at (a part or an annex above a chapter, a chapter above a section, a
#: section above an article).
_UNIT_LEVELS = {
    "part": 2, "book": 2, "title": 2, "annex": 2, "appendix": 2, "schedule": 2,
    "chapter": 3, "section": 4, "article": 5, "art.": 5, "rule": 5, "clause": 5, "§": 5,
}  # fmt: skip
_UNIT_LABEL = re.compile(
    r"(part|book|title|annex|appendix|schedule|chapter|section|article|art\.|rule|clause|§)"
    r"\s*([0-9]+[a-z]?(?:\.[0-9]+)*|[ivxlcdm]+|[a-z])",
    re.IGNORECASE,
)
#: The most words a unit label's title has.
_TITLE_WORDS = 20


def unit_level(text: str) -> int | None:
    """The heading level of ``text`` when it is a unit label alone ("Article 5", "CHAPTER
    II", "ANNEX III", "Section 4.2", "§ 17"), else None.

    Example:
        >>> unit_level("Article\xa05"), unit_level("CHAPTER II"), unit_level("ANNEX III")
        (5, 3, 2)
        >>> unit_level("Article 5 shall apply."), unit_level("Section headings")
        (None, None)
    """
    m = _UNIT_LABEL.fullmatch(" ".join(text.split()))
    return None if m is None else _UNIT_LEVELS[m.group(1).lower()]


def reads_as_title(text: str) -> bool:
    """Whether ``text`` reads as a unit's title: at most :data:`_TITLE_WORDS` words, not
    ending as a sentence or a lead-in does ("Prohibited AI practices", "GENERAL
    PROVISIONS"; not "1. The following AI practices shall be prohibited:")."""
    return len(text.split()) <= _TITLE_WORDS and not text.rstrip().endswith((".", ":", ";"))


__all__ = ["reads_as_title", "unit_level"]
