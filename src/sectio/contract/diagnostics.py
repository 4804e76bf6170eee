"""What a result's ``details`` says, typed: one model per stage, one :class:`Diagnostics`.

The stages of :mod:`sectio.retrieve.pipeline` hand each other typed facts
(the resolve stage's document and section readings, the rerank status, the
packing report, the answerability verdict); the result's ``details`` is the
:class:`Diagnostics` built from them, serialised with only the keys a stage
set (:class:`~sectio.contract.facts.Facts`). Its JSON schema is the OpenAPI
schema of ``details``.

==========================  ==================================================
key                         set by
==========================  ==================================================
``doc_resolution``          resolve: the document read, how, and the
                            medicines named that no document holds
``section_resolution``      resolve: the section read, how, typos, candidates
``intent``                  the section-intent route (a reading), or the docs
                            planner (its intent's name)
``section_fallback``        the section route: the section was absent
``section_filter_empty``    the fallback search: nothing in that section
``pooling``, ``sections``   the section route (``sections`` also the docs planner: two
                            headings named together)
``documents``               several documents' routes (ids), lookup (summaries)
``ranking``                 ranked routes; the rerank stage adds ``order``
``rerank``                  the rerank stage (lookup: its own)
``hydration``               the hydrate stage
``packing``                 the pack stage
``answerability``           the answerability stage (:class:`VerdictReport`)
lookup keys                 ``section_key``, ``phrase_tokens``, ``why``,
                            ``content_terms``, ``stage``, ``matched_chunks``,
                            ``dense_*``, ``chunk_pool``
docs planner keys           ``query_intent``, ``route``, ``plan``, ``steps``,
                            ``row_limit``
==========================  ==================================================

A search result's ``details`` is a :class:`SearchDetails` (the fusion's
pool, lists and weights, the calibration, the layers read).

Example:
    >>> d = Diagnostics(rerank=RerankStatus(status="off", failed=False))
    >>> d.model_dump(), d["rerank"]["status"], d.rerank.failed
    ({'rerank': {'status': 'off', 'failed': False}}, 'off', False)
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sectio.contract.facts import Facts


# --- resolve ----------------------------------------------------------------------
class NameTypo(Facts):
    """A misspelt document name: the word written and its edit distance."""

    word: str
    distance: int


class BrandFact(Facts):
    """A brand name and its ingredients ("Paxil -> paroxetine").

    ``via`` is ``brand_table`` when the brand resolved a document; ``combines``
    names the document whose ingredients the brand combines with others.
    """

    via: str | None = None
    brand: str
    ingredients: list[str]
    read_as: str
    combines: str | None = None


class DocReading(Facts):
    """The document resolver's reading of a question (names found, how, candidates)."""

    doc_id: str | None
    name: str | None = None
    how: str
    spans: list[list[int]] = Field(default_factory=list)
    candidates: list[str] = Field(default_factory=list)
    typo: NameTypo | None = None
    brand: BrandFact | None = None


class CombinedWith(Facts):
    """Ingredients written right after the document's name that make another product."""

    doc_id: str
    ingredients: list[str]


class DocFacts(DocReading):
    """``details.doc_resolution``: the document, ``how`` it was read (``flag``, ``exact``,
    ``folded``, ``fuzzy``, ``conversation``, ``none``) and what the question names
    that no document holds (a domain pack's facts: brands, ingredients, combinations)."""

    how: str
    known: bool | None = None
    question_named: DocReading | None = None
    brands_not_in_collection: list[BrandFact] = Field(default_factory=list)
    ingredients_not_in_collection: list[str] = Field(default_factory=list)
    combined_with: CombinedWith | None = None


class WordRead(Facts):
    """A misspelt routing word and the phrase word it was read as."""

    word: str
    read_as: str


class SectionPick(Facts):
    """A section and the phrase that named it."""

    section_key: str
    phrase: str


class SectionFacts(Facts):
    """``details.section_resolution``: the section, ``how`` (``flag``, ``phrase``,
    ``folded``, ``intent``, ``none``), the phrase, typos, every candidate and a joined
    second one; ``via``: what chose it (``profile_phrase``, ``learned_number``,
    ``learned_title``, ``intent``; :mod:`sectio.retrieve.learned`)."""

    section_key: str | None
    how: str
    phrase: str | None = None
    via: str | None = None
    typo: list[WordRead] = Field(default_factory=list)
    candidates: list[SectionPick] = Field(default_factory=list)
    also: SectionPick | None = None


# --- routes -----------------------------------------------------------------------
class SectionScore(Facts):
    """A section and its score (intent ranking)."""

    section_key: str
    score: float


