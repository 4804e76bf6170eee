"""Document resolver: which document is a question about? Names from the collection itself.

The catalog holds every document's names (``doc_title``, ``aliases`` and a
word-like ``doc_id``) and the sections it has, for one tenant, read once from
the collection. Matching
runs in three passes, each only when the previous one found nothing:

1. exact: normalized tokens (NFC, casefold, punctuation), word boundaries;
2. diacritic-insensitive: the same on folded tokens;
3. typo-tolerant: one edit for names of :data:`FUZZY_ONE_MIN` characters or
   more, two edits from :data:`FUZZY_TWO_MIN` ("metforman", "motoprolol"),
   never for short names or short words, never for a word the section phrases
   use, first letter kept. Name safety: typo tolerance never turns one real
   name into another, so a word that occurs verbatim in the collection is not
   a misspelling, and neither is a word that differs from a name by a whole
   added or dropped syllable (two adjacent letters: "prednisolone" is not
   "prednisone"; "ibuprophen" still is "ibuprofen"). A fuzzy resolution says
   so (``how="fuzzy"``, with the word read and its distance in ``typo``).

Brands the documents do not carry: with a brand table
(:class:`~sectio.retrieve.brands.BrandTable`), a brand whose ingredients are a
document's ("Paxil" -> paroxetine) names that document, in the words no
document name covers, exactly (never by typo), and only when no longer brand
of the table starts there ("Advil PM" is not "Advil"). Such a resolution says
so (``how="brand"``, ``brand`` with the brand and its ingredients). Every
word of a one-word brand of the table, and every one-word ingredient of it,
is a distinct name, never a typo of another name ("Zoloft" is not corrected
into a document, nor "ampicillin" into amoxicillin).

A brand alias that ends in a release-form designator or a strength
("Depakote ER", "Protonix Delayed-Release", "Dilantin-125") also names its
document by the brand alone ("Depakote"), unless that word already names
another document (:func:`release_form_head`).

Overlapping matches: the longest wins ("Toprol-XL" over "Toprol"). Several
documents named in separate places, or a name shared by two documents, is
ambiguous: the resolution carries the candidates but no ``doc_id``, never a
guess.

Example:
    >>> cat = DocCatalog.from_payloads([
    ...     {"doc_id": "metformin", "doc_title": "Metformin", "aliases": ["Glucophage"]},
    ...     {"doc_id": "metoprolol", "doc_title": "Metoprolol", "aliases": ["Toprol-XL"]},
    ... ])
    >>> cat.resolve("metforman side effects").doc_id
    'metformin'
    >>> cat.resolve("is toprol xl a beta blocker").doc_id
    'metoprolol'
    >>> cat.resolve("what is it for") is None
    True
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from sectio.contract.diagnostics import DocReading, NameTypo
from sectio.retrieve.brands import MAX_BRAND_WORDS, BrandName, BrandTable
from sectio.retrieve.learned.names import add_variants
from sectio.retrieve.text import Tokens, edit_distance, folded_tokens, tokens

#: Names at least this long (letters, spaces excluded) tolerate one edit.
FUZZY_ONE_MIN = 6
#: Names at least this long tolerate two edits.
FUZZY_TWO_MIN = 9
#: A question word shorter than this is never corrected.
FUZZY_WORD_MIN = 5
_WORDLIKE_ID = re.compile(r"^[^\W\d_][\w-]{3,}$", re.UNICODE)
#: Trailing words of a brand name that say its release form, not the product.
RELEASE_FORM_WORDS = frozenset(
    {
        "er", "xr", "xl", "sr", "cr", "la", "dr", "xt", "cd", "ec", "odt",
        "extended", "delayed", "sustained", "controlled", "release",
    }
)  # fmt: skip

#: How a document was named; ``section``: by the section the question names, which
#: one document alone has (:mod:`sectio.retrieve.learned.reading`).
How = Literal["flag", "exact", "folded", "fuzzy", "brand", "section", "implied"]


@dataclass(frozen=True)
class DocName:
    """One name of one document."""

    doc_id: str
    name: str
    exact: Tokens
    folded: Tokens
    brand: BrandName | None = None

    @property
    def compact(self) -> str:
        return "".join(self.folded)


@dataclass(frozen=True)
class DocResolution:
    """Outcome of resolving a question: a document, or the ambiguous candidates.

    ``spans`` are the token spans (``[start, end)``) of every name matched in
    the question, so other resolvers can skip them.
    """

    doc_id: str | None
    name: str
    how: How
    spans: tuple[tuple[int, int], ...] = ()
    candidates: tuple[str, ...] = ()
    typo: tuple[str, int] | None = None
    brand: BrandName | None = None

    @property
    def ambiguous(self) -> bool:
        return self.doc_id is None and len(self.candidates) > 1

    def facts(self) -> DocReading:
        """The reading as ``details.doc_resolution`` shows it."""
        reading = DocReading(
            doc_id=self.doc_id,
            name=self.name,
            how=self.how,
            spans=[list(span) for span in self.spans],
            candidates=list(self.candidates),
        )
        if self.typo is not None:
            reading.typo = NameTypo(word=self.typo[0], distance=self.typo[1])
        if self.brand is not None:
            reading.brand = self.brand.as_fact(via="brand_table")
        return reading


@dataclass(frozen=True)
class _Hit:
    name: DocName
    start: int
    end: int
    distance: int = 0
    word: str = ""


class DocCatalog:
    """The names of one tenant's documents in one collection."""

    def __init__(
        self,
        names: Iterable[DocName],
        titles: Mapping[str, str],
        protected: Iterable[str] = (),
        sections: Mapping[str, Iterable[str]] | None = None,
        known_words: Iterable[str] = (),
        brands: Iterable[BrandName] = (),
        table_brands: Iterable[Tokens] = (),
    ) -> None:
        """Args beyond the names: ``brands`` name documents through their ingredients;
        ``table_brands`` are every brand of the table (longer ones block shorter
        ones; one-word ones are never typo-corrected)."""
        self.names = tuple(names)
        self.titles = dict(titles)
        self.sections = {doc: frozenset(keys) for doc, keys in (sections or {}).items()}
        self._protected = frozenset(protected)
        self._table_brands = frozenset(table_brands)
        self._known = frozenset(known_words) | {b[0] for b in self._table_brands if len(b) == 1}
        self.brands = tuple(brands)
        self._by_first_brand: dict[str, list[DocName]] = defaultdict(list)
        for b in self.brands:
            name = DocName(b.doc_id, b.display, b.brand, b.brand, b)
            self._by_first_brand[b.brand[0]].append(name)
        self._by_first: dict[str, list[DocName]] = defaultdict(list)
        self._by_first_folded: dict[str, list[DocName]] = defaultdict(list)
        self._fuzzy_names: dict[str, list[DocName]] = defaultdict(list)
        for n in self.names:
            self._by_first[n.exact[0]].append(n)
            self._by_first_folded[n.folded[0]].append(n)
            if len(n.compact) >= FUZZY_ONE_MIN:
                self._fuzzy_names[n.compact[0]].append(n)

    # --- building ------------------------------------------------------------
    @classmethod
    def from_payloads(
        cls,
        payloads: Iterable[Mapping[str, Any]],
        protected: Iterable[str] = (),
        known_words: Iterable[str] = (),
        content: Callable[[str], bool] | None = None,
        brand_table: BrandTable | None = None,
        usable_brand: Callable[[Tokens], bool] = lambda _brand: True,
        variants: bool = False,
        usable_variant: Callable[[Tokens], bool] = lambda _name: True,
    ) -> DocCatalog:
        """A catalog from chunk payloads (any number per document).

        Args:
            payloads: stored records (``doc_id``, ``doc_title``, ``aliases``).
            protected: words never typo-corrected into a name (the routing vocabulary).
            known_words: words the collection contains (never typo-corrected either).
            content: whether a word carries meaning (has a BM25 term): a name made
                only of stopwords (a SciFact paper titled "in") names nothing, or
                every question with that word in it would name the document.
            brand_table: brands that name documents through their ingredients (None: none).
            usable_brand: whether a brand may be read as a name (not a common word).
            variants: add the names people use for a title (without its number, its
                head, its acronym: :mod:`sectio.retrieve.learned.names`), each only
                where ``usable_variant`` accepts it and one document alone has it.
        """
        titles, raw, sections, texts = _read_payloads(payloads, variants)
        _add_release_heads(raw)
        if variants:
            add_variants(raw, usable_variant, texts)
        names = []
        for (doc_id, _norm), display in sorted(raw.items()):
            exact = tokens(display)
            if exact and (content is None or any(content(w) for w in exact)):
                names.append(DocName(doc_id, display, exact, folded_tokens(display)))
        for doc_id in [*sections, *(n.doc_id for n in names)]:
            titles.setdefault(doc_id, doc_id)
        if brand_table is None:
            return cls(names, titles, protected, sections, known_words)
        brands = brand_table.names_for(titles, usable_brand)
        table = brand_table.entries.keys()
        known = frozenset(known_words) | brand_table.ingredient_words
        return cls(names, titles, protected, sections, known, brands, table)

    def display_name(self, doc_id: str) -> str:
        """The document's title (its id when it has none)."""
        return self.titles.get(doc_id, doc_id)

    def sections_of(self, doc_id: str) -> frozenset[str]:
        """Section keys holding prose chunks of ``doc_id`` (empty if unknown)."""
        return self.sections.get(doc_id, frozenset())

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.titles

    def __len__(self) -> int:
        return len(self.titles)

    # --- resolving -------------------------------------------------------------
    def resolve(self, question: str) -> DocResolution | None:
        """The document ``question`` names, an ambiguous resolution, or None."""
        exact = tokens(question)
        if not exact or not self.names:
            return None
        folded = folded_tokens(question)
        hits = self._scan(exact, self._by_first, folded=False)
        how: How = "exact"
        if not hits:
            hits, how = self._scan(folded, self._by_first_folded, True), "folded"
        # Typos are looked for in the words no name covers, so a misspelt second
        # document ("warafin with aspirin") makes the question ambiguous, not wrong.
        covered = {i for h in hits for i in range(h.start, h.end)}
        brands = self._brands(exact, covered)
        if brands and not hits:
            how = "brand"
        hits += brands
        covered |= {i for h in brands for i in range(h.start, h.end)}
        typos = self._fuzzy(folded, covered)
        if typos and not hits:
            how = "fuzzy"
        hits += typos
        if not hits:
            return None
        return _decide(hits, how)

    def _scan(self, words: Tokens, index: Mapping[str, list[DocName]], folded: bool) -> list[_Hit]:
        hits = []
        for i, word in enumerate(words):
            for name in index.get(word, ()):
                needle = name.folded if folded else name.exact
                if tuple(words[i : i + len(needle)]) == needle:
                    hits.append(_Hit(name, i, i + len(needle)))
        return hits

    def _brands(self, words: Tokens, covered: set[int]) -> list[_Hit]:
        """Brand hits on uncovered words, unless a longer table brand starts there."""
        out = []
        for h in self._scan(words, self._by_first_brand, folded=False):
            ahead = range(h.end - h.start + 1, min(MAX_BRAND_WORDS, len(words) - h.start) + 1)
            longer = any(words[h.start : h.start + n] in self._table_brands for n in ahead)
            if not longer and not covered & set(range(h.start, h.end)):
                out.append(h)
        return out

    def _fuzzy(self, words: Tokens, covered: set[int]) -> list[_Hit]:
        best: dict[tuple[int, int], list[_Hit]] = {}
        for i in range(len(words)):
            if i in covered or words[i] in self._protected or words[i] in self._known:
                continue
            for name in self._fuzzy_names.get(words[i][0], ()):
                n = len(name.folded)
                window = words[i : i + n]
                if len(window) < n or any(
                    j in covered or w in self._protected or w in self._known
                    for j, w in enumerate(window, start=i)
                ):
                    continue
                candidate = "".join(window)
                size = len(name.compact)
                limit = 2 if size >= FUZZY_TWO_MIN else 1
                if len(candidate) < FUZZY_WORD_MIN or abs(len(candidate) - size) > limit:
                    continue
                dist = edit_distance(candidate, name.compact, limit)
                if 0 < dist <= limit and not another_name(candidate, name.compact):
                    span = (i, i + n)
                    kept = best.get(span, [])
                    hit = _Hit(name, i, i + n, dist, candidate)
                    if not kept or dist < kept[0].distance:
                        best[span] = [hit]
                    elif dist == kept[0].distance:
                        kept.append(hit)
        return [h for hits in best.values() for h in hits]


