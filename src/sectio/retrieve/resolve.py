"""The resolve step: which document and which section a question is about.

The document comes from the caller (``doc_id``) or from the names in the
question (:class:`~sectio.retrieve.resolve_doc.DocCatalog`, per tenant, read
once per open collection); the section from the caller (``section_key``) or
the profile's phrases (:class:`~sectio.retrieve.resolve_section.SectionResolver`:
longest phrase wins; a document's name reads as "it"). When the question names
several sections, the best one a named document has is chosen. A free-form
turn keeps what the phrases found in ``details`` but routes on no section.

``details.doc_resolution`` and ``details.section_resolution`` say what was
read and how (``flag``, ``exact``, ``folded``, ``fuzzy``, ``phrase``, ``none``).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sectio.contract.diagnostics import (
    DocFacts,
    SectionFacts,
    SectionPick,
    WordRead,
)
from sectio.contract.profile import CorpusProfile
from sectio.contract.request import AskRequest
from sectio.index.lexical import LexicalEncoder
from sectio.retrieve import stored_stats
from sectio.retrieve.brands import BrandTable, ingredient_key
from sectio.retrieve.domain import DomainPack, Reading
from sectio.retrieve.learned import LearnedVocabulary
from sectio.retrieve.learned.reading import learned_reading
from sectio.retrieve.reads import TenantGuard, scroll_all
from sectio.retrieve.resolve_doc import DocCatalog, DocResolution
from sectio.retrieve.resolve_section import SectionMatch, SectionResolver, joined_match
from sectio.retrieve.routes.base import Resolution, Turn
from sectio.retrieve.scope import ReadScope
from sectio.retrieve.stats import SubjectWords, TermStats, salient_terms
from sectio.retrieve.text import Tokens, tokens

#: Scroll page of the one complete read that builds a tenant's view.
VIEW_PAGE = 512


@dataclass(frozen=True)
class CorpusView:
    """What one complete read of a tenant's points gives (kept while the collection is open).

    Attributes:
        catalog: the documents' names and sections.
        stats: term document frequencies and the words the tenant's texts contain.
        subjects: the words of document names, of the lookup section and of the
            sections that list other subjects (answerability).
        ingredients: the documents' ingredient keys (brands read as ingredients).
        learned: the sections' numbers and titles (None: the profile's ``[learning]`` is off).
    """

    catalog: DocCatalog
    stats: TermStats
    subjects: SubjectWords
    ingredients: frozenset[tuple[str, ...]] = frozenset()
    learned: LearnedVocabulary | None = None

    @functools.cached_property
    def ingredient_words(self) -> frozenset[str]:
        """Every word of the documents' ingredients (what no other medicine can be)."""
        return frozenset(word for key in self.ingredients for name in key for word in name.split())