class IntentReport(Facts):
    """``details.intent`` of the section-intent route: its choice and the top sections."""

    choice: str
    chosen: list[str]
    ranked: list[SectionScore]
    min_score: float
    margin: float


class SectionFallback(Facts):
    """The phrase's section is absent from the document (the next route answered)."""

    section_key: str | None
    why: str


class PooledSection(Facts):
    """A section pooled into a section answer: its best matched terms and score."""

    section_key: str
    matched_terms: int
    score: float


class Pooling(Facts):
    """``details.pooling``: whether other sections were pooled in, and which."""

    enabled: bool
    min_matched_terms: int | None = None
    query_terms: int | None = None
    sections: list[PooledSection] = Field(default_factory=list)
    why: str | None = None


class Ranking(Facts):
    """``details.ranking`` of a ranked route, and its final ``order`` (``rerank`` | ``hybrid``)."""

    candidates: int | None = None
    best_dense_score: float | None = None
    section_filter: str | None = None
    discarded_below_minimum_score: float | None = None
    lead_document: str | None = None
    chunks_in_document: int | None = None
    intent_weight: float | None = None
    order: str | None = None


class LookupDocument(Facts):
    """A document a reverse lookup found: its best chunk's score and matched chunks."""

    doc_id: str
    doc_title: str | None = None
    score: float
    matched_chunks: int
    rerank_score: float | None = None


class ChunkPool(Facts):
    """The lookup's chunk pool: its limit and what it kept."""

    limit: int
    kept: int


class RowLimit(Facts):
    """The docs plan's row limits and how many rows they left out."""

    limit: int
    per_document: int
    omitted: int


# --- finishing stages ---------------------------------------------------------------
class RerankStatus(Facts):
    """``details.rerank``: ``status`` (``off``, ``ok``, ``error``, ``timeout``,
    ``unavailable``, ``skipped``), the reranker, its time and ``failed`` (fail-open)."""

    reranker: str | None = None
    ms: float | None = None
    status: str
    timeout_s: float | None = None
    error: str | None = None
    failed: bool | None = None

    @property
    def did_fail(self) -> bool:
        """The reranker was asked for and did not answer (the order is the route's)."""
        return self.status in ("error", "timeout", "unavailable")


class Hydration(Facts):
    """``details.hydration``: the parents brought in, and the ones not found."""

    parents: list[str]
    missing: list[str]


class PackingReport(Facts):
    """``details.packing``: tokens used, the budget, chunks left out, ``top_k`` kept."""

    tokens: int
    budget: int
    omitted: int
    top_k: int | None = None


# --- answerability ------------------------------------------------------------------
class Signals(Facts):
    """``details.answerability.signals``: what the rules measured and which one decided."""

    route: str
    document_named: str | None
    terms: dict[str, float] | None = None
    unknown: list[str] | None = None
    weighed: list[str] | None = None
    coverage: float | None = None
    best_dense: float | None = None
    other_subjects: list[str] | None = None
    compound_name: list[str] | None = None
    guest_names: list[str] | None = None
    guest_cosines: dict[str, float] | None = None
    guest_names_far: list[str] | None = None
    guest_acronyms_at_best: list[str] | None = None
    guest_headings_at_best: list[str] | None = None
    guest_compounds_held: list[str] | None = None
    guest_identifiers: list[str] | None = None
    catalog_best: float | None = None
    heading_named: str | None = None
    joint_surprise: float | None = None
    rule: str | None = None


class Thresholds(Facts):
    """``details.answerability.thresholds``: the floors the signals were held against."""

    min_coverage: float
    dense_floor: float | None = None
    guest_df: int | None = None
    planner_floor: float | None = None
    guest_floor: float | None = None
    catalog_floor: float | None = None
    strong_floor: float | None = None
    catalog_strong_floor: float | None = None
    strong_coverage: float | None = None
    joint_surprise: float | None = None
    margin_scale: float | None = None
    rerank_floor: float | None = None
    #: On a weak-evidence abstention: the embedding model reads English only and the
    #: collection another language (its cosines, and so the floors, say little).
    model_mismatch: str | None = None


class ClosestDocument(Facts):
    """A document of the withheld candidates (what the corpus does cover)."""

    doc_id: str
    doc_title: str | None
    score: float


