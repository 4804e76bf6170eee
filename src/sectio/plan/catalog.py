"""The router's view of a docs collection: the D1 document catalog and the D3 entity catalog.

Loaded once per open collection and tenant (every read carries the tenant
filter, and each point is checked again in Python), then kept by a
:class:`CatalogCache` that notices when the collection was reopened.

Phrases are matched on word tokens (``[a-z0-9]+``, plurals folded), so
``sync-waves.md``, ``Sync Waves`` and ``sync_waves`` all read as ``sync wave (md)``.

Example:
    >>> cat = DocsCatalog.from_payloads(
    ...     [{"doc_id": "docs/a/sync-waves.md", "path": "docs/a/sync-waves.md",
    ...       "doc_title": "Sync Phases and Waves", "aliases": ["sync-waves.md", "sync waves"],
    ...       "metadata": {"domain": "a"}}], [])
    >>> [m.doc_ids for m in cat.match_phrases(tokens("how do sync waves work"))]
    [('docs/a/sync-waves.md',)]
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sectio.contract.layers import Layer
from sectio.index.collection import Collection
from sectio.index.filters import AnyOf, tenant_where
from sectio.retrieve.reads import scroll_all
from sectio.retrieve.scope import ReadScope
from sectio.retrieve.words import singular

_TOKEN = re.compile(r"[a-z0-9]+")

_STOPWORD_TEXT = """
a an and are as at be by can could do does doing done for from get got has have how i if in
into is it its me my of on or our should so than that the their them then there these this
those to use used using was we what when where which while who why will with would you your
yes no not all any each more most other some such only own same too very just about after
again against before being between both during few further here once off out over under until
up down did am were been having ours ourselves yours yourself yourselves he him his she her
hers they theirs itself let lets set sets also via per page pages doc docs document documents
documentation file files guide section sections find show tell explain describe list work
works working
"""
_CUE_TEXT = "page pages doc docs document documentation guide section article file manual chapter"
_FOLDER_CUE_TEXT = "section sections folder folders directory docs documentation area part"

#: Words that never make a match on their own.
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

#: Words that make a single-word title a page reference ("the Helm page").
DOC_CUES = frozenset(_CUE_TEXT.split())

#: Words that make a folder name a domain reference ("the notifications docs", not "page").
FOLDER_CUES = frozenset(_FOLDER_CUE_TEXT.split())


def _fold(word: str) -> str:
    """A light plural fold ("waves" -> "wave"), the same on both sides of a match."""
    return word if word in STOPWORDS else singular(word)


def first_line(payload: Mapping[str, Any]) -> int:
    """The source line a chunk starts at (0: none recorded): the page's order."""
    refs = payload.get("source_refs") or ()
    line = refs[0].get("line") if refs and isinstance(refs[0], Mapping) else None
    return int(line) if isinstance(line, int) else 0


def tokens(text: str) -> list[str]:
    """Lower-case word tokens of ``text``, plurals folded."""
    return [_fold(w) for w in raw_tokens(text)]


def raw_tokens(text: str) -> list[str]:
    """Lower-case word tokens of ``text`` as written (no fold): one per :func:`tokens` word."""
    return _TOKEN.findall(text.lower())


def norm(text: str) -> str:
    """Tokens joined by one space: the key phrases are matched on."""
    return " ".join(tokens(text))


#: The fewest pages that make a word's :meth:`DocsCatalog.page_share` count.
PAGE_SHARE_PAGES = 3


@dataclass(frozen=True)
class CatalogDoc:
    """One document as the D1 catalog describes it."""

    doc_id: str
    path: str
    title: str
    aliases: tuple[str, ...] = ()
    domain: str | None = None
    subdomain: str | None = None


@dataclass(frozen=True)
class CatalogEntity:
    """One D3 entry: a name defined in one document."""

    name: str
    kind: str
    doc_id: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class PhraseMatch:
    """A phrase of the question found in the catalog."""

    phrase: str
    start: int
    end: int
    source: str  # "title" | "alias" | "entity" | "entity_alias"
    name: str  # the canonical name (doc title or entity name)
    doc_ids: tuple[str, ...]
    kinds: tuple[str, ...] = ()
    nested: bool = False