class _PayloadNames(NamedTuple):
    """What the payloads say of each document, before names are filtered."""

    #: the first ``doc_title`` of each document.
    titles: dict[str, str]
    #: ``(doc_id, normalised name) -> name as written``: titles, aliases, word-like ids.
    raw: dict[tuple[str, str], str]
    #: each document's prose section keys.
    sections: dict[str, set[str]]
    #: each document's chunk texts (read only for name variants).
    texts: dict[str, list[str]]


def _read_payloads(payloads: Iterable[Mapping[str, Any]], variants: bool) -> _PayloadNames:
    """Titles, names, prose sections (and texts, when ``variants``) from chunk payloads, in
    payload order; a payload without ``doc_id`` is skipped."""
    titles: dict[str, str] = {}
    raw: dict[tuple[str, str], str] = {}
    sections: dict[str, set[str]] = defaultdict(set)
    texts: dict[str, list[str]] = defaultdict(list)
    for p in payloads:
        doc_id = str(p.get("doc_id") or "")
        if not doc_id:
            continue
        if variants:
            texts[doc_id].append(str(p.get("text") or ""))
        if (p.get("chunk_kind") or "prose") == "prose" and p.get("section_key"):
            sections[doc_id].add(str(p["section_key"]))
        title = p.get("doc_title")
        if title and doc_id not in titles:
            titles[doc_id] = str(title)
        candidates = [title, *(p.get("aliases") or [])]
        if _WORDLIKE_ID.match(doc_id):
            candidates.append(doc_id)
        for cand in candidates:
            if isinstance(cand, str) and cand.strip():
                raw.setdefault((doc_id, " ".join(tokens(cand))), cand)
    return _PayloadNames(titles, raw, sections, texts)


