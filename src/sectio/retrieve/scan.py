"""Route-level reads over a :class:`~sectio.retrieve.scope.ReadScope`: what a route asks for.

:mod:`sectio.retrieve.reads` holds the primitives over a bare index (complete
scrolls, fetches by id, the :class:`~sectio.retrieve.reads.TenantGuard`); this
module builds on them in the routes' own terms: a document's prose (all of
it, or some sections), chunks by chunk id, fused (dense + BM25) candidates,
and the profile's book order. Every read carries the scope's tenant into the
engine query and passes the scope's guard (the second tenant check; drops
are counted). ``route`` names the caller in the guard's log line.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from sectio.contract.profile import CorpusProfile
from sectio.contract.result import Evidence
from sectio.index.filters import AnyOf, Condition, Eq, HasIds, Where, tenant_where
from sectio.index.ids import point_id_for
from sectio.index.port import StoredPoint, best_cosine
from sectio.retrieve.reads import scroll_all
from sectio.retrieve.scope import ReadScope
from sectio.retrieve.search import fused_top

PROSE = Eq("chunk_kind", "prose")


def prose_where(tenant: str, *conditions: Condition) -> Where:
    """Tenant + prose-only filter with extra conditions."""
    return tenant_where(tenant, PROSE, *conditions)


def book_order(evidence: list[Evidence], profile: CorpusProfile) -> list[Evidence]:
    """Sorted by the profile's section order, then ``part_index`` (then chunk id)."""
    return sorted(
        evidence,
        key=lambda e: (profile.order_of(e.section_key), e.section_key, e.part_index, e.chunk_id),
    )


def marker(display_name: str) -> str:
    """The display-name marker that opens each section of a document's answer (seed: 【Name】)."""
    return f"【{display_name}】"


def mark_section_starts(evidence: Sequence[Evidence], display_name: str) -> None:
    """Prefix the first chunk of each section (its lowest ``part_index`` here) with the marker.

    Order-independent: a relevance-ordered list is marked like a book-ordered
    one, so a reader (or a generator) sees where each section of the document
    begins and which document it belongs to. Marks each section once.
    """
    first: dict[str, int] = {}
    for item in evidence:
        if item.section_key not in first or item.part_index < first[item.section_key]:
            first[item.section_key] = item.part_index
    marked: set[str] = set()
    for item in evidence:
        if item.section_key not in marked and item.part_index == first[item.section_key]:
            marked.add(item.section_key)
            item.text = f"{marker(display_name)} {item.text}"


def section_points(
    scope: ReadScope,
    doc_id: str,
    sections: Sequence[str] | None,
    *,
    route: str = "scan",
) -> list[StoredPoint]:
    """All prose chunks of a document (only ``sections`` when given), engine order.

    ``sections=[]`` reads nothing; ``None`` reads every section.
    """
    conditions: list[Condition] = [Eq("doc_id", doc_id)]
    if sections is not None:
        if not sections:
            return []
        conditions.append(
            Eq("section_key", sections[0])
            if len(sections) == 1
            else AnyOf("section_key", tuple(sections))
        )
    points = scroll_all(
        scope.index,
        scope.tenant,
        prose_where(scope.tenant, *conditions),
        guard=scope.guard,
        page=scope.page_size,
        route=route,
    )
    return [p for p in points if p.payload.get("doc_id") == doc_id]


def flagged_blocks(
    scope: ReadScope, doc_id: str, section_key: str, *, route: str = "scan"
) -> list[StoredPoint]:
    """The section's ``block`` chunks that carry a flag (quarantined, or needs a visual check).

    Prose reads skip blocks; these must not be skipped silently: their flags
    decide ``VERIFY_SOURCE`` and the caller shows the source page.
    """
    where = tenant_where(
        scope.tenant,
        Eq("chunk_kind", "block"),
        Eq("doc_id", doc_id),
        Eq("section_key", section_key),
    )
    points = scroll_all(scope.index, scope.tenant, where, guard=scope.guard, route=route)
    return [
        p
        for p in points
        if p.payload.get("doc_id") == doc_id
        and p.payload.get("section_key") == section_key
        and (p.payload.get("has_quarantined_content") or p.payload.get("requires_visual_check"))
    ]


def fetch_chunks(
    scope: ReadScope, chunk_ids: Sequence[str], *, route: str = "scan"
) -> dict[str, StoredPoint]:
    """Points by chunk id, keyed by chunk id; unknown ids (and other tenants') are absent.

    The engine's ``retrieve`` takes no filter, so this is a scroll under the
    tenant condition and the point ids (both tenant checks, as everywhere).
    Engines return points in their own order: callers look results up by
    chunk id and so keep the order they asked in.
    """
    wanted = list(dict.fromkeys(chunk_ids))
    if not wanted:
        return {}
    where = tenant_where(scope.tenant, HasIds(tuple(point_id_for(c) for c in wanted)))
    points = scroll_all(scope.index, scope.tenant, where, guard=scope.guard, route=route)
    return {str(p.payload.get("chunk_id")): p for p in points}


def fused_points(
    scope: ReadScope,
    query_vector: npt.NDArray[np.float32],
    question: str,
    where: Where,
    *,
    pool: int,
    limit: int,
    route: str,
) -> list[StoredPoint]:
    """Dense + BM25 reciprocal rank fusion (:func:`~sectio.retrieve.search.fused_top`),
    with vectors, tenant re-checked.

    Fused with the scope's one :class:`~sectio.retrieve.fusion.FusionParams`
    (the ``k`` and weights ``search`` uses). Ordered by fusion value, then
    dense similarity (best window's), then point id.
    """
    sparse = scope.collection.lexical.encode_query(question)
    points, _ = fused_top(
        scope.index, query_vector, sparse, pool, limit, where, scope.fusion, with_vectors=True
    )
    points.sort(
        key=lambda p: (-round(p.score or 0.0, 9), -best_cosine(query_vector, p.dense), p.id)
    )
    return scope.guard.keep(points, scope.tenant, route)