_SOURCES = ("title", "alias", "entity", "entity_alias")


@dataclass
class _Entry:
    source: str
    name: str
    doc_id: str
    kind: str = ""


@dataclass
class DocsCatalog:
    """Documents and entities of one collection and tenant, indexed by phrase."""

    docs: dict[str, CatalogDoc] = field(default_factory=dict)
    entities: list[CatalogEntity] = field(default_factory=list)
    phrases: dict[str, list[_Entry]] = field(default_factory=dict)
    basenames: dict[str, list[str]] = field(default_factory=dict)
    domains: set[str] = field(default_factory=set)
    subdomains: dict[str, set[str]] = field(default_factory=dict)
    max_phrase: int = 1
    _titles: list[str] = field(default_factory=list, repr=False)
    _title_df: dict[str, int] = field(default_factory=dict, repr=False)
    #: How many pages write each word in their title or first paragraph.
    _page_df: Counter[str] = field(default_factory=Counter, repr=False)

    @classmethod
    def from_payloads(
        cls, d1: Iterable[dict[str, Any]], d3: Iterable[dict[str, Any]]
    ) -> DocsCatalog:
        """Build the catalog from D1 and D3 point payloads."""
        cat = cls()
        phrases: dict[str, list[_Entry]] = defaultdict(list)
        for p in d1:
            doc_id = str(p.get("doc_id") or "")
            if not doc_id:
                continue
            meta = p.get("metadata") or {}
            doc = CatalogDoc(
                doc_id=doc_id,
                path=str(p.get("path") or doc_id),
                title=str(p.get("doc_title") or doc_id),
                aliases=tuple(str(a) for a in p.get("aliases") or ()),
                domain=(str(meta["domain"]).lower() if meta.get("domain") else None),
                subdomain=(str(meta["subdomain"]).lower() if meta.get("subdomain") else None),
            )
            cat.docs[doc_id] = doc
            cat._page_df.update(set(tokens(f"{doc.title} {p.get('first_paragraph') or ''}")))
            cat.basenames.setdefault(doc.path.rsplit("/", 1)[-1].lower(), []).append(doc_id)
            if doc.domain:
                cat.domains.add(doc.domain)
                if doc.subdomain:
                    cat.subdomains.setdefault(doc.domain, set()).add(doc.subdomain)
            phrases[norm(doc.title)].append(_Entry("title", doc.title, doc_id))
            for alias in doc.aliases:
                phrases[norm(alias)].append(_Entry("alias", doc.title, doc_id))
        for p in d3:
            name = str(p.get("entity") or "")
            doc_id = str(p.get("doc_id") or "")
            if not name or not doc_id:
                continue
            kind = str(p.get("entity_kind") or "")
            aliases = tuple(str(a) for a in p.get("entity_aliases") or ())
            cat.entities.append(CatalogEntity(name, kind, doc_id, aliases))
            phrases[norm(name)].append(_Entry("entity", name, doc_id, kind))
            for alias in aliases:
                phrases[norm(alias)].append(_Entry("entity_alias", name, doc_id, kind))
        phrases.pop("", None)
        cat.phrases = dict(phrases)
        cat.max_phrase = max((len(k.split()) for k in cat.phrases), default=1)
        return cat

    def title_df(self, phrase: str) -> int:
        """How many document titles contain ``phrase`` (normalized) as a word sequence.

        A phrase in many titles is the corpus's own vocabulary (the product
        name, "command reference"), not a pointer to one page.
        """
        cache = self._title_df
        if phrase not in cache:
            if not self._titles:
                self._titles = [f" {norm(d.title)} " for d in self.docs.values()]
            needle = f" {phrase} "
            cache[phrase] = sum(1 for t in self._titles if needle in t)
        return cache[phrase]

    def page_share(self, word: str) -> float:
        """The share of the pages whose title or first paragraph writes ``word`` (0.0 with
        fewer than :data:`PAGE_SHARE_PAGES` pages writing it): the product's name opens
        a third or more of a tree's pages ("trpc", "fastapi", "jest"), a class or an
        option a few ("splitlink", "testclient")."""
        n = self._page_df.get(norm(word), 0)
        return n / len(self.docs) if self.docs and n >= PAGE_SHARE_PAGES else 0.0

    @functools.cached_property
    def by_path(self) -> dict[str, CatalogDoc]:
        """Each document by its path (read once per catalog)."""
        return {d.path: d for d in self.docs.values()}

    def paths(self) -> list[str]:
        """Every document path, sorted."""
        return sorted(d.path for d in self.docs.values())

    def match_phrases(self, words: Sequence[str], nested_docs: bool = True) -> list[PhraseMatch]:
        """Catalog phrases in ``words``: longest first, never overlapping, left to right.

        With ``nested_docs``, a document title or alias of two words or more
        inside a longer match is reported too (``nested=True``): "multiple
        sources for applications" names a proposal, and "multiple sources" the
        user guide page. A phrase made only of stopwords never matches.
        """
        found: list[PhraseMatch] = []
        taken = [False] * len(words)
        for n in range(min(self.max_phrase, len(words)), 0, -1):
            for i in range(0, len(words) - n + 1):
                span = words[i : i + n]
                phrase = " ".join(span)
                entries = self.phrases.get(phrase)
                if not entries or all(w in STOPWORDS for w in span):
                    continue
                if any(taken[i : i + n]):
                    if nested_docs and n >= 2:
                        found.extend(self._group(phrase, i, n, entries, ("title", "alias"), True))
                    continue
                for j in range(i, i + n):
                    taken[j] = True
                found.extend(self._group(phrase, i, n, entries, _SOURCES, False))
        return sorted(found, key=lambda m: (m.start, m.nested, m.source))

    @staticmethod
    def _group(
        phrase: str,
        start: int,
        n: int,
        entries: list[_Entry],
        sources: tuple[str, ...],
        nested: bool,
    ) -> list[PhraseMatch]:
        by_source: dict[str, list[_Entry]] = defaultdict(list)
        for e in entries:
            by_source[e.source].append(e)
        out = []
        for source in sources:
            group = by_source.get(source)
            if group:
                out.append(
                    PhraseMatch(
                        phrase=phrase,
                        start=start,
                        end=start + n,
                        source=source,
                        name=group[0].name,
                        doc_ids=tuple(dict.fromkeys(e.doc_id for e in group)),
                        kinds=tuple(dict.fromkeys(e.kind for e in group if e.kind)),
                        nested=nested,
                    )
                )
        return out


