"""The sections a docs tree teaches the planner: its headings as phrases, numbered headings.

A Markdown tree has no section numbers people write and no profile phrases,
but its headings are what users name: "the ``virtualenvs.in-project``
setting", "poetry lock options", "Explain caret requirements", "the poetry
sync command". From the tenant's page chunks (layer D0, read once per open
collection), each section (a heading) gives the learned vocabulary
(:class:`~sectio.retrieve.learned.LearnedVocabulary`) of the section router:

* its heading, with its parts between dashes, colons and brackets, and a
  number it starts with ("4.2 Limits"), when the page has that heading once;
* its heading after its parent's ("lock options" for "Options" under "lock",
  a heading every command repeats);
* the product's word before it, as the section's own text writes it
  ("poetry check" where the "check" section shows ``poetry check``): a product
  word is one that at least :data:`PRODUCT_SHARE` of the pages (and 3) use.

Matching is the vocabulary's, with the docs' unit words (:data:`DOCS_UNIT_WORDS`:
"the keyring.enabled setting", "the sync command"): a title routes beside a
unit word, in quotes, or when it is most of what the question asks; the words
of the headings above it and of its page's title, their initials ("CSRF" under
"Cross-Site Request Forgery Prevention"), and the product words, are where it
is, not more of what is asked. A heading several pages share names
no page (never a guess). A question heading (a FAQ entry) is also named when
the question asks it again in fewer words (:func:`asked_heading`).

Example:
    >>> v = docs_vocabulary([
    ...     {"doc_id": "docs/cli.md", "section_key": "commands/lock", "section_title": "lock",
    ...      "heading_path": ["Commands", "lock"], "text": "Run `poetry lock`."},
    ...     {"doc_id": "docs/cli.md", "section_key": "commands/lock/options",
    ...      "section_title": "Options", "heading_path": ["Commands", "lock", "Options"],
    ...      "text": "--regenerate"},
    ... ])
    >>> v.match("lock options").key
    'commands/lock/options'
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sectio.contract.layers import Layer
from sectio.index.collection import Collection as IndexCollection
from sectio.index.filters import Eq, tenant_where
from sectio.plan import stored
from sectio.plan.catalog import STOPWORDS, first_line
from sectio.plan.catalog import tokens as plan_tokens
from sectio.retrieve.answerability.weigh import acronyms
from sectio.retrieve.learned.numbers import Number, learned_kinds, title_number
from sectio.retrieve.learned.vocabulary import (
    UNIT_WORDS,
    LearnedMatch,
    LearnedSection,
    LearnedVocabulary,
    title_phrases,
)
from sectio.retrieve.reads import scroll_all
from sectio.retrieve.scope import ReadScope
from sectio.retrieve.stats import TermStats
from sectio.retrieve.text import find_phrase, tokens

#: A question heading ("Why is the dependency resolution process slow?") is asked when
#: the question's content words are all its own and at least this share of them.
ASKED_SHARE = 0.75
#: A word at least this share of the pages use (and 3 pages) is the product's name.
PRODUCT_SHARE = 0.8
#: Words that name a unit of a docs page: a one-word heading routes beside one.
DOCS_UNIT_WORDS = UNIT_WORDS | frozenset(
    [
        "setting",
        "settings",
        "option",
        "options",
        "command",
        "commands",
        "subcommand",
        "hook",
        "hooks",
        "flag",
        "flags",
        "page",
        "heading",
        "field",
        "variable",
    ]
)
_SECTION_PAGE = 512


@dataclass(frozen=True)
class DocsVocabulary:
    """A docs tree's learned sections and its product's words (see the module doc)."""

    learned: LearnedVocabulary
    products: frozenset[str]

    @functools.cached_property
    def headings(self) -> tuple[tuple[LearnedSection, frozenset[str], frozenset[str]], ...]:
        """Each section with its heading's content words and its heading path's (product
        and unit words left out), read once: what :func:`asked_heading` compares."""
        drop = self.learned.units | self.products
        out = []
        for s in self.learned.sections:
            own = frozenset(_content_words(s.title, drop))
            if own:
                out.append((s, own, own | _content_words(" ".join(s.path), drop)))
        return tuple(out)

    def match(self, question: str, docs: Sequence[str] = ()) -> LearnedMatch | None:
        """The section ``question`` names by a heading (a number, a title, a heading path,
        a FAQ entry), of ``docs`` only when given; None when none or several. A name
        written with a slash or a hyphen before its number ("HTTP/2") is read as the
        heading writes it joined ("HTTP2") when it names nothing as written."""
        found = self.learned.match(question, (), docs)
        joined = joined_names(question)
        if found is None and joined != question:
            found = self.learned.match(joined, (), docs)
        return found or asked_heading(self, question, docs)

    def titled(self, question: str, docs: Sequence[str] = ()) -> frozenset[tuple[str, str]]:
        """The sections whose own title ``question`` writes (of ``docs`` when given), named
        or not (:meth:`~sectio.retrieve.learned.LearnedVocabulary.titled`); as written,
        else with its numbered names joined (:func:`joined_names`)."""
        found = self.learned.titled(question, docs)
        joined = joined_names(question)
        return found or (self.learned.titled(joined, docs) if joined != question else found)


#: A name and its number joined by a slash or a hyphen ("HTTP/2", "OAuth-2", "Python-3").
_NUMBERED_NAME = re.compile(r"\b([A-Za-z]{2,})[/-](\d+)\b")


def joined_names(question: str) -> str:
    """``question`` with each name written with a slash or a hyphen before its number
    joined to it, as headings write such names ("HTTP2", "OAuth2").

    Example:
        >>> joined_names("Can the standalone server speak HTTP/2?")
        'Can the standalone server speak HTTP2?'
        >>> joined_names("Is client-server or 2-3 left?")
        'Is client-server or 2-3 left?'
    """
    return _NUMBERED_NAME.sub(r"\1\2", question)


@dataclass
class _Heading:
    """One section of one page as its chunks tell it."""

    title: str
    path: tuple[str, ...]
    text: list[str]
    #: The first source line of its chunks (0: none recorded): the page's order.
    line: int = 0


def _headings(payloads: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], _Heading]:
    """Each page section's title, heading path and texts (its page chunks: prose and code)."""
    out: dict[tuple[str, str], _Heading] = {}
    for p in payloads:
        doc_id, key = str(p.get("doc_id") or ""), str(p.get("section_key") or "")
        if not doc_id or not key or key.startswith("_"):
            continue
        if p.get("layer", Layer.D0_DOC_CHUNKS.value) != Layer.D0_DOC_CHUNKS.value:
            continue
        held = out.get((doc_id, key))
        if held is None:
            path = tuple(str(h) for h in p.get("heading_path") or () if str(h).strip())
            held = out[(doc_id, key)] = _Heading(
                str(p.get("section_title") or "").strip(), path, []
            )
        held.text.append(str(p.get("text") or ""))
        lines = [n for n in (held.line, first_line(p)) if n]  # 0: none recorded
        held.line = min(lines, default=0)
    return out


