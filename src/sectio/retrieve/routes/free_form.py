"""Free-form route: a question about a known document, no section named.

Every prose chunk of the document is read (a complete scroll) and ordered by
hybrid relevance to the question inside the document (dense + BM25,
reciprocal rank fusion in the engine). The pipeline then reranks (if a
reranker is configured; fail-open), hydrates parents, keeps the top
``top_k`` (the policy's ``rerank_top_k``) and packs them to the token budget.

The first chunk of each section (its lowest ``part_index``) opens with the
document's display name in a marker (``【Metformin】 ...``), as in an
overview (seed 000: the document's chunks are read with the marker, then
reranked), so a generator sees which document each part belongs to and where
a section begins, whatever order relevance puts the chunks in.

Scores: the chunk's dense cosine similarity to the question (its best
window's), never the fusion value, which is a ranking signal on another scale.

Sections count too: when the section-intent step read the question
(``turn.intent``: the profile's example questions), the ranked chunks are
ordered by their cosine plus ``[intent] rank_weight`` times their section's
intent score (stable: fusion order breaks ties), so a document's chunks from
the section the question is most like come first even when no section was
chosen. ``details.ranking.intent_weight`` says when this ran. A definition question
("what is a Contribution in the Apache license?") gets the chunk that defines its term
first (:mod:`sectio.retrieve.definitions`).
"""

from __future__ import annotations

from sectio.contract.diagnostics import Diagnostics, Ranking
from sectio.contract.result import Evidence
from sectio.index.filters import Eq
from sectio.index.port import best_cosine
from sectio.retrieve.definitions import definition_first
from sectio.retrieve.intent import IntentReading
from sectio.retrieve.operative import operative_first
from sectio.retrieve.routes.base import Outcome, Turn
from sectio.retrieve.scan import (
    book_order,
    fused_points,
    mark_section_starts,
    prose_where,
    section_points,
)
from sectio.retrieve.scope import ReadScope


def rank_in_document(
    scope: ReadScope,
    doc_id: str,
    question: str,
    intent: IntentReading | None = None,
) -> tuple[list[Evidence], Ranking]:
    """Every prose chunk of ``doc_id``, most relevant to ``question`` first, and the facts.

    With an ``intent`` reading, relevance is the cosine plus the profile's
    ``rank_weight`` times the section's intent score (see the module doc).
    Chunks the engine did not rank (it ranks all) follow in book order.
    """
    points = section_points(scope, doc_id, None, route="free_form")
    if not points:
        return [], Ranking(chunks_in_document=0)
    query_vector = scope.query_vector(question)
    fused = fused_points(
        scope,
        query_vector,
        question,
        prose_where(scope.tenant, Eq("doc_id", doc_id)),
        pool=len(points),
        limit=len(points),
        route="free_form",
    )
    by_id = {str(p.payload.get("chunk_id")): p for p in points}
    ordered: list[Evidence] = []
    for p in fused:
        cid = str(p.payload.get("chunk_id"))
        if cid in by_id and p.payload.get("doc_id") == doc_id:
            cosine = best_cosine(query_vector, p.dense)
            ordered.append(Evidence.from_payload(by_id.pop(cid).payload, cosine))
    facts = Ranking(chunks_in_document=len(points))
    weight = scope.profile.intent.rank_weight
    if intent is not None and intent.ranked and weight > 0:
        ordered = by_section_intent(ordered, dict(intent.ranked), weight)
        facts.intent_weight = weight
    ordered.extend(
        book_order([Evidence.from_payload(p.payload, 0.0) for p in by_id.values()], scope.profile)
    )
    return ordered, facts


def by_section_intent(
    ranked: list[Evidence], section_scores: dict[str, float], weight: float
) -> list[Evidence]:
    """``ranked`` by score + ``weight`` x its section's intent score (stable; 0 when unscored).

    Example:
        >>> from sectio.contract.result import Evidence
        >>> def ev(cid: str, key: str, score: float) -> Evidence:
        ...     return Evidence(
        ...         chunk_id=cid, doc_id="d", section_key=key, part_index=0, text=cid, score=score
        ...     )
        >>> ranked = [ev("a", "x", 0.5), ev("b", "y", 0.4)]
        >>> [e.chunk_id for e in by_section_intent(ranked, {"y": 0.6, "x": 0.1}, 0.5)]
        ['b', 'a']
    """
    return sorted(
        ranked, key=lambda e: -(e.score + weight * section_scores.get(e.section_key, 0.0))
    )


class FreeFormRoute:
    """A known document without a section: its chunks by relevance (finished as ranked)."""

    name = "free_form"
    needs_resolution = True

    def run(self, scope: ReadScope, turn: Turn) -> Outcome | None:
        doc_id = turn.resolved.doc_id
        if not doc_id:
            return None
        evidence, facts = rank_in_document(scope, doc_id, turn.question, turn.intent)
        kept = turn.request.keep(scope.policy.rerank_top_k)
        evidence = definition_first(turn.question, operative_first(evidence, kept))
        mark_section_starts(evidence, turn.resolved.display_name or doc_id)
        details = Diagnostics(ranking=facts)
        return Outcome(self.name, evidence, details, finish="rank", doc_id=doc_id)