class Resolver:
    """Document and section resolution for one open collection (a view cached per tenant)."""

    def __init__(
        self,
        profile: CorpusProfile,
        *,
        guard: TenantGuard,
        common: Callable[[str], bool] = lambda _w: False,
        brand_table: BrandTable | None = None,
        domains: Sequence[DomainPack] = (),
    ) -> None:
        """``common``: whether a word is a common word of the language (a brand made
        only of such words is never read as a name); ``brand_table``: the brands
        read as their ingredients' documents (None: the bundled table when the
        profile's ``[names] brand_table`` is on, else none); ``domains``: the domain
        packs that annotate what was read (:mod:`sectio.retrieve.domain`)."""
        self.profile = profile
        self.sections = SectionResolver(profile)
        #: Every word of the routing phrases (never a brand's word; computed once).
        self.routing_words = frozenset(self.sections.vocabulary())
        #: Each section's stand-ins, in order of preference (the profile's ``stand_in``).
        self.stand_ins = profile.stand_ins
        self.guard = guard
        self.common = common
        if brand_table is None and profile.names.brand_table:
            brand_table = BrandTable.bundled()
        self.brand_table = brand_table
        self.domains = tuple(domains)
        self._views: dict[str, CorpusView] = {}

    def view(self, scope: ReadScope) -> CorpusView:
        """The tenant's view: one tenant-filtered, guard-checked scroll, then kept (its term
        statistics the stored ones when current: :mod:`sectio.retrieve.stored_stats`)."""
        if scope.tenant not in self._views:
            points = scroll_all(
                scope.index, scope.tenant, guard=self.guard, page=VIEW_PAGE, route="catalog"
            )
            payloads = [p.payload for p in points]
            stats = stored_stats.load(scope)
            if stats is None:  # measured here, stored for the next process
                stats = TermStats.from_payloads(payloads, scope.collection.lexical)
                stored_stats.store(scope, stats)
            lexical = scope.collection.lexical
            catalog = DocCatalog.from_payloads(
                payloads,
                self.routing_words,
                stats.words,
                content=lambda w: bool(lexical.terms(w)),
                brand_table=self.brand_table,
                usable_brand=self._usable_brand,
                variants=self._learns,
                usable_variant=self._usable_variant,
            )
            self._views[scope.tenant] = CorpusView(
                catalog,
                stats,
                self._subjects(payloads, catalog, lexical),
                frozenset(ingredient_key(t) for t in catalog.titles.values()),
                self._learned(payloads, lexical, stats),
            )
        return self._views[scope.tenant]

    def _learned(
        self, payloads: list[dict[str, Any]], lexical: LexicalEncoder, stats: TermStats
    ) -> LearnedVocabulary | None:
        """The tenant's learned vocabulary (sections the profile lists left to it)."""
        if not self._learns:
            return None
        skip = {s.key for s in self.profile.sections}
        common = self.profile.learning.common_share * stats.chunks

        def salient(word: str) -> bool:
            return any(stats.df.get(t, 0) <= common for t in lexical.terms(word))

        return LearnedVocabulary.from_payloads(
            payloads, skip=skip, content=lambda w: bool(lexical.terms(w)), salient=salient
        )

    @property
    def _learns(self) -> bool:
        """Learning is on (``[learning] enabled``) and the section router answers (the docs
        planner plans from its own layers, :mod:`sectio.plan`)."""
        return self.profile.learning.enabled and self.profile.engine == "router"

    def _implied(
        self,
        scope: ReadScope,
        view: CorpusView,
        request: AskRequest,
        doc_id: str | None,
        docs_named: Sequence[str],
        match: SectionMatch | None,
        doc_facts: DocFacts,
        spans: Sequence[tuple[int, int]],
    ) -> str | None:
        """The tenant's only document, when a section was chosen and the question names no
        document: it is implied (``doc_resolution.how: implied``). Not when the question
        names what the collection does not hold (a brand or ingredient no document has, a
        name-like word its texts never contain: "the maximum dose of Paxil" in a tenant
        holding one other label), nor for a free-form turn."""
        catalog = view.catalog
        if doc_id or docs_named or len(catalog) != 1 or request.free_form:
            return None
        if match is None and not request.section_key:
            return None
        if doc_facts.brands_not_in_collection or doc_facts.ingredients_not_in_collection:
            return None
        terms = salient_terms(
            request.question,
            lexical=scope.collection.lexical,
            stats=view.stats,
            ignore=self.routing_words,
            spans=spans,
            common=self.common,
        )
        if any(t.unknown_name for t in terms):
            return None
        return next(iter(catalog.titles))

    def _usable_variant(self, name: Tokens) -> bool:
        """A one-word variant of a title (an acronym) must not be a common or routing word."""
        return len(name) > 1 or (not self.common(name[0]) and name[0] not in self.routing_words)

    def _usable_brand(self, brand: Tokens) -> bool:
        """A brand reads as a name unless all its words are common or one routes sections."""
        return not all(self.common(w) for w in brand) and not any(
            w in self.routing_words for w in brand
        )

    def _known_word(self, view: CorpusView) -> Callable[[str], bool]:
        """A real word, never read as a misspelt routing word: one the tenant's texts
        contain, a common word of the model's vocabulary, or a document's name word."""
        names = view.subjects.names
        return lambda w: w in view.stats.words or w in names or self.common(w)

    def _subjects(
        self, payloads: list[dict[str, Any]], catalog: DocCatalog, lexical: LexicalEncoder
    ) -> SubjectWords:
        lookup = self.profile.reverse_lookup_section
        mentioned = set(self.profile.answerability.subject_sections)

        lookup_words: set[str] = set()
        about: dict[str, set[int]] = {}
        docs_of: dict[str, set[str]] = {}
        for p in payloads:
            key = p.get("section_key")
            if key == lookup or key in mentioned:
                words = tokens(str(p.get("text") or ""))
                if key == lookup:
                    lookup_words.update(words)
                    doc_terms = about.setdefault(str(p.get("doc_id")), set())
                    doc_terms |= lexical.terms(str(p.get("text") or ""))
                if key in mentioned:
                    for w in words:
                        docs_of.setdefault(w, set()).add(str(p.get("doc_id")))
        return SubjectWords(
            frozenset(w for n in catalog.names for w in n.exact),
            frozenset(lookup_words),
            {w: len(d) for w, d in docs_of.items()},
            len(catalog),
            {d: frozenset(t) for d, t in about.items()},
        )

    def catalog(self, scope: ReadScope) -> DocCatalog:
        """The tenant's document names (read once per collection open)."""
        return self.view(scope).catalog

    def resolve(self, scope: ReadScope, turn: Turn) -> Resolution:
        """Read the turn's question (and the caller's overrides); what was read and how is
        the resolution's ``doc_facts`` and ``section_facts``."""
        request = turn.request
        catalog = self.catalog(scope)
        named = catalog.resolve(request.question)
        doc_id, inherited = _asked_doc(request, named, catalog)
        spans = named.spans if named else ()
        view = self.view(scope)
        known = self._known_word(view)
        matches = (
            [] if request.section_key else self.sections.resolve_all(request.question, spans, known)
        )
        docs_named = (doc_id,) if doc_id else (named.candidates if named is not None else ())
        sections_named = tuple(catalog.sections_of(d) for d in docs_named)
        match = _first_present(matches, list(sections_named), self.stand_ins)
        read = learned_reading(view.learned, catalog, request, spans, docs_named, match)
        match = read.match
        if read.doc_id:
            doc_id, docs_named = read.doc_id, (read.doc_id,)
            sections_named = (catalog.sections_of(doc_id),)
            named = DocResolution(doc_id, catalog.display_name(doc_id), "section")
        section = request.section_key or (match.key if match else None)
        if request.free_form and not request.section_key:
            section = None  # the caller asked for a free-form answer: phrases do not route
        doc_facts = _doc_details(request.doc_id, named, catalog)
        self._annotate(view, request, doc_id, spans, doc_facts)
        if inherited:
            doc_facts = DocFacts(doc_id=doc_id, how="conversation")
        if only := self._implied(scope, view, request, doc_id, docs_named, match, doc_facts, spans):
            doc_id, docs_named, sections_named = only, (only,), (catalog.sections_of(only),)
            named = DocResolution(only, catalog.display_name(only), "implied")
            doc_facts = DocFacts(doc_id=only, how="implied")
        section_facts = _section_details(request.section_key, match, matches)
        also = self._also(request, spans, matches, match, section, sections_named) or read.also
        if also is not None:
            section_facts.also = SectionPick(section_key=also.key, phrase=also.phrase)
        return Resolution(
            doc_id=doc_id,
            named=named,
            docs_named=docs_named,
            matches=tuple(matches),
            match=match,
            section_key=section,
            section_forced=bool(request.section_key),
            display_name=catalog.display_name(doc_id) if doc_id else None,
            sections_of_doc=catalog.sections_of(doc_id) if doc_id else frozenset(),
            sections_named=sections_named,
            inherited=inherited,
            also=also.key if also is not None else None,
            doc_facts=doc_facts,
            section_facts=section_facts,
        )

    def _annotate(
        self,
        view: CorpusView,
        request: AskRequest,
        doc_id: str | None,
        spans: Sequence[tuple[int, int]],
        doc_facts: DocFacts,
    ) -> None:
        """Let each domain pack add what it reads in the question to ``doc_facts`` (brands,
        ingredients, combinations), in the packs' order; nothing without packs."""
        if not self.domains:
            return
        catalog = view.catalog
        named_key = frozenset(ingredient_key(catalog.display_name(doc_id))) if doc_id else None
        reading = Reading(
            request.question,
            tokens(request.question),
            doc_id,
            spans,
            named_key or frozenset(),
            view.ingredients,
            view.ingredient_words,
            self.brand_table,
            self._usable_brand,
        )
        for pack in self.domains:
            pack.annotate(reading, doc_facts)

    def _also(
        self,
        request: AskRequest,
        spans: Sequence[tuple[int, int]],
        matches: list[SectionMatch],
        match: SectionMatch | None,
        section: str | None,
        sections_named: Sequence[frozenset[str]],
    ) -> SectionMatch | None:
        """The second section the question joins to the chosen one ("dose and side
        effects"), among those the named documents have; None when a section was forced,
        none was chosen, or nothing is joined."""
        if not section or match is None or request.section_key:
            return None
        present = {k for keys in sections_named for k in keys}
        joiners = self.profile.intent.joiners
        return joined_match(request.question, spans, matches, match, joiners, present)