def _add_release_heads(raw: dict[tuple[str, str], str]) -> None:
    """Add each name's head without its release form ("Depakote ER" -> "Depakote") to ``raw``,
    unless another document already has that head as a name."""
    owners: dict[str, set[str]] = defaultdict(set)
    for doc_id, norm in raw:
        owners[norm].add(doc_id)
    for (doc_id, _norm), display in list(raw.items()):
        head = release_form_head(display)
        if head and owners.get(" ".join(tokens(head)), {doc_id}) == {doc_id}:
            raw.setdefault((doc_id, " ".join(tokens(head))), head)


def release_form_head(name: str) -> str | None:
    """The brand of ``name`` without its trailing release form or strength, or None.

    Only a head of at least 4 letters counts, and only when something was cut.

    Example:
        >>> release_form_head("Depakote ER"), release_form_head("Dilantin-125")
        ('Depakote', 'Dilantin')
        >>> release_form_head("Protonix Delayed-Release"), release_form_head("Spiriva Respimat")
        ('Protonix', None)
    """
    words = name.replace("-", " ").split()
    cut = len(words)
    while cut > 1 and (words[cut - 1].casefold() in RELEASE_FORM_WORDS or words[cut - 1].isdigit()):
        cut -= 1
    head = " ".join(words[:cut])
    if cut == len(words) or len(re.sub(r"\W", "", head)) < 4:
        return None
    return head


