"""Free-form routes: a question about a known document, and the no-document fallback.

About a known document: every prose chunk of it is read (a complete scroll),
ordered by hybrid relevance to the question inside the document (dense + BM25,
reciprocal rank fusion in the engine), then handed to the reranker if one is
configured (fail-open: its failure keeps the hybrid order). The caller keeps
the top ``rerank_top_k`` and packs them to the token budget.

No document resolved: a hybrid search over the tenant's whole collection
(optionally inside the section the question names), the same rerank and
packing after it. Dense search always returns neighbours, so a weak best
similarity (below the policy's ``minimum_score``) discards the hits.

Scores: the chunk's dense cosine similarity to the question (or the reranker's
score when it reordered the list), never the fusion value, which is a ranking
signal on another scale.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sectio.contract.result import Evidence
from sectio.embed.port import Embedder
from sectio.index.collection import Collection
from sectio.index.filters import Eq, Where
from sectio.index.port import StoredPoint, best_cosine
from sectio.retrieve.reads import TenantGuard
from sectio.retrieve.rerank import Reranker, rerank_fail_open
from sectio.retrieve.scan import book_order, prose_where, section_points

RRF_K = 60


@dataclass
class Ranked:
    """Candidates best first, and what the ranking did."""

    evidence: list[Evidence]
    details: dict[str, Any] = field(default_factory=dict)


def fused_search(
    collection: Collection,
    query_vector: Sequence[float] | np.ndarray,
    question: str,
    where: Where,
    tenant: str,
    *,
    pool: int,
    limit: int,
    guard: TenantGuard,
    route: str = "free_form",
) -> list[StoredPoint]:
    """Dense + BM25 reciprocal rank fusion inside the engine, tenant re-checked, with vectors.

    The order is deterministic: fusion value, then dense similarity, then point id.
    """
    sparse = collection.lexical.encode_query(question)
    points = collection.index.search_fused(
        query_vector, sparse, pool, limit, where, rrf_k=RRF_K, with_vectors=True
    )
    query = np.asarray(query_vector, dtype=np.float32)
    # Equal fusion values come back in no fixed order: break ties by similarity, then id.
    points.sort(key=lambda p: (-round(p.score or 0.0, 9), -best_cosine(query, p.dense), p.id))
    return guard.keep(points, tenant, route)


def _rerank(
    evidence: list[Evidence],
    question: str,
    reranker: Reranker | None,
    timeout_s: float,
) -> tuple[list[Evidence], dict[str, Any]]:
    result = rerank_fail_open(
        reranker, question, evidence, [e.text for e in evidence], timeout_s=timeout_s
    )
    items: list[Evidence] = list(result.items)
    if result.scores is not None:
        for item, score in zip(items, result.scores, strict=True):
            item.score = float(score)
    for i, item in enumerate(items):
        item.rank = i + 1
    return items, result.details


def rank_in_document(
    collection: Collection,
    embedder: Embedder,
    tenant: str,
    doc_id: str,
    question: str,
    *,
    guard: TenantGuard,
    reranker: Reranker | None = None,
    rerank_timeout_s: float = 10.0,
    page_size: int = 256,
) -> Ranked:
    """Every prose chunk of ``doc_id``, most relevant to ``question`` first."""
    points = section_points(
        collection.index, tenant, doc_id, None, page_size, guard=guard, route="free_form"
    )
    if not points:
        return Ranked([], {"chunks_in_document": 0, "rerank": {"status": "skipped"}})
    query = np.asarray(embedder.embed_query(question), dtype=np.float32)
    fused = fused_search(
        collection,
        query,
        question,
        prose_where(tenant, Eq("doc_id", doc_id)),
        tenant,
        pool=len(points),
        limit=len(points),
        guard=guard,
        route="free_form",
    )
    by_id = {str(p.payload.get("chunk_id")): p for p in points}
    ordered: list[Evidence] = []
    for p in fused:
        cid = str(p.payload.get("chunk_id"))
        if cid in by_id and p.payload.get("doc_id") == doc_id:
            ordered.append(
                Evidence.from_payload(by_id.pop(cid).payload, best_cosine(query, p.dense))
            )
    # Anything the engine did not rank (it should rank all) follows in book order.
    ordered.extend(
        book_order(
            [Evidence.from_payload(p.payload, 0.0) for p in by_id.values()], collection.profile
        )
    )
    ranked, rerank_details = _rerank(ordered, question, reranker, rerank_timeout_s)
    return Ranked(
        ranked,
        {
            "chunks_in_document": len(points),
            "order": "rerank" if rerank_details.get("status") == "ok" else "hybrid",
            "rerank": rerank_details,
        },
    )


def search_collection(
    collection: Collection,
    embedder: Embedder,
    tenant: str,
    question: str,
    *,
    guard: TenantGuard,
    section_key: str | None = None,
    candidates: int = 24,
    pool: int = 50,
    minimum_score: float = 0.0,
    reranker: Reranker | None = None,
    rerank_timeout_s: float = 10.0,
) -> Ranked:
    """Hybrid search over the tenant's prose chunks (inside ``section_key`` if given)."""
    conditions = [Eq("section_key", section_key)] if section_key else []
    query = np.asarray(embedder.embed_query(question), dtype=np.float32)
    points = fused_search(
        collection,
        query,
        question,
        prose_where(tenant, *conditions),
        tenant,
        pool=max(pool, candidates),
        limit=candidates,
        guard=guard,
        route="fallback_search",
    )
    if section_key:
        points = [p for p in points if p.payload.get("section_key") == section_key]
    evidence = [Evidence.from_payload(p.payload, best_cosine(query, p.dense)) for p in points]
    best = max((e.score for e in evidence), default=0.0)
    details: dict[str, Any] = {"candidates": len(evidence), "best_dense_score": round(best, 4)}
    if section_key:
        details["section_filter"] = section_key
    if evidence and best < minimum_score:
        details["discarded_below_minimum_score"] = minimum_score
        return Ranked([], {**details, "rerank": {"status": "skipped"}})
    ranked, rerank_details = _rerank(evidence, question, reranker, rerank_timeout_s)
    return Ranked(ranked, {**details, "rerank": rerank_details})
