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
#: The words a unit label opens with.
_UNIT_WORDS = tuple(_UNIT_LEVELS)
#: How many characters of a text tell whether it may be a unit label (:func:`may_be_label`).
LABEL_HEAD = max(len(w) for w in _UNIT_WORDS)


def may_be_label(head: str) -> bool:
    """Whether a text whose first :data:`LABEL_HEAD` characters (whitespace collapsed) are
    ``head`` may be a unit label: it opens with a unit word. A reader asks this before
    reading an element's whole text for :func:`unit_level`.

    Example:
        >>> may_be_label("Article"), may_be_label("ANNEX III"), may_be_label("The recit")
        (True, True, False)
    """
    return head.lower().startswith(_UNIT_WORDS)


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


def titled_label(label: str, after: str) -> str | None:
    """The heading of unit label ``label`` titled by the text ``after`` it, whitespace
    collapsed; None when ``after`` does not read as a title (:func:`reads_as_title`) or is
    another label.

    Example:
        >>> titled_label("Article\xa05", " Prohibited AI practices ")
        'Article 5 - Prohibited AI practices'
        >>> titled_label("Article 5", "1. The following practices are prohibited:") is None
        True
        >>> titled_label("CHAPTER II", "Article 5") is None
        True
    """
    title = " ".join(after.split())
    if not title or not reads_as_title(title) or unit_level(title) is not None:
        return None
    return f"{' '.join(label.split())} - {title}"


__all__ = ["LABEL_HEAD", "may_be_label", "reads_as_title", "titled_label", "unit_level"]
