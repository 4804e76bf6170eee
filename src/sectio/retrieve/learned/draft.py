"""A profile drafted from a corpus (``sectio profile draft``), and what a collection learned.

:func:`draft_profile` writes a complete TOML profile for a user to edit: the
sections in book order (the order they first appear in, documents in order),
each with its most common title, the phrases learned for it (its numbered
forms and title phrases; a shared key's words and titles), a guess of the
intro sections (an abstract, preamble, overview, introduction, summary, scope or
purpose section, the word whole: not the "purpose" of "general-purpose"; else the
first), and one placeholder example question each. The draft parses as a profile
(:func:`~sectio.contract.profile.load_profile`).

Example:
    >>> text = draft_profile(
    ...     [{"doc_id": "d", "section_key": "article_1", "section_title": "Article 1 - Scope"}],
    ...     name="law",
    ... )
    >>> 'key = "article_1"' in text and 'phrases = ["article 1", "art 1", "Scope"]' in text
    True
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from sectio.contract.profile import CorpusProfile
from sectio.retrieve.learned.docs_draft import draft_docs_profile
from sectio.retrieve.learned.numbers import Number
from sectio.retrieve.learned.toml_text import lexical_lines, toml_value
from sectio.retrieve.learned.vocabulary import LearnedVocabulary, title_phrases

#: Words of a title that make its section a guess for the overview's intro.
INTRO_WORDS = frozenset(
    {"abstract", "preamble", "overview", "introduction", "summary", "scope", "purpose"}
)
#: How each family's numbers are written as phrases.
FORMS: dict[str | None, tuple[str, ...]] = {
    "article": ("article {n}", "art {n}"),
    "recital": ("recital {n}",),
    "chapter": ("chapter {n}",),
    "annex": ("annex {n}", "appendix {n}"),
    "part": ("part {n}",),
    None: ("section {n}", "§ {n}"),
}


def _book_order(payloads: Iterable[Mapping[str, Any]]) -> list[tuple[str, Counter[str]]]:
    """Section keys in the order they first appear (documents in order), with their titles."""
    order: dict[str, Counter[str]] = {}
    for p in payloads:
        key = str(p.get("section_key") or "")
        if key and (p.get("chunk_kind") or "prose") == "prose":
            order.setdefault(key, Counter())[str(p.get("section_title") or "")] += 1
    return list(order.items())


def _phrases(key: str, vocab: LearnedVocabulary, content: Callable[[str], bool]) -> list[str]:
    """The learned phrases of ``key``: its numbered forms, then its title phrases."""
    if key in vocab.shared:
        return list(vocab.shared[key])
    numbers: list[Number] = []
    titles: list[str] = []
    for s in vocab.sections:
        if s.key == key:
            if s.number is not None and s.number not in numbers:
                numbers.append(s.number)
            titles += [t for t in s.phrases if t not in titles]
    forms = [f.format(n=n.value) for n in numbers[:1] for f in FORMS.get(n.family, FORMS[None])]
    return forms + titles[:3]


def draft_profile(
    payloads: Sequence[Mapping[str, Any]],
    *,
    name: str,
    source: str = "",
    content: Callable[[str], bool] = lambda _w: True,
    profile: CorpusProfile | None = None,
) -> str:
    """A complete TOML profile for the corpus of ``payloads`` (see the module doc), of the
    engine and BM25 settings of ``profile`` (the collection's, or the default one of the
    source's format; None: the section router's, English BM25): a docs planner's corpus
    gets a docs planner profile (:func:`~sectio.retrieve.learned.docs_draft.draft_docs_profile`),
    whose headings route by themselves; re-ingested with a section router's, the tree
    would lose its planner."""
    lexical = profile.lexical if profile is not None else None
    if profile is not None and profile.engine == "docs_planner":
        return draft_docs_profile(payloads, name=name, source=source, lexical=lexical)
    vocab = LearnedVocabulary.from_payloads(payloads, content=content)
    sections = _book_order(payloads)
    intro = {k for k, t in sections if _introduces(t.most_common(1)[0][0])}
    if not intro and sections:
        intro = {sections[0][0]}
    described = f"Drafted from {source or 'a corpus'}"
    lines = [
        f"# Drafted by `sectio profile draft` from {source or 'a corpus'}: edit it, then",
        "# `sectio ingest SRC --profile THIS.toml`. Every key: docs/reference/profile.md.",
        "# The sections listed here route by these phrases in every document; sections",
        "# left out keep routing by what was learned ([learning]).",
        f"name = {toml_value(name)}",
        f"description = {toml_value(described)}",
        'engine = "router"',
        "",
        "[learning]",
        "enabled = true",
        "",
        "[lexical]",
        *lexical_lines(lexical),
    ]
    for key, titles in sections:
        title = titles.most_common(1)[0][0] or key
        lines += [
            "",
            "[[sections]]",
            f"key = {toml_value(key)}",
            f"title = {toml_value(title)}",
            f"phrases = {toml_value(_phrases(key, vocab, content))}",
            f"examples = {toml_value([_example(title, content)])}  # placeholder: write real ones",
        ]
        if key in intro:
            lines.append("intro = true")
    return "\n".join(lines) + "\n"


def _introduces(title: str) -> bool:
    """Whether ``title`` names an intro section: one of its words is one of
    :data:`INTRO_WORDS`, whole ("Article 2 - Material scope", "1. Introduction"; not the
    "purpose" of "general-purpose AI models").

    Example:
        >>> [_introduces(t) for t in ("Article 2 - Material scope", "General-purpose AI")]
        [True, False]
    """
    return bool(INTRO_WORDS & set(re.findall(r"\w+(?:[-'\u2019]\w+)*", title.lower())))


def _example(title: str, content: Callable[[str], bool]) -> str:
    phrases = title_phrases(title, content)
    return f"what does it say about {(phrases[0] if phrases else title).lower()}"
