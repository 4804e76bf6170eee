"""Fallback route: no document resolved, so a hybrid search over the tenant's collection.

Dense + BM25 reciprocal rank fusion over the tenant's prose chunks (inside the
section the question names, if any; when that section filter finds nothing
the search runs once more without it, and ``details.section_filter_empty``
says so). Dense search always returns neighbours, so a weak best similarity
(below the policy's ``minimum_score``) discards every hit. The pipeline then
reranks, hydrates, keeps the top ``evidence_limit`` (the seed's hydrated
similarity search; a caller's ``top_k`` wins) and packs.

Which document leads, when the section filter ran: a question that names no
document often says which one it means in words its section does not hold
("the thyroxine dose": the word is in levothyroxine's description, not in
its dosage section; "will this antibiotic affect my birth control"). So the
kept evidence (the top ``evidence_limit``, the same chunks as without this
step) is led by the chunks of the **lead document**: of the documents among
them, the one whose chunk is nearest the question in the whole collection
(one dense query over the tenant's prose, :data:`LEAD_DEPTH` deep);
``details.ranking.lead_document`` names it. The chunks kept stay the same,
so answerability judges the same evidence; only their order changes (a
configured reranker orders them again afterwards).

A definition question ("what is a deployer?") then gets the kept chunk that defines its
term first (:mod:`sectio.retrieve.definitions`), as the free-form route's does.

Scores: dense cosine similarity (best window's), never the fusion value.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sectio.contract.diagnostics import Diagnostics, Ranking
from sectio.contract.result import Evidence
from sectio.index.filters import Eq
from sectio.index.port import best_cosine
from sectio.retrieve.definitions import definition_first
from sectio.retrieve.operative import operative_first
from sectio.retrieve.routes.base import Outcome, Turn
from sectio.retrieve.scan import fused_points, prose_where
from sectio.retrieve.scope import ReadScope

DISCARDED = "discarded_below_minimum_score"
#: How many of the question's nearest chunks in the whole collection pick the lead document.
LEAD_DEPTH = 20


def search_collection(
    scope: ReadScope,
    question: str,
    query_vector: npt.NDArray[np.float32],
    *,
    section_key: str | None = None,
    candidates: int = 24,
    pool: int = 50,
    minimum_score: float = 0.0,
) -> tuple[list[Evidence], Ranking]:
    """Hybrid candidates over the tenant's prose (inside ``section_key`` if given), and the facts.

    ``query_vector`` is the question's dense vector (:meth:`ReadScope.query_vector`). Every
    candidate is dropped when the best dense similarity is under ``minimum_score``
    (``details[DISCARDED]`` then names the floor).
    """
    conditions = [Eq("section_key", section_key)] if section_key else []
    points = fused_points(
        scope,
        query_vector,
        question,
        prose_where(scope.tenant, *conditions),
        pool=max(pool, candidates),
        limit=candidates,
        route="fallback_search",
    )
    if section_key:
        points = [p for p in points if p.payload.get("section_key") == section_key]
    evidence = [
        Evidence.from_payload(p.payload, best_cosine(query_vector, p.dense)) for p in points
    ]
    best = max((e.score for e in evidence), default=0.0)
    details = Ranking(candidates=len(evidence), best_dense_score=round(best, 4))
    if section_key:
        details.section_filter = section_key
    if evidence and best < minimum_score:
        details.discarded_below_minimum_score = minimum_score
        return [], details
    return evidence, details


class FallbackRoute:
    """Hybrid search over the whole collection (always applies: the last route)."""

    name = "fallback_search"
    needs_resolution = True

    def run(self, scope: ReadScope, turn: Turn) -> Outcome:
        section = turn.resolved.section_key
        keep = turn.request.keep(scope.policy.rerank_top_k)
        candidates, pool = max(keep * 4, keep), max(scope.policy.candidate_limit * 10, keep * 4)
        query_vector = scope.query_vector(turn.question)

        def search(section_key: str | None) -> tuple[list[Evidence], Ranking]:
            return search_collection(
                scope,
                turn.question,
                query_vector,
                section_key=section_key,
                candidates=candidates,
                pool=pool,
                minimum_score=scope.policy.minimum_score,
            )

        evidence, facts = search(section)
        if section and not evidence and DISCARDED not in facts:
            turn.details.section_filter_empty = section
            evidence, facts = search(None)
        limit = turn.request.keep(scope.policy.evidence_limit)
        if facts.section_filter and evidence:
            evidence = lead_with_nearest_document(scope, query_vector, evidence, limit, facts)
        evidence = definition_first(turn.question, operative_first(evidence, limit))
        details = Diagnostics(ranking=facts)
        return Outcome(self.name, evidence, details, finish="rank", keep=limit)


def lead_with_nearest_document(
    scope: ReadScope,
    query_vector: npt.NDArray[np.float32],
    evidence: list[Evidence],
    limit: int,
    facts: Ranking,
) -> list[Evidence]:
    """``evidence`` with its first ``limit`` reordered: the lead document's chunks first.

    The lead document is, of the documents among the first ``limit``, the one
    whose chunk comes first among the :data:`LEAD_DEPTH` chunks of the tenant's whole
    prose (any section) nearest ``query_vector``, the question's. The order is otherwise
    kept (stable), and so is every chunk past ``limit``; with no such
    document nothing changes. Records ``facts.lead_document``.
    """
    kept = evidence[:limit]
    among = {e.doc_id for e in kept}
    if len(among) < 2:
        return evidence
    nearest = scope.index.search_dense(query_vector, LEAD_DEPTH, prose_where(scope.tenant))
    for point in scope.guard.keep(nearest, scope.tenant, "fallback_search"):
        lead = point.payload.get("doc_id")
        if lead in among:
            facts.lead_document = str(lead)
            return sorted(kept, key=lambda e: e.doc_id != lead) + evidence[limit:]
    return evidence