class VerdictReport(Facts):
    """``details.answerability``: the verdict, its signals, and what an abstained turn withheld."""

    answerable: bool
    reason: str | None
    signals: Signals
    thresholds: Thresholds
    uncovered: list[str] = Field(default_factory=list)
    closest_documents: list[ClosestDocument] = Field(default_factory=list)
    withheld_evidence_ids: list[str] = Field(default_factory=list)
    brands_not_in_collection: list[BrandFact] = Field(default_factory=list)


# --- the whole ----------------------------------------------------------------------
class ConversationReport(Facts):
    """``details.conversation``: the conversation's previous subject as read before the turn.

    ``previous_subject`` is ``found`` (``doc_id`` its document), ``none`` or
    ``unavailable`` (the store could not be read in time: ``answered_as`` is
    ``first_turn``).
    """

    previous_subject: str
    doc_id: str | None = None
    answered_as: str | None = None


class Diagnostics(Facts):
    """A retrieval result's ``details``: every stage's typed facts (see the module doc).

    Stages set fields (``turn.details.rerank = RerankStatus(...)``); a route's
    outcome carries a partial one that :meth:`merge` adds to the turn's.
    """

    doc_resolution: DocFacts | None = None
    section_resolution: SectionFacts | None = None
    intent: IntentReport | str | None = None
    section_fallback: SectionFallback | None = None
    section_filter_empty: str | None = None
    pooling: Pooling | None = None
    sections: list[str] | None = None
    documents: list[str] | list[LookupDocument] | None = None
    # the reverse lookup's facts
    section_key: str | None = None
    phrase_tokens: list[str] | None = None
    why: str | None = None
    content_terms: list[str] | None = None
    stage: str | None = None
    dense_hits: int | None = None
    dense_discarded: int | None = None
    dense_minimum_score: float | None = None
    matched_chunks: int | None = None
    chunk_pool: ChunkPool | None = None
    # the docs planner's facts (its route and plan models, serialised)
    query_intent: str | None = None
    route: dict[str, Any] | None = None
    plan: dict[str, Any] | None = None
    steps: list[dict[str, Any]] | None = None
    row_limit: RowLimit | None = None
    #: What the turn is about, as a caller states it (the operational store's
    #: ``subject_scope``; the resolved document when unset).
    subject_scope: str | None = None
    # the finishing stages
    ranking: Ranking | None = None
    rerank: RerankStatus | None = None
    hydration: Hydration | None = None
    packing: PackingReport | None = None
    answerability: VerdictReport | None = None
    conversation: ConversationReport | None = None

    def merge(self, other: Diagnostics) -> None:
        """Set here every field ``other`` set (``other`` wins)."""
        for key in other.model_fields_set:
            setattr(self, key, getattr(other, key))


# --- search ---------------------------------------------------------------------------
class FusionReliability(Facts):
    """``details.fusion_calibration`` of a hybrid search: how well each list found a chunk
    from a few of its own words (MRR), over how many pseudo-queries, and the dense
    weight's scale it set (:mod:`sectio.retrieve.calibration`)."""

    dense_mrr: float
    lexical_mrr: float
    pseudo_queries: int
    dense_scale: float


class SearchDetails(Facts):
    """A search result's ``details``: what ranked its hits (:mod:`sectio.retrieve.search`).

    Only the keys the search set are serialised, in this order:

    * ``dense_window_tokens``: the collection embeds dense windows of this many
      tokens (a hit's cosine is its best window's);
    * ``lexical_vectors``: the BM25 vectors a lexical search (or a hybrid one
      whose question has no BM25 token: ``[]``) read;
    * ``pool``, ``rrf_k``, ``fused``: a fusion's candidates per list, its
      constant and the lists fused, in order (``dense``, ``bm25``,
      ``bm25_folded``);
    * ``weights``, ``lexical_trust``: hybrid's weights per list, after the
      share of the lexical weight the question's lists kept;
    * ``lexical_only_hits``: hybrid hits outside the dense candidates;
    * ``fusion_calibration``: the calibration the hybrid weights come from;
    * ``layers``: the layers a docs collection's search read (``"all"``: every one).

    Example:
        >>> d = SearchDetails(pool=50, rrf_k=60, fused=["dense", "bm25"])
        >>> d.model_dump(), d["pool"], "weights" in d
        ({'pool': 50, 'rrf_k': 60, 'fused': ['dense', 'bm25']}, 50, False)
    """

    dense_window_tokens: int | None = None
    lexical_vectors: list[str] | None = None
    pool: int | None = None
    rrf_k: int | None = None
    fused: list[str] | None = None
    weights: list[float] | None = None
    lexical_trust: float | None = None
    lexical_only_hits: int | None = None
    fusion_calibration: FusionReliability | None = None
    layers: list[str] | str | None = None
