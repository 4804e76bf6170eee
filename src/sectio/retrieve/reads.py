"""Tenant-scoped reads: every way a route reads points goes through here.

Two layers of tenant isolation, on every read:

1. the tenant condition is part of the engine query (:func:`tenant_where`);
2. every point the engine returns is checked again in Python by a
   :class:`TenantGuard`; a point of another tenant is dropped, logged and
   counted (``guard.dropped``, readable by ``/metrics``).

The second check is not redundant: it protects against a payload/query
mismatch or a future change to the engine filter silently leaking another
tenant's chunks. Keep both.

Engines do not return points in the order they were asked for (``retrieve``
and ``scroll`` come back in engine order), so any caller that fetches records
by a set of ids re-sorts them with :func:`in_ranking_order`.

Example:
    >>> guard = TenantGuard()
    >>> from sectio.index.port import StoredPoint
    >>> pts = [StoredPoint("1", {"tenant": "a"}), StoredPoint("2", {"tenant": "b"})]
    >>> [p.id for p in guard.keep(pts, "a")], guard.dropped
    (['1'], 1)
    >>> in_ranking_order(["b", "c", "a"], ["a", "b", "c"], key=str)
    ['a', 'b', 'c']
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from sectio.index.filters import Condition, Eq, HasIds, Where, tenant_where
from sectio.index.ids import point_id_for
from sectio.index.port import StoredPoint, VectorIndex

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Points a scroll page holds; scrolling pages until the engine says there are no more.
SCROLL_PAGE = 256


def _tenant_of(point: StoredPoint) -> str:
    return str(point.payload.get("tenant") or "default")


class TenantGuard:
    """The second tenant check, and the count of what it stopped.

    One guard is owned by each :class:`sectio.Sectio`; every read path passes
    its points through :meth:`keep`. ``dropped`` counts points of another
    tenant that the engine returned (it must stay 0; anything else is a bug
    in a filter, logged at ERROR level).

    Example:
        >>> TenantGuard().dropped
        0
    """

    def __init__(self) -> None:
        self.dropped = 0
        self.checked = 0
        self._lock = threading.Lock()

    def keep(
        self, points: Sequence[StoredPoint], tenant: str, where: str = "read"
    ) -> list[StoredPoint]:
        """The points of ``tenant``; others are dropped, logged and counted.

        ``where`` names the read path in the log line.
        """
        kept = [p for p in points if _tenant_of(p) == tenant]
        dropped = len(points) - len(kept)
        with self._lock:
            self.checked += len(points)
            self.dropped += dropped
        if dropped:
            others = sorted({_tenant_of(p) for p in points if _tenant_of(p) != tenant})
            log.error(
                "tenant check (%s) dropped %d point(s) of other tenant(s) %s for caller %r",
                where,
                dropped,
                others,
                tenant,
            )
        return kept


def keep_tenant(
    points: list[StoredPoint], tenant: str, guard: TenantGuard | None = None
) -> list[StoredPoint]:
    """Second tenant check, in Python: drop (and log) any point of another tenant."""
    return (guard or TenantGuard()).keep(points, tenant)


def in_ranking_order(
    items: Iterable[T], ranking: Sequence[str], key: Callable[[T], str]
) -> list[T]:
    """``items`` re-sorted into the order of ``ranking`` (hydration order).

    Items whose key is not in ``ranking`` are dropped (they were not asked
    for); when several items share a key, the first one is kept.
    """
    position = {k: i for i, k in reversed(list(enumerate(ranking)))}
    seen: set[str] = set()
    ranked: list[tuple[int, T]] = []
    for item in items:
        k = key(item)
        if k in position and k not in seen:
            seen.add(k)
            ranked.append((position[k], item))
    ranked.sort(key=lambda pair: pair[0])
    return [item for _, item in ranked]


def scoped(tenant: str, where: Where | None = None, *conditions: Condition) -> Where:
    """``where`` (and ``conditions``) under the tenant condition."""
    base = tenant_where(tenant, *conditions)
    if where is None:
        return base
    # a filter built with the tenant already (``tenant_where``) keeps it once
    extra = tuple(c for c in where.must if c not in base.must)
    return Where(must=base.must + extra, must_not=where.must_not)


def count(index: VectorIndex, tenant: str, where: Where | None = None) -> int:
    """Points of ``tenant`` matching ``where`` (the engine's exact count).

    A count has no points to re-check; it is scoped by the engine filter only.
    Use :func:`scroll_all` where the points themselves are needed.
    """
    return index.count(scoped(tenant, where))


def scroll_all(
    index: VectorIndex,
    tenant: str,
    where: Where | None = None,
    *,
    guard: TenantGuard | None = None,
    page: int = SCROLL_PAGE,
    max_points: int | None = None,
    route: str = "scroll",
    with_vectors: bool = False,
) -> list[StoredPoint]:
    """Every point of ``tenant`` matching ``where``, all pages, checked (engine order).

    ``max_points`` stops early (after at least that many points); ``route``
    names the caller in the guard's log line when it drops a point;
    ``with_vectors`` reads each point's vectors too.
    """
    guard = guard or TenantGuard()
    flt = scoped(tenant, where)
    out: list[StoredPoint] = []
    seen: set[str] = set()
    offset: str | None = None
    while True:
        points, offset = index.scroll(flt, limit=page, offset=offset, with_vectors=with_vectors)
        for point in guard.keep(points, tenant, route):
            if point.id not in seen:  # an adapter may repeat a page's boundary point
                seen.add(point.id)
                out.append(point)
        if offset is None or not points or (max_points is not None and len(out) >= max_points):
            break
    return out


def section_chunks(
    index: VectorIndex,
    tenant: str,
    doc_id: str,
    section_key: str,
    *,
    guard: TenantGuard | None = None,
) -> list[StoredPoint]:
    """All chunks of one section of one document, in ``part_index`` order."""
    points = scroll_all(
        index, tenant, Where.of(Eq("doc_id", doc_id), Eq("section_key", section_key)), guard=guard
    )
    return sorted(points, key=lambda p: int(p.payload.get("part_index") or 0))


def retrieve_points(
    index: VectorIndex,
    point_ids: Sequence[str],
    tenant: str,
    *,
    guard: TenantGuard | None = None,
    with_vectors: bool = False,
) -> list[StoredPoint]:
    """Points by id, of ``tenant`` only, in the order of ``point_ids`` (unknown ids absent).

    The engine's ``retrieve`` takes no filter, so this reads with a filtered
    scroll (tenant AND the ids) to keep the tenant condition inside the engine
    query; the points are then checked again and put back into the order of
    ``point_ids``, because engines return them in their own order.
    """
    wanted = list(dict.fromkeys(point_ids))
    if not wanted:
        return []
    points = scroll_all(
        index, tenant, Where.of(HasIds(tuple(wanted))), guard=guard, with_vectors=with_vectors
    )
    return in_ranking_order(points, wanted, key=lambda p: p.id)


def retrieve_chunks(
    index: VectorIndex,
    chunk_ids: Sequence[str],
    tenant: str,
    *,
    guard: TenantGuard | None = None,
) -> list[StoredPoint]:
    """Chunks by ``chunk_id``, of ``tenant`` only, in the order of ``chunk_ids``.

    Chunk ids are unique within a collection, so a chunk id names one point;
    asking for another tenant's chunk id returns nothing.
    """
    ids = [point_id_for(c) for c in chunk_ids]
    return retrieve_points(index, ids, tenant, guard=guard)


__all__ = [
    "SCROLL_PAGE",
    "TenantGuard",
    "count",
    "in_ranking_order",
    "keep_tenant",
    "retrieve_chunks",
    "retrieve_points",
    "scoped",
    "scroll_all",
    "section_chunks",
]
