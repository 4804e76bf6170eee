"""Search over one collection: ``hybrid`` (default), ``dense`` or ``lexical``.

* **dense**: nearest chunks by the dense vector (cosine).
* **lexical**: real BM25 (Qdrant's ``Bm25`` sparse vectors with the IDF
  modifier, corpus ``avg_len`` from the manifest). A collection built with
  ``fold_diacritics`` has an exact and an accent-folded BM25 vector; the two
  are fused (reciprocal rank fusion), so "chong chi dinh" finds "chống chỉ
  định" and an exact match still ranks first.
* **hybrid**: dense and BM25 candidates, each widened to a pool larger than
  ``top_k`` (:meth:`FusionParams.pool`), fused with weighted reciprocal rank
  fusion (Qdrant's formula; ``rrf_k`` and weights from settings), cut to ``top_k``.
  A question's BM25 weight shrinks when the dense list ranks BM25's first pick
  far below its own first (:meth:`FusionParams.lexical_trust`); ``details``
  shows the ``weights`` used and the ``lexical_trust`` share kept.

Fusion runs here, not in the engine: each list is one engine query (ids and
scores, ``pool`` deep), its equal scores are ranked by point id
(:func:`~sectio.retrieve.fusion.settled`), the lists are fused
(:func:`~sectio.retrieve.fusion.fuse`) and the top ``n`` payloads read by id.
The engine's own fusion query ranked tied cosines (common with int8 vectors)
differently from call to call; this ranking is the same on every call, and
the lists a hit's ``scores`` show are the very lists that were fused.

Scores: every hit says what ranked it. ``scores`` holds, by list name, the
hit's place (:class:`~sectio.contract.result.ListScore`: ``rank`` from 1 and
that list's ``score``) in every list the search ran: ``dense`` (cosine
similarity; in a collection with dense windows, the best window's, and
``details`` names ``dense_window_tokens``), ``bm25`` and ``bm25_folded`` (BM25
scores), and, when lists were fused, ``fusion`` (the reciprocal rank fusion
value, a ranking signal on its own scale, never a confidence; its rank is the
hit's ``rank``, the position). A list the hit was not among the candidates of
(``pool`` deep) is ``None``: a BM25-only hybrid hit has ``dense: None``.
``score`` stays the dense cosine, ``0.0`` without one (a BM25-only hit; every
lexical-mode hit).

``top_k`` is clamped to [1, 50]; the result reports the requested and applied
values and ``clamped``. Tenant scoping: the tenant condition is part of every
engine query, and every returned point is checked again in Python by a
:class:`~sectio.retrieve.reads.TenantGuard`.

Example:
    >>> FusionParams(pool_factor=5, pool_min=50).pool(20)
    100
    >>> clamp_top_k(80)
    (50, True)
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from sectio.contract.diagnostics import SearchDetails
from sectio.contract.request import SEARCH_MODES, SearchMode
from sectio.contract.result import Evidence, ListScore, SearchResult
from sectio.embed.port import Embedder
from sectio.errors import ConfigError
from sectio.index.collection import Collection
from sectio.index.filters import Where
from sectio.index.port import (
    BM25,
    BM25_FOLDED,
    DENSE,
    ListRank,
    SparseVec,
    StoredPoint,
    VectorIndex,
    list_ranks,
)
from sectio.retrieve.fusion import FusionParams, fuse, settled
from sectio.retrieve.reads import TenantGuard, keep_tenant, scoped
from sectio.retrieve.search_filters import Filters, build_where

Mode = SearchMode
MODES: tuple[str, ...] = SEARCH_MODES

#: One ranked list's places (rank from 1, the list's score), by point id.
Ranks = dict[str, ListRank]

TOP_K_MIN, TOP_K_MAX = 1, 50
#: The most an internal caller (evaluation) may ask for past the public clamp.
LIMIT_MAX = 1000


def clamp_top_k(requested: int) -> tuple[int, bool]:
    """``requested`` clamped to [1, 50], and whether it was changed."""
    applied = min(max(requested, TOP_K_MIN), TOP_K_MAX)
    return applied, applied != requested


def search(
    collection: Collection,
    embedder: Embedder,
    query: str,
    *,
    tenant: str,
    top_k: int = 10,
    mode: str = "hybrid",
    filters: Filters | None = None,
    params: FusionParams | None = None,
    guard: TenantGuard | None = None,
    limit: int | None = None,
) -> SearchResult:
    """Search ``collection`` as ``tenant``; see the module docstring for modes and scores.

    ``limit`` is for internal callers only (evaluation at depth 100): it
    replaces the clamped ``top_k`` as the number of hits, up to
    :data:`LIMIT_MAX`. The public API never passes it.

    Raises:
        ConfigError: an unknown mode.
        UnknownFilter: an unknown filter key or an empty value.
    """
    if mode not in MODES:
        raise ConfigError(f"unknown search mode {mode!r}; use one of: {', '.join(MODES)}")
    params = (params or FusionParams()).for_query(query)
    guard = guard or TenantGuard()
    applied, clamped = clamp_top_k(top_k)
    n = applied if limit is None else min(max(int(limit), 1), LIMIT_MAX)
    where = scoped(tenant, build_where(filters))
    t0 = time.perf_counter()
    qvec: npt.NDArray[np.float32] | None = None
    sparse: dict[str, SparseVec] = {}
    if mode in ("hybrid", "dense"):
        qvec = np.asarray(embedder.embed_query(query), dtype=np.float32)
    t1 = time.perf_counter()
    if mode in ("hybrid", "lexical"):
        sparse = lexical_query(collection, query)
    t2 = time.perf_counter()
    details = _details(collection, mode)
    points, lists = _ranked(collection.index, mode, qvec, sparse, n, where, params, details)
    points = guard.keep(points, tenant, "search")
    dense = lists.get(DENSE, {})
    if mode == "hybrid" and sparse:
        details.lexical_only_hits = sum(1 for p in points if p.id not in dense)
    t3 = time.perf_counter()
    hits = [_hit(p, i + 1, dense, lists) for i, p in enumerate(points)]
    return SearchResult(
        query=query,
        mode=mode,
        collection=collection.name,
        tenant=tenant,
        top_k_requested=top_k,
        top_k=n,
        clamped=clamped if limit is None else False,
        hits=hits,
        details=details,
        timings_ms=_timings(t0, t1, t2, t3),
    )


def _details(collection: Collection, mode: str) -> SearchDetails:
    """The details a search starts with: the dense window size, where hits score by window."""
    details = SearchDetails()
    if mode != "lexical" and collection.manifest.dense_window_tokens:
        # a hit's score is then its best window's cosine: say so with the result
        details.dense_window_tokens = collection.manifest.dense_window_tokens
    return details


def _timings(t0: float, t1: float, t2: float, t3: float) -> dict[str, float]:
    """Milliseconds embedding, BM25 encoding, in the engine, and for the whole call."""
    return {
        "embed": round((t1 - t0) * 1000, 3),
        "lexical_encode": round((t2 - t1) * 1000, 3),
        "engine": round((t3 - t2) * 1000, 3),
        "total": round((time.perf_counter() - t0) * 1000, 3),
    }


def _hit(point: StoredPoint, rank: int, dense: Ranks, lists: dict[str, Ranks]) -> Evidence:
    """One hit: ``score`` its cosine (0.0 without one), ``scores`` its place in each list."""
    place = dense.get(point.id)
    hit = Evidence.from_payload(point.payload, place.score if place else 0.0, rank=rank)
    scores: dict[str, ListScore | None] = {}
    if len(lists) > 1:  # the lists were fused: the fused list ranked the hits
        scores["fusion"] = ListScore(rank=rank, score=float(point.score or 0.0))
    for name, ranks in lists.items():
        found = ranks.get(point.id)
        scores[name] = ListScore(rank=found.rank, score=found.score) if found else None
    hit.scores = scores
    return hit


def _ranked(
    index: VectorIndex,
    mode: str,
    qvec: npt.NDArray[np.float32] | None,
    sparse: dict[str, SparseVec],
    n: int,
    where: Where,
    params: FusionParams,
    details: SearchDetails,
) -> tuple[list[StoredPoint], dict[str, Ranks]]:
    """The engine's ranking for ``mode``, best first, and every list it was made from:
    each list's places by point id (``dense``, then the BM25 vectors, in fusion order).

    Hybrid without BM25 tokens (all stopwords) is the dense list. Records the lexical
    vectors used in ``details``.
    """
    if mode == "lexical":
        details.lexical_vectors = list(sparse)
        return _lexical(index, sparse, n, where, params, details)
    assert qvec is not None
    if mode == "dense" or not sparse:
        if mode != "dense":
            details.lexical_vectors = []
        points = _tie_break(index.search_dense(qvec, n, where), {})
        return points, {DENSE: list_ranks(points)}
    return _hybrid(index, qvec, sparse, n, where, params, details)


def lexical_query(collection: Collection, query: str) -> dict[str, SparseVec]:
    """The query's BM25 vectors, one per variant the collection has.

    A query written without diacritics ("chong chi dinh") encodes to the same
    tokens exactly and folded; its exact vector would then only match the few
    documents that are themselves unaccented, a biased list. Such a query
    keeps only the folded vector (with the whole lexical weight).
    """
    sparse = collection.lexical.encode_query(query)
    exact, folded = sparse.get(BM25), sparse.get(BM25_FOLDED)
    if exact is not None and folded is not None and exact.indices == folded.indices:
        return {BM25_FOLDED: folded}
    return sparse


def _lexical(
    index: VectorIndex,
    sparse: dict[str, SparseVec],
    n: int,
    where: Where,
    params: FusionParams,
    details: SearchDetails,
) -> tuple[list[StoredPoint], dict[str, Ranks]]:
    """BM25 top-n and its lists; exact and accent-folded BM25 (when both exist)
    fused (:func:`lexical_top`)."""
    if not sparse:  # every query token was a stopword (or the query was empty)
        return [], {}
    if len(sparse) == 1:
        points = lexical_top(index, sparse, n, where, params)
        return points, {next(iter(sparse)): settled(list_ranks(points))}
    pool = params.pool(n)
    details.pool, details.rrf_k, details.fused = pool, params.rrf_k, list(sparse)
    lists = _sparse_lists(index, sparse, pool, where)
    return _fused_top(index, lists, [1.0] * len(lists), params.rrf_k, n), lists


def lexical_top(
    index: VectorIndex,
    sparse: dict[str, SparseVec],
    n: int,
    where: Where,
    params: FusionParams,
) -> list[StoredPoint]:
    """BM25's top ``n`` for the query's vectors, best first (empty without any).

    One vector is searched as it is, equal scores ordered by point id; exact
    and accent-folded BM25 are fused with equal weights (``params.pool(n)``
    candidates each, ``params.rrf_k``; :func:`~sectio.retrieve.fusion.fuse`).
    The one lexical ranking of ``search`` and of the fusion calibration
    (:mod:`sectio.retrieve.calibration`).
    """
    if not sparse:
        return []
    if len(sparse) == 1:
        name, vec = next(iter(sparse.items()))
        return _tie_break(index.search_sparse(name, vec, n, where), {})
    lists = _sparse_lists(index, sparse, params.pool(n), where)
    return _fused_top(index, lists, [1.0] * len(lists), params.rrf_k, n)


def _sparse_lists(
    index: VectorIndex, sparse: dict[str, SparseVec], pool: int, where: Where
) -> dict[str, Ranks]:
    """Each BM25 list a fusion takes (``pool`` candidates under ``where``), ids and
    scores only, settled (equal scores by point id)."""
    return {
        name: settled(list_ranks(index.search_sparse(name, vec, pool, where, with_payload=False)))
        for name, vec in sparse.items()
    }


def _fused_top(
    index: VectorIndex,
    lists: dict[str, Ranks],
    weights: list[float],
    rrf_k: int,
    n: int,
    with_vectors: bool = False,
) -> list[StoredPoint]:
    """The top ``n`` of ``lists`` fused (:func:`~sectio.retrieve.fusion.fuse`), with
    their payloads (one retrieve by id); each point's ``score`` is its fusion value."""
    top = fuse(list(lists.values()), weights, rrf_k)[:n]
    found = {p.id: p for p in index.retrieve([pid for pid, _ in top], with_vectors=with_vectors)}
    return [replace(found[pid], score=value) for pid, value in top if pid in found]