def _asked_doc(
    request: AskRequest, named: DocResolution | None, catalog: DocCatalog
) -> tuple[str | None, bool]:
    """The document asked about (the caller's ``doc_id``, else the one the question names)
    and whether it is the conversation's: when neither gives one and the caller's
    ``context_doc_id`` has sections in the catalog, that document, inherited."""
    doc_id = request.doc_id or (named.doc_id if named else None)
    inherited = (
        doc_id is None
        and named is None
        and request.context_doc_id is not None
        and bool(catalog.sections_of(request.context_doc_id))
    )
    return (request.context_doc_id if inherited else doc_id), inherited


def _first_present(
    matches: list[SectionMatch],
    doc_sections: list[frozenset[str]],
    stand_ins: Mapping[str, Sequence[str]] | None = None,
) -> SectionMatch | None:
    """The best match whose section a named document has (else the best match at all).

    A match whose section the documents lack is answered by the first of its
    stand-ins they have (the phrase kept).
    """
    for m in matches:
        if any(m.key in keys for keys in doc_sections):
            return m
        for stand_in in (stand_ins or {}).get(m.key, ()):
            if any(stand_in in keys for keys in doc_sections):
                return dataclasses.replace(m, key=stand_in)
    return matches[0] if matches else None


def _doc_details(flag: str | None, named: DocResolution | None, catalog: DocCatalog) -> DocFacts:
    if flag:
        out = DocFacts(doc_id=flag, how="flag", known=flag in catalog)
        if named is not None:
            out.question_named = named.facts()
        return out
    if named is None:
        return DocFacts(doc_id=None, how="none")
    return DocFacts.model_validate(named.facts().model_dump())


def _section_details(
    flag: str | None, match: SectionMatch | None, matches: list[SectionMatch]
) -> SectionFacts:
    if flag:
        return SectionFacts(section_key=flag, how="flag")
    if match is None:
        return SectionFacts(section_key=None, how="none")
    out = SectionFacts(
        section_key=match.key,
        how="folded" if match.folded else "phrase",
        phrase=match.phrase,
        via=match.via,
    )
    if match.typo:
        out.typo = [WordRead(word=word, read_as=read) for word, read in match.typo]
    if len(matches) > 1:
        out.candidates = [SectionPick(section_key=m.key, phrase=m.phrase) for m in matches]
    return out
