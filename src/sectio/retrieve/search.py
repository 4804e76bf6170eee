"""Search over one collection: dense for now (hybrid and lexical come with the search work).

Tenant scoping: every query carries the tenant filter into the engine, and
every returned point is checked again in Python.
"""

from __future__ import annotations

import logging
import time

from sectio.contract.result import Evidence, SearchResult
from sectio.embed.port import Embedder
from sectio.index.collection import Collection
from sectio.index.filters import tenant_where
from sectio.index.port import StoredPoint

log = logging.getLogger(__name__)

TOP_K_MIN, TOP_K_MAX = 1, 50


def clamp_top_k(requested: int) -> tuple[int, bool]:
    """``requested`` clamped to [1, 50], and whether it was changed."""
    applied = min(max(requested, TOP_K_MIN), TOP_K_MAX)
    return applied, applied != requested


def keep_tenant(points: list[StoredPoint], tenant: str) -> list[StoredPoint]:
    """Second tenant check, in Python: drop (and log) any point of another tenant."""
    kept = [p for p in points if p.payload.get("tenant", "default") == tenant]
    dropped = len(points) - len(kept)
    if dropped:
        log.error("tenant check dropped %d point(s) of another tenant (caller %r)", dropped, tenant)
    return kept


def search_dense(
    collection: Collection, embedder: Embedder, query: str, top_k: int, tenant: str
) -> SearchResult:
    """Dense top-k over ``collection`` for ``tenant``."""
    t0 = time.perf_counter()
    applied, clamped = clamp_top_k(top_k)
    vector = embedder.embed_query(query)
    t1 = time.perf_counter()
    points = collection.index.search_dense(vector, applied, tenant_where(tenant))
    points = keep_tenant(points, tenant)
    t2 = time.perf_counter()
    hits = [
        Evidence.from_payload(p.payload, p.score or 0.0, rank=i + 1) for i, p in enumerate(points)
    ]
    return SearchResult(
        query=query,
        mode="dense",
        collection=collection.name,
        tenant=tenant,
        top_k_requested=top_k,
        top_k=applied,
        clamped=clamped,
        hits=hits,
        timings_ms={"embed": round((t1 - t0) * 1000, 3), "engine": round((t2 - t1) * 1000, 3)},
    )