def fused_top(
    index: VectorIndex,
    qvec: npt.NDArray[np.float32],
    sparse: dict[str, SparseVec],
    pool: int,
    n: int,
    where: Where,
    params: FusionParams,
    *,
    with_vectors: bool = False,
    details: SearchDetails | None = None,
) -> tuple[list[StoredPoint], dict[str, Ranks]]:
    """Hybrid's fused top ``n`` (best first, ``score`` the fusion value) and the lists
    it fused: ``dense``, then each BM25 list, ``pool`` candidates each under ``where``.

    Each list is one engine query, ids and scores only (one graph traversal for
    the dense list); the lists are settled (equal scores ranked by point id) and
    fused here with weighted reciprocal rank fusion, Qdrant's formula
    (``params.rrf_k``; the weights after the question's lexical trust,
    :meth:`~sectio.retrieve.fusion.FusionParams.query_weights`, written into
    ``details`` when given); the top ``n`` points are then read by id (with
    their vectors when asked). The same question ranks the same way
    on every call. Used by ``search``, free-form and fallback reads and the
    docs planner: one fusion for every route.
    """
    dense = settled(list_ranks(index.search_dense(qvec, pool, where, with_payload=False)))
    lists = {DENSE: dense, **_sparse_lists(index, sparse, pool, where)}
    weights, share = params.query_weights(lists)
    if details is not None:
        details.weights, details.lexical_trust = [round(w, 4) for w in weights], share
    return _fused_top(index, lists, weights, params.rrf_k, n, with_vectors), lists


