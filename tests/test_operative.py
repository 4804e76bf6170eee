"""Operative text first: a regulation's recitals give their place to the articles that rule."""

from __future__ import annotations

from sectio.contract.result import Evidence
from sectio.retrieve.operative import RECITAL_MARGIN, is_recital, operative_first


def ev(key: str, title: str | None, score: float) -> Evidence:
    return Evidence(
        chunk_id=f"act#{key}#0",
        doc_id="act",
        section_key=key,
        part_index=0,
        text="text",
        score=score,
        section_title=title,
    )


def test_recitals_are_read_by_title_or_key() -> None:
    assert is_recital(ev("recital_31", "Recital 31", 0.5))
    assert is_recital(ev("recital_31", None, 0.5))
    assert not is_recital(ev("article_5", "Article 5 - Prohibited AI practices", 0.5))
    assert not is_recital(ev("s4.2", "4.2. Flow Control", 0.5))


def test_an_article_close_behind_a_recital_comes_first() -> None:
    r31, r41 = ev("recital_31", "Recital 31", 0.60), ev("recital_41", "Recital 41", 0.55)
    a5, a99 = ev("article_5", "Article 5 - Prohibited", 0.52), ev("article_99", None, 0.30)
    beyond = ev("article_6", None, 0.59)
    out = operative_first([r31, r41, a5, a99, beyond], limit=4)
    assert [e.section_key for e in out] == [
        "article_5",
        "recital_31",
        "recital_41",
        "article_99",  # further than the margin from the best: keeps its place
        "article_6",  # past the limit: untouched
    ]
    assert 0.60 - 0.30 > RECITAL_MARGIN >= 0.60 - 0.52


def test_no_recital_or_nothing_close_changes_nothing() -> None:
    plain = [ev("article_5", None, 0.6), ev("article_6", None, 0.5)]
    assert operative_first(plain, 2) == plain
    far = [ev("recital_31", "Recital 31", 0.6), ev("article_6", None, 0.2)]
    assert operative_first(far, 2) == far
    first = [ev("article_5", None, 0.5), ev("recital_31", "Recital 31", 0.6)]
    assert operative_first(first, 2) == first  # an article already leads