def _page_numbers(
    headings: Mapping[tuple[str, str], _Heading],
    numbered: Mapping[tuple[str, str], tuple[Number, str] | None],
    titles: Mapping[str, str],
    kinds: frozenset[str],
) -> dict[tuple[str, str], Number]:
    """The number a page's title carries ("RFC 004 - Cross-TTS Hiring at Scale"), given to
    the page's first section, for pages whose sections print none (``numbered``: each
    heading's own number; the page's own title heads no section: its first one is "The
    problem / situation / context")."""
    first: dict[str, tuple[int, str]] = {}
    numbered_docs = {doc_id for (doc_id, _k), found in numbered.items() if found}
    for (doc_id, key), h in headings.items():
        if doc_id not in numbered_docs and (doc_id not in first or h.line < first[doc_id][0]):
            first[doc_id] = (h.line, key)
    out: dict[tuple[str, str], Number] = {}
    for doc_id, (_line, key) in first.items():
        found = title_number(titles.get(doc_id, ""), kinds)
        if found is not None:
            out[(doc_id, key)] = found[0]
    return out


#: A web address written out (``https://gsa.gov/leave``): its words are no product's.
_ADDRESS = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)


def product_words(
    headings: Mapping[tuple[str, str], _Heading], content: Callable[[str], bool]
) -> frozenset[str]:
    """The product's words: content words (not stopwords) that at least
    :data:`PRODUCT_SHARE` of the pages use and that stand before the headings of at
    least 3 sections in their own text (``poetry lock`` in the "lock" section)."""
    per_doc: dict[str, set[str]] = defaultdict(set)
    for (doc_id, _key), h in headings.items():
        for text in h.text:  # an address's words name no product ("https" of every link)
            per_doc[doc_id].update(tokens(_ADDRESS.sub(" ", text)))
    if len(per_doc) < 3:
        return frozenset()
    df = Counter(w for words in per_doc.values() for w in words)
    need = max(3, PRODUCT_SHARE * len(per_doc))
    common = {
        w for w, n in df.items() if n >= need and w not in STOPWORDS and content(w) and w.isalpha()
    }
    before: Counter[str] = Counter()
    for h in headings.values():
        before.update(_before(h, common))
    return frozenset(w for w in common if before[w] >= 3)