def _hybrid(
    index: VectorIndex,
    qvec: npt.NDArray[np.float32],
    sparse: dict[str, SparseVec],
    n: int,
    where: Where,
    params: FusionParams,
    details: SearchDetails,
) -> tuple[list[StoredPoint], dict[str, Ranks]]:
    """The fused top-n and the lists it fused (:func:`fused_top`, ``params.pool(n)``
    deep). A fused hit outside the dense candidates is a lexical-only hit."""
    pool = params.pool(n)
    details.pool, details.rrf_k, details.fused = pool, params.rrf_k, ["dense", *sparse]
    return fused_top(index, qvec, sparse, pool, n, where, params, details=details)


def _tie_break(points: list[StoredPoint], dense: Ranks) -> list[StoredPoint]:
    """Equal fusion values come back in no fixed order: break ties by cosine, then point id."""
    return sorted(points, key=lambda p: (-(p.score or 0.0), -_cosine(dense, p.id), p.id))


def _cosine(dense: Ranks, point_id: str) -> float:
    place = dense.get(point_id)
    return place.score if place else 0.0


__all__ = [
    "MODES",
    "FusionParams",
    "Mode",
    "clamp_top_k",
    "fused_top",
    "keep_tenant",
    "lexical_query",
    "lexical_top",
    "search",
]
