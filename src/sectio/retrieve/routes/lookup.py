"""Reverse lookup: a phrase (a condition, an indication) -> the documents that mention it.

Two stages, keyword first:

1. **Keyword.** Every prose chunk of the profile's ``reverse_lookup_section``
   is read (a complete scroll, tenant-scoped) and the normalized phrase must
   occur in it as a contiguous, word-boundary run of tokens: not a substring
   (false positives after diacritic stripping), not a token-subset (a nonsense
   phrase of filler words once matched real text that way). A phrase made only
   of filler words (stopwords of the collection's BM25 analyser, or words found
   in the lookup section of nearly every document, which cannot tell documents
   apart) finds nothing at all. The score rewards an
   early, concise mention: ``1 + 1/(1 + position) + 1/(1 + words/40)``.
2. **Dense fallback**, only when the keyword stage matched nothing: a dense
   search filtered to that section (prose only), whose hits below
   ``lookup_dense_minimum_score`` are discarded (dense search always returns
   neighbours; a made-up phrase would get "matches").

Both stages hand over a ranked **chunk pool** of at most
``indication_retrieval_limit`` chunks (the keyword stage's best-scored
chunks; the dense stage's nearest). The pool is grouped by document with the
**maximum** score (never a sum or a count: a document with more chunks does
not win by volume); the groups are then reranked by the configured reranker
when there is one (query: the phrase; text: each group's best chunk), which
fails open to the max-score order (``details.rerank``, as in free-form); the
documents are capped at ``indication_candidate_limit`` and each at
``indication_evidence_per_drug`` chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sectio.contract.diagnostics import ChunkPool, Diagnostics, LookupDocument, RerankStatus
from sectio.contract.result import Evidence
from sectio.index.collection import Collection
from sectio.index.filters import Eq, Where
from sectio.index.port import StoredPoint
from sectio.rerank import rerank_fail_open
from sectio.retrieve.reads import scroll_all
from sectio.retrieve.routes.base import Outcome, Turn
from sectio.retrieve.scan import prose_where
from sectio.retrieve.scope import ReadScope
from sectio.retrieve.text import Tokens, find_phrase, tokens

#: A word in the lookup section of at least this share of documents is a filler word here.
COMMON_WORD_SHARE = 0.8
#: ... provided there are at least this many documents to judge by.
COMMON_WORD_MIN_DOCS = 5


@dataclass
class LookupOutcome:
    """Evidence grouped by document (best document first) and what happened."""

    evidence: list[Evidence]
    documents: list[LookupDocument] = field(default_factory=list)
    details: Diagnostics = field(default_factory=Diagnostics)


def keyword_score(position: int, words: int) -> float:
    """``1 + 1/(1 + position) + 1/(1 + words/40)``: early and concise mentions rank first."""
    return 1.0 + 1.0 / (1.0 + position) + 1.0 / (1.0 + words / 40.0)


def content_terms(
    collection: Collection, phrase: Tokens, words_by_doc: dict[str, set[str]]
) -> list[str]:
    """Words of ``phrase`` that carry meaning: not BM25 stopwords, not in nearly every document."""
    terms = [w for w in phrase if collection.lexical.encode_query(w)]
    if len(words_by_doc) >= COMMON_WORD_MIN_DOCS:
        docs = list(words_by_doc.values())
        terms = [w for w in terms if sum(w in d for d in docs) / len(docs) < COMMON_WORD_SHARE]
    return terms


#: One document's chunk hits, best first.
Group = tuple[str, list[tuple[float, StoredPoint]]]


def chunk_pool(
    scored: list[tuple[float, StoredPoint]], limit: int
) -> list[tuple[float, StoredPoint]]:
    """The ``limit`` best-scored chunks (ties: document, then ``part_index``), best first."""
    ranked = sorted(
        scored,
        key=lambda sp: (
            -sp[0],
            str(sp[1].payload.get("doc_id")),
            int(sp[1].payload.get("part_index") or 0),
        ),
    )
    return ranked[: max(limit, 0)]


def group_chunks(scored: list[tuple[float, StoredPoint]]) -> list[Group]:
    """Chunk hits grouped by document: best document (max chunk score) first, then doc id."""
    groups: dict[str, list[tuple[float, StoredPoint]]] = {}
    for score, point in scored:
        groups.setdefault(str(point.payload.get("doc_id")), []).append((score, point))
    for hits in groups.values():
        hits.sort(key=lambda sp: (-sp[0], int(sp[1].payload.get("part_index") or 0)))
    return sorted(groups.items(), key=lambda kv: (-kv[1][0][0], kv[0]))


def rerank_groups(
    scope: ReadScope, phrase: str, groups: list[Group]
) -> tuple[list[Group], RerankStatus, list[float] | None]:
    """``groups`` reordered by the reranker on each group's best chunk (fail-open).

    Returns the groups, the rerank status (``status``, ``failed``) and the
    reranker's score per returned group (None unless it ran).
    """
    if not groups:
        return [], RerankStatus(status="skipped", failed=False), None
    reranker, error = scope.reranker()
    texts = [str(hits[0][1].payload.get("text") or "") for _, hits in groups]
    result = rerank_fail_open(
        reranker, phrase, groups, texts, timeout_s=scope.policy.rerank_timeout_s
    )
    status = (
        RerankStatus(status="unavailable", error=error) if error else result.status.model_copy()
    )
    status.failed = status.did_fail
    return list(result.items), status, result.scores


def cap_groups(
    groups: list[Group], max_docs: int, per_doc: int, rerank_scores: list[float] | None = None
) -> tuple[list[Evidence], list[LookupDocument]]:
    """The first ``max_docs`` groups as evidence (``per_doc`` chunks each) and a summary."""
    evidence: list[Evidence] = []
    documents: list[LookupDocument] = []
    for i, (doc_id, hits) in enumerate(groups[:max_docs]):
        title = hits[0][1].payload.get("doc_title")
        doc = LookupDocument(
            doc_id=doc_id,
            doc_title=None if title is None else str(title),
            score=round(hits[0][0], 6),
            matched_chunks=len(hits),
        )
        if rerank_scores is not None:
            doc.rerank_score = round(float(rerank_scores[i]), 6)
        documents.append(doc)
        for score, point in hits[:per_doc]:
            evidence.append(Evidence.from_payload(point.payload, score, rank=len(evidence) + 1))
    return evidence, documents


def reverse_lookup(scope: ReadScope, phrase: str, section_key: str | None = None) -> LookupOutcome:
    """Documents whose reverse-lookup section mentions ``phrase`` (see the module doc)."""
    collection, tenant, policy = scope.collection, scope.tenant, scope.policy
    section = section_key or collection.profile.reverse_lookup_section
    wanted = tokens(phrase)
    details = Diagnostics(section_key=section, phrase_tokens=list(wanted))
    if not section:
        details.why = "profile_has_no_lookup_section"
        return LookupOutcome([], details=details)
    if not wanted:
        details.why = "empty_phrase"
        return LookupOutcome([], details=details)
    where = prose_where(tenant, Eq("section_key", section))
    points = _section_points(scope, section, where)
    chunk_tokens = [tokens(str(p.payload.get("text") or "")) for p in points]
    words_by_doc: dict[str, set[str]] = {}
    for point, words in zip(points, chunk_tokens, strict=True):
        words_by_doc.setdefault(str(point.payload.get("doc_id")), set()).update(words)
    terms = content_terms(collection, wanted, words_by_doc)
    details.content_terms = terms
    if not terms:
        details.stage, details.why = "none", "no_content_terms"
        return LookupOutcome([], details=details)
    scored = _keyword_scored(points, chunk_tokens, wanted)
    stage = "keyword"
    if not scored:
        stage = "dense"
        scored = _dense_scored(scope, phrase, section, where, details)
    details.stage = stage
    details.matched_chunks = len(scored)
    pool = chunk_pool(scored, policy.indication_retrieval_limit)
    details.chunk_pool = ChunkPool(limit=policy.indication_retrieval_limit, kept=len(pool))
    groups, details.rerank, rerank_scores = rerank_groups(scope, phrase, group_chunks(pool))
    evidence, documents = cap_groups(
        groups,
        policy.indication_candidate_limit,
        policy.indication_evidence_per_drug,
        rerank_scores,
    )
    return LookupOutcome(evidence, documents, details)


def _section_points(scope: ReadScope, section: str, where: Where) -> list[StoredPoint]:
    """Every prose chunk of ``section`` in the tenant (a complete, guarded scroll, in scroll
    order), re-checked in Python."""
    return [
        p
        for p in scroll_all(
            scope.collection.index,
            scope.tenant,
            where,
            guard=scope.guard,
            page=scope.page_size,
            route="lookup",
        )
        if p.payload.get("section_key") == section
    ]


def _keyword_scored(
    points: list[StoredPoint], chunk_tokens: list[Tokens], wanted: Tokens
) -> list[tuple[float, StoredPoint]]:
    """The keyword stage: each chunk holding ``wanted`` as a contiguous run, with its
    :func:`keyword_score` (first occurrence), in ``points`` order."""
    scored: list[tuple[float, StoredPoint]] = []
    for point, words in zip(points, chunk_tokens, strict=True):
        found = find_phrase(words, wanted)
        if found:
            scored.append((keyword_score(found[0], len(words)), point))
    return scored


def _dense_scored(
    scope: ReadScope, phrase: str, section: str, where: Where, details: Diagnostics
) -> list[tuple[float, StoredPoint]]:
    """The dense fallback: the section's nearest chunks at or above
    ``lookup_dense_minimum_score``, nearest first; writes the ``dense_*`` facts."""
    collection, policy = scope.collection, scope.policy
    query_vector = scope.query_vector(phrase)
    hits = scope.guard.keep(
        collection.index.search_dense(query_vector, policy.indication_retrieval_limit, where),
        scope.tenant,
        "lookup",
    )
    kept = [h for h in hits if h.payload.get("section_key") == section]
    scored = [
        (float(h.score or 0.0), h)
        for h in kept
        if (h.score or 0.0) >= policy.lookup_dense_minimum_score
    ]
    details.dense_hits = len(kept)
    details.dense_discarded = len(kept) - len(scored)
    details.dense_minimum_score = policy.lookup_dense_minimum_score
    return scored


class LookupRoute:
    """``turn_type="lookup"``: the question is a phrase; the documents that mention it.

    Answers from the question alone (nothing is resolved for it); every other
    turn type declines it.
    """

    name = "lookup"
    needs_resolution = False

    def run(self, scope: ReadScope, turn: Turn) -> Outcome | None:
        if turn.request.turn_type != "lookup":
            return None
        found = reverse_lookup(scope, turn.question)
        details = found.details.model_copy()
        details.documents = found.documents
        return Outcome(self.name, found.evidence, details, section_key=found.details.section_key)