def _before(h: _Heading, words: Collection[str]) -> set[str]:
    """Which of ``words`` stand right before the heading's title in its own text."""
    title = tokens(h.title)
    out: set[str] = set()
    for text in h.text if title else ():
        seq = tokens(text)
        out.update(seq[at - 1] for at in find_phrase(seq, title) if at > 0 and seq[at - 1] in words)
    return out


def _product_name(words: tuple[str, ...], products: frozenset[str]) -> bool:
    """Whether ``words`` are the product's words alone ("poetry", "argo cd")."""
    return bool(words) and all(w in products for w in words)


def _phrases(
    h: _Heading,
    repeated: bool,
    products: frozenset[str],
    content: Callable[[str], bool],
    found: tuple[Number, str] | None = None,
) -> tuple[str, ...]:
    """A heading's phrases (see the module doc), longest first, each once (``found``: the
    number its title starts with and the title without it)."""
    rest = found[1] if found is not None else h.title
    own = [] if repeated else list(title_phrases(rest, content))
    parent = h.path[-2] if len(h.path) >= 2 else ""
    if parent and any(content(w) for w in tokens(rest)):
        own.append(f"{parent} {rest}")
    if tokens(rest) == tokens(h.title):
        own.extend(f"{word} {rest}" for word in sorted(_before(h, products)))
    if _product_name(tokens(rest), products):
        own = []  # a heading that is the product's name names nothing of it
    seen: dict[tuple[str, ...], str] = {}
    for text in own:
        words = tokens(text)
        if _product_name(words, products):
            continue  # nor a part of a heading that is ("[G-1] Argo CD (API Server) must ...")
        seen.setdefault(words, text)
    return tuple(sorted(seen.values(), key=lambda t: -len(" ".join(tokens(t)))))