def load_catalog(scope: ReadScope, page: int = 512) -> DocsCatalog:
    """Read the D1 and D3 points of the scope's tenant (a complete scroll, tenant-checked)."""
    where = tenant_where(
        scope.tenant,
        AnyOf("layer", (Layer.D1_DOCUMENT_CATALOG.value, Layer.D3_ENTITY_CATALOG.value)),
    )
    points = scroll_all(
        scope.index, scope.tenant, where, guard=scope.guard, page=page, route="docs_catalog"
    )
    d1 = [p.payload for p in points if p.payload.get("layer") == Layer.D1_DOCUMENT_CATALOG]
    d3 = [p.payload for p in points if p.payload.get("layer") == Layer.D3_ENTITY_CATALOG]
    d1.sort(key=lambda p: str(p.get("doc_id")))
    d3.sort(key=lambda p: str(p.get("chunk_id")))
    return DocsCatalog.from_payloads(d1, d3)


class CatalogCache:
    """Catalogs per open collection and tenant; reloaded when the collection is reopened."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], tuple[Collection, DocsCatalog]] = {}
        self.loads = 0

    def get(self, scope: ReadScope) -> DocsCatalog:
        """The catalog of the scope's collection and tenant (read on first use, then kept)."""
        collection, tenant = scope.collection, scope.tenant
        key = (collection.name, tenant)
        held = self._entries.get(key)
        if held is not None and held[0] is collection:
            return held[1]
        catalog = load_catalog(scope)
        self.loads += 1
        self._entries[key] = (collection, catalog)
        return catalog

    def clear(self) -> None:
        self._entries.clear()


__all__ = [
    "CatalogCache",
    "CatalogDoc",
    "CatalogEntity",
    "DocsCatalog",
    "PhraseMatch",
    "first_line",
    "load_catalog",
    "norm",
    "tokens",
]
