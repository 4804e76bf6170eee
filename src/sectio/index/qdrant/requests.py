"""Query plans: what a search asks of Qdrant, before any client library renders it.

Both adapters build their dense, sparse and fused (prefetch + reciprocal rank
fusion) requests from these functions, so the two cannot drift apart; each
renders a :class:`Search` with its own client (``QueryRequest`` in Qdrant Edge,
``query_points`` in qdrant-client).

Example:
    >>> plan = fused_search(None, {"bm25": SparseVec((1,), (1.0,))}, pool=50, limit=10,
    ...                     where=None, rrf_k=2)
    >>> [p.nearest.using for p in plan.prefetches], plan.rrf_k
    (['bm25'], 2)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from sectio.index.filters import Where, tenant_where
from sectio.index.port import DENSE, DenseVector, SparseVec
from sectio.index.qdrant.filters import names_tenant


@dataclass(frozen=True)
class Nearest:
    """Nearest points to one vector: ``dense`` (a list of floats) or ``sparse``, on ``using``."""

    using: str
    dense: list[float] | None = None
    sparse: SparseVec | None = None


@dataclass(frozen=True)
class Prefetch:
    """One candidate list of a fused search."""

    nearest: Nearest
    limit: int
    where: Where | None
    #: True: exact search (no graph walked); the adapter decides, see ``exact_for``.
    exact: bool = False
    #: BM25 IDF computed over the points matching this filter only (per-tenant IDF).
    idf_where: Where | None = None


@dataclass(frozen=True)
class Search:
    """One query: a plain nearest search (``nearest``) or a fusion of ``prefetches``."""

    limit: int
    where: Where | None
    nearest: Nearest | None = None
    prefetches: tuple[Prefetch, ...] = ()
    rrf_k: int | None = None
    weights: list[float] | None = None
    exact: bool = False
    idf_where: Where | None = None
    with_payload: bool = True
    #: Return each hit's dense vector (fused searches only).
    with_dense: bool = False
    score_threshold: float | None = None


def dense_query(vector: DenseVector) -> list[float]:
    """A dense query vector as plain floats."""
    return [float(x) for x in vector]


def dense_search(
    vector: DenseVector,
    limit: int,
    where: Where | None,
    *,
    exact: bool,
    score_threshold: float | None = None,
    with_payload: bool = True,
) -> Search:
    """Nearest points by the dense vector, best first."""
    return Search(
        limit=limit,
        where=where,
        nearest=Nearest(DENSE, dense=dense_query(vector)),
        exact=exact,
        with_payload=with_payload,
        score_threshold=score_threshold,
    )


def sparse_search(
    name: str,
    vector: SparseVec,
    limit: int,
    where: Where | None,
    idf_where: Where | None,
    *,
    with_payload: bool = True,
) -> Search:
    """Best BM25 matches on sparse vector ``name``; IDF over ``idf_where`` if given."""
    return Search(
        limit=limit,
        where=where,
        nearest=Nearest(name, sparse=vector),
        idf_where=idf_where,
        with_payload=with_payload,
    )


def fused_search(
    dense: DenseVector | None,
    sparse: dict[str, SparseVec],
    *,
    pool: int,
    limit: int,
    where: Where | None,
    rrf_k: int,
    weights: Sequence[float] | None = None,
    with_dense: bool = False,
    idf_where: Where | None = None,
    exact: bool = False,
) -> Search | None:
    """Reciprocal rank fusion of a dense and one prefetch per sparse vector (None: no list).

    Each prefetch takes ``pool`` candidates under ``where``; the dense one is exact
    when ``exact``; the sparse ones compute IDF over ``idf_where``. The fused list
    is cut to ``limit`` and filtered by ``where`` again.
    """
    prefetches: list[Prefetch] = []
    if dense is not None:
        prefetches.append(
            Prefetch(Nearest(DENSE, dense=dense_query(dense)), pool, where, exact=exact)
        )
    for name, vec in sparse.items():
        prefetches.append(Prefetch(Nearest(name, sparse=vec), pool, where, idf_where=idf_where))
    if not prefetches:
        return None
    return Search(
        limit=limit,
        where=where,
        prefetches=tuple(prefetches),
        rrf_k=rrf_k,
        weights=list(weights) if weights else None,
        with_dense=with_dense,
    )


def tenant_idf(search: Search) -> Search:
    """``search`` with each BM25 list's IDF computed over its own tenant's points.

    A shard shared by tenants counts every tenant's text in a term's document
    frequency: one tenant's lexical scores would tell how often a word occurs in
    another's corpus. A sparse list scoped to a tenant (``Eq("tenant", t)``) and
    without an IDF filter of its own gets ``idf_where = tenant_where(t)``; dense
    lists, unscoped lists and explicit IDF filters are left as they are.

    Example:
        >>> plan = sparse_search("bm25", SparseVec((1,), (1.0,)), 5, tenant_where("a"), None)
        >>> tenant_idf(plan).idf_where == tenant_where("a")
        True
    """

    def scope(nearest: Nearest | None, where: Where | None) -> Where | None:
        if nearest is None or nearest.sparse is None:
            return None
        tenant = names_tenant(where)
        return tenant_where(tenant) if tenant is not None else None

    prefetches = tuple(
        p
        if p.idf_where is not None
        else dataclasses.replace(p, idf_where=scope(p.nearest, p.where or search.where))
        for p in search.prefetches
    )
    idf = search.idf_where or scope(search.nearest, search.where)
    return dataclasses.replace(search, prefetches=prefetches, idf_where=idf)