def docs_vocabulary(
    payloads: Iterable[Mapping[str, Any]],
    *,
    skip: Collection[str] = (),
    content: Callable[[str], bool] = lambda w: w not in STOPWORDS,
    salient: Callable[[str], bool] | None = None,
    titles: Mapping[str, str] | None = None,
) -> DocsVocabulary:
    """The learned vocabulary of a docs tree's page chunks (any order; see the module doc).

    Args:
        payloads: stored records (D0 prose chunks are read; others passed over).
        skip: section keys left to the profile (it lists them).
        content: whether a word carries meaning.
        salient: whether a question word says what it asks (default: ``content``).
        titles: each page's title (its words are where a heading is, not what is asked).
    """
    headings = {k: h for k, h in _headings(payloads).items() if k[1] not in skip}
    products = product_words(headings, content)
    per_doc = Counter((doc_id, tokens(h.title)) for (doc_id, _k), h in headings.items())
    pages = titles or {}
    kinds = learned_kinds([*(h.title for h in headings.values()), *pages.values()])
    numbered = {k: title_number(h.title, kinds) if h.title else None for k, h in headings.items()}
    page_numbers = _page_numbers(headings, numbered, pages, kinds)  # "RFC 004 - ..."
    sections = []
    for (doc_id, key), h in sorted(headings.items()):
        found = numbered[(doc_id, key)]
        above = [*h.path[:-1], pages.get(doc_id, "")]
        context = {w for part in above for w in tokens(part)} | products
        context |= acronyms(above)  # "CSRF" under "Cross-Site Request Forgery Prevention"
        phrases = _phrases(h, per_doc[(doc_id, tokens(h.title))] > 1, products, content, found)
        number = found[0] if found is not None else page_numbers.get((doc_id, key))
        sections.append(
            LearnedSection(doc_id, key, h.title, number, phrases, frozenset(context), h.path)
        )
    return learned_docs(sections, products, salient or content)


def learned_docs(
    sections: Sequence[LearnedSection], products: frozenset[str], salient: Callable[[str], bool]
) -> DocsVocabulary:
    """The docs vocabulary of learned ``sections`` (read now or stored: :mod:`sectio.plan.stored`):
    the section router's vocabulary with the docs' unit words, no shared keys."""
    learned = LearnedVocabulary(
        sections, {}, lambda w: w not in STOPWORDS and salient(w), DOCS_UNIT_WORDS, 0
    )
    return DocsVocabulary(learned, products)


def load_docs_vocabulary(scope: ReadScope) -> DocsVocabulary | None:
    """The scope's tenant's docs vocabulary (None: the profile's ``[learning]`` is off).

    The stored one when it is current (:mod:`sectio.plan.stored`); else one
    tenant-filtered, guard-checked scroll of the page chunks (layer D0), learned and
    stored for the next process.
    """
    profile = scope.profile
    if not profile.learning.enabled:
        return None
    lexical = scope.collection.lexical

    def salient(common_terms: frozenset[int]) -> Callable[[str], bool]:
        """A word says what is asked when one of its terms is not common in the pages."""
        return lambda word: any(t not in common_terms for t in lexical.terms(word))

    held = stored.load(scope)
    if held is not None:
        return learned_docs(held[0], held[1], salient(held[2]))
    where = tenant_where(scope.tenant, Eq("layer", Layer.D0_DOC_CHUNKS.value))
    points = scroll_all(
        scope.index, scope.tenant, where, guard=scope.guard, page=_SECTION_PAGE, route="docs_learn"
    )
    payloads = [p.payload for p in points]
    stats = TermStats.from_payloads(payloads, lexical, df_only=True)
    common = profile.learning.common_share * stats.chunks
    common_terms = frozenset(t for t, n in stats.df.items() if n > common)
    titles = {str(p.get("doc_id")): str(p.get("doc_title") or "") for p in payloads}
    vocab = docs_vocabulary(
        payloads,
        skip={s.key for s in profile.sections},
        content=lambda w: bool(lexical.terms(w)) and w not in STOPWORDS,
        salient=salient(common_terms),
        titles=titles,
    )
    stored.store(scope, vocab.learned.sections, vocab.products, common_terms)
    return vocab


def refresh_docs_vocabulary(scope: ReadScope) -> None:
    """Learn and store the scope's tenant's docs vocabulary unless the stored one is
    current (a write of a docs collection ends with it; :func:`load_docs_vocabulary`
    stores what it learns); nothing for a profile that learns nothing or routes with the
    section router."""
    profile = scope.profile
    if profile.learning.enabled and profile.engine != "router":
        load_docs_vocabulary(scope)