def another_name(word: str, name: str) -> bool:
    """Whether ``word`` differs from ``name`` by two adjacent letters added or dropped.

    That is a syllable, not a slip of the keyboard: "prednisolone" is another
    drug than "prednisone" (and "esomeprazole" than "omeprazole").

    Example:
        >>> another_name("prednisolone", "prednisone"), another_name("ibuprophen", "ibuprofen")
        (True, False)
    """
    longer, shorter = (word, name) if len(word) > len(name) else (name, word)
    if len(longer) - len(shorter) != 2:
        return False
    return any(longer[:i] + longer[i + 2 :] == shorter for i in range(len(longer) - 1))


def _decide(hits: list[_Hit], how: How) -> DocResolution:
    """Longest overlapping match wins; distinct documents left over are ambiguous."""
    hits.sort(key=lambda h: (-(h.end - h.start), -len(h.name.compact), h.start))
    kept: list[_Hit] = []
    for h in hits:
        overlaps = any(h.start < k.end and k.start < h.end for k in kept)
        if not overlaps:
            kept.append(h)
        elif any(
            k.start == h.start and k.end == h.end and k.name.doc_id != h.name.doc_id for k in kept
        ):
            kept.append(h)  # the very same words name two documents: ambiguous
    kept.sort(key=lambda h: h.start)
    docs = tuple(dict.fromkeys(h.name.doc_id for h in kept))
    spans = tuple(dict.fromkeys((h.start, h.end) for h in kept))
    first = kept[0]
    typo = next(((h.word, h.distance) for h in kept if h.distance), None)
    brand = next((h.name.brand for h in kept if h.name.brand is not None), None)
    if len(docs) == 1:
        return DocResolution(docs[0], first.name.name, how, spans, typo=typo, brand=brand)
    return DocResolution(None, first.name.name, how, spans, docs, typo=typo, brand=brand)
