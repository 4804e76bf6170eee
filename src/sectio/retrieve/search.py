"""Search over one collection: ``hybrid`` (default), ``dense`` or ``lexical``.

* **dense**: nearest chunks by the dense vector (cosine).
* **lexical**: real BM25 (Qdrant's ``Bm25`` sparse vectors with the IDF
  modifier, corpus ``avg_len`` from the manifest). A collection built with
  ``fold_diacritics`` has an exact and an accent-folded BM25 vector; the two
  are fused inside the engine (reciprocal rank fusion), so "chong chi dinh"
  finds "chống chỉ định" and an exact match still ranks first.
* **hybrid**: dense and BM25 candidates, each widened to a pool larger than
  ``top_k`` (:meth:`FusionParams.pool`), fused inside Qdrant with reciprocal
  rank fusion (``rrf_k`` from settings; weights optional), cut to ``top_k``.

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

Cost: Qdrant's fusion query returns the fused list only, not its prefetch
lists. The dense list is known already (see :func:`_hybrid`); each BM25 list
is asked once more, ids and scores only, ``pool`` deep: one extra sparse
query per BM25 vector in hybrid search (and in lexical search that fuses an
exact and a folded vector): about one BM25 top-``pool`` search, ~0.3 ms at 20k
chunks (``benchmarks/search.py --skip-scifact --n 20000``, two alternated runs
before/after, 2026-12-01, 2 cores at load 12-13: hybrid engine p50 1.61 -> 1.91
and 1.21 -> 1.53 ms; BM25 alone 0.25-0.28 ms).

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

import numpy as np
import numpy.typing as npt

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
    DenseScoredFusion,
    ListRank,
    SparseVec,
    StoredPoint,
    VectorIndex,
    list_ranks,
)
from sectio.retrieve.fusion import FusionParams
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
    params = params or FusionParams()
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
    details: dict[str, object] = {}
    if mode != "lexical" and collection.manifest.dense_window_tokens:
        # a hit's score is then its best window's cosine: say so with the result
        details["dense_window_tokens"] = collection.manifest.dense_window_tokens
    points, lists = _ranked(collection.index, mode, qvec, sparse, n, where, params, details)
    points = guard.keep(points, tenant, "search")
    dense = lists.get(DENSE, {})
    if mode == "hybrid" and sparse:
        details["lexical_only_hits"] = sum(1 for p in points if p.id not in dense)
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
        timings_ms={
            "embed": round((t1 - t0) * 1000, 3),
            "lexical_encode": round((t2 - t1) * 1000, 3),
            "engine": round((t3 - t2) * 1000, 3),
            "total": round((time.perf_counter() - t0) * 1000, 3),
        },
    )


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
    details: dict[str, object],
) -> tuple[list[StoredPoint], dict[str, Ranks]]:
    """The engine's ranking for ``mode``, best first, and every list it was made from:
    each list's places by point id (``dense``, then the BM25 vectors, in fusion order).

    Hybrid without BM25 tokens (all stopwords) is the dense list. Records the lexical
    vectors used in ``details``.
    """
    if mode == "lexical":
        details["lexical_vectors"] = list(sparse)
        return _lexical(index, sparse, n, where, params, details)
    assert qvec is not None
    if mode == "dense" or not sparse:
        if mode != "dense":
            details["lexical_vectors"] = []
        points = index.search_dense(qvec, n, where)
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
    details: dict[str, object],
) -> tuple[list[StoredPoint], dict[str, Ranks]]:
    """BM25 top-n and its lists; exact and accent-folded BM25 (when both exist) fused
    inside the engine, each list then ranked once more, ids only (see the module doc)."""
    if not sparse:  # every query token was a stopword (or the query was empty)
        return [], {}
    points = lexical_top(index, sparse, n, where, params)
    if len(sparse) == 1:
        return points, {next(iter(sparse)): list_ranks(points)}
    pool = params.pool(n)
    details.update({"pool": pool, "rrf_k": params.rrf_k, "fused": list(sparse)})
    return points, _sparse_lists(index, sparse, pool, where)


def lexical_top(
    index: VectorIndex,
    sparse: dict[str, SparseVec],
    n: int,
    where: Where,
    params: FusionParams,
) -> list[StoredPoint]:
    """BM25's top ``n`` for the query's vectors, best first (empty without any).

    One vector is searched as it is; exact and accent-folded BM25 are fused
    inside the engine (``params.pool(n)`` candidates each, ``params.rrf_k``),
    equal fusion values ordered by point id. The one lexical ranking of
    ``search`` and of the fusion calibration (:mod:`sectio.retrieve.calibration`).
    """
    if not sparse:
        return []
    if len(sparse) == 1:
        name, vec = next(iter(sparse.items()))
        return index.search_sparse(name, vec, n, where)
    fused = index.search_fused(None, sparse, params.pool(n), n, where, params.rrf_k)
    return _tie_break(fused, {})


def _sparse_lists(
    index: VectorIndex, sparse: dict[str, SparseVec], pool: int, where: Where
) -> dict[str, Ranks]:
    """Each BM25 list a fusion took (``pool`` candidates under ``where``), ids and scores only."""
    return {
        name: list_ranks(index.search_sparse(name, vec, pool, where, with_payload=False))
        for name, vec in sparse.items()
    }


def _hybrid(
    index: VectorIndex,
    qvec: npt.NDArray[np.float32],
    sparse: dict[str, SparseVec],
    n: int,
    where: Where,
    params: FusionParams,
    details: dict[str, object],
) -> tuple[list[StoredPoint], dict[str, Ranks]]:
    """The fused top-n, and the lists it fused: ``dense`` (rank and cosine of every
    dense candidate), then each BM25 list.

    The fusion runs inside the engine (one query: a dense and a BM25 prefetch
    of ``pool`` each, reciprocal rank fusion, cut to ``n``). The dense
    candidates and their cosine similarity come from the index when it can
    name them (:class:`~sectio.index.port.DenseScoredFusion`, one graph
    traversal), else from a second, ids-only dense query with the same vector,
    filter and pool. A fused hit outside them is a lexical-only hit. The BM25
    lists are asked again, ids only (:func:`_sparse_lists`).
    """
    pool = params.pool(n)
    weights = params.weights(sparse_names=tuple(sparse))
    details.update(
        {"pool": pool, "rrf_k": params.rrf_k, "weights": weights, "fused": ["dense", *sparse]}
    )
    if isinstance(index, DenseScoredFusion):  # one dense traversal instead of two
        fused, dense = index.search_fused_dense_scored(
            qvec, sparse, pool, n, where, params.rrf_k, weights=weights
        )
    else:
        fused = index.search_fused(qvec, sparse, pool, n, where, params.rrf_k, weights=weights)
        dense = list_ranks(index.search_dense(qvec, pool, where, with_payload=False))
    lists = {DENSE: dense, **_sparse_lists(index, sparse, pool, where)}
    return _tie_break(fused, dense), lists


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
    "keep_tenant",
    "lexical_query",
    "lexical_top",
    "search",
]