def docs_summary(scope: ReadScope) -> dict[str, Any]:
    """What the scope's tenant's page chunks teach the docs planner, for ``sectio info``:
    ``enabled: false`` when the profile's ``[learning]`` is off; else the headings
    (sections) learned, their phrases, the product's words, and per page (by ``doc_id``)
    its headings, numbered headings and phrases. One scroll of the page chunks
    (:func:`load_docs_vocabulary`); no model is loaded."""
    vocab = load_docs_vocabulary(scope)
    if vocab is None:
        return {"enabled": False}
    learned = vocab.learned.summary()
    per_page: dict[str, dict[str, int]] = defaultdict(
        lambda: {"headings": 0, "numbered": 0, "phrases": 0}
    )
    for s in vocab.learned.sections:
        page = per_page[s.doc_id]
        page["headings"] += 1
        page["numbered"] += s.number is not None
        page["phrases"] += len(s.phrases)
    return {
        "enabled": True,
        "engine": "docs_planner",
        "tenant": scope.tenant,
        "documents": learned["documents"],
        "sections": learned["sections"],
        "numbered_sections": learned["numbered_sections"],
        "numbered_units": learned["numbered_units"],
        "releases": learned["releases"],
        "title_phrases": learned["title_phrases"],
        "product_words": sorted(vocab.products),
        "shared_sections": [],
        "per_document": dict(sorted(per_page.items())),
    }


def _content_words(text: str, drop: Collection[str] = ()) -> set[str]:
    """The words of ``text`` that carry meaning (plurals folded; stopwords and ``drop`` out)."""
    return {w for w in plan_tokens(text) if w not in STOPWORDS and w not in drop}


def asked_heading(
    vocab: DocsVocabulary, question: str, docs: Collection[str] = ()
) -> LearnedMatch | None:
    """The section whose heading ``question`` asks in other words, or None. Content
    words (plurals folded; the product's words and unit words left out), two or more:

    * a question heading (a FAQ entry): every word of the question is one of the
      heading's, and they are at least :data:`ASKED_SHARE` of the heading's ("Why is
      dependency resolution so slow?" for "Why is the dependency resolution process
      slow?");
    * a heading path: every word of the section's heading is in the question, and
      every word of the question in the headings down to it ("how to enable tab
      completion in zsh" for "Zsh" under "Enable tab completion for Bash, Fish, or Zsh").

    One such section (the deepest of a line of them), else None.
    """
    drop = vocab.learned.units | vocab.products
    asked = _content_words(question, drop)
    if len(asked) < 2:
        return None
    found = []
    for s, own, path in vocab.headings:
        if docs and s.doc_id not in docs:
            continue
        if s.title.rstrip().endswith("?"):
            if asked <= own and len(asked) >= ASKED_SHARE * len(own):
                found.append(s)
        elif own <= asked and asked <= path:
            found.append(s)
    keys = {(s.doc_id, s.key) for s in found}
    found = [
        s for s in found if not any(d == s.doc_id and k.startswith(s.key + "/") for d, k in keys)
    ]
    if len(found) != 1:
        return None
    return LearnedMatch(found[0].doc_id, found[0].key, "learned_title", found[0].title)


class VocabularyCache:
    """Docs vocabularies per open collection and tenant; rebuilt when it is reopened."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], tuple[IndexCollection, DocsVocabulary | None]] = {}

    def get(self, scope: ReadScope) -> DocsVocabulary | None:
        """The vocabulary of the scope's collection and tenant (built on first use, then kept)."""
        key = (scope.collection.name, scope.tenant)
        held = self._entries.get(key)
        if held is not None and held[0] is scope.collection:
            return held[1]
        vocab = load_docs_vocabulary(scope)
        self._entries[key] = (scope.collection, vocab)
        return vocab


__all__ = [
    "ASKED_SHARE",
    "DOCS_UNIT_WORDS",
    "PRODUCT_SHARE",
    "DocsVocabulary",
    "VocabularyCache",
    "asked_heading",
    "docs_summary",
    "docs_vocabulary",
    "learned_docs",
    "load_docs_vocabulary",
    "product_words",
    "refresh_docs_vocabulary",
]
