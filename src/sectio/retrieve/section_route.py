"""Section route: a known document and section, answered exactly, in full, in order.

A ``scroll`` under a payload filter (tenant, document, section, prose), never a
top-k search: it pages until the engine says there is nothing left, because a
silently truncated section reads as a complete answer. The chunks are re-sorted
by ``part_index`` (engine order is uuid order, i.e. random). There is no
evidence limit, and the score is 1.0 by construction: an exact match, not a
similarity, never to be compared with one.
"""

from __future__ import annotations

from sectio.contract.result import Evidence
from sectio.index.port import VectorIndex
from sectio.retrieve.reads import TenantGuard
from sectio.retrieve.scan import section_points

SECTION_SCORE = 1.0


def section_evidence(
    index: VectorIndex,
    tenant: str,
    doc_id: str,
    section_key: str,
    *,
    guard: TenantGuard,
    page_size: int = 256,
) -> list[Evidence]:
    """Every prose chunk of ``doc_id`` / ``section_key`` for ``tenant``, by ``part_index``.

    ``guard`` re-checks the tenant of every point read (drops are counted).
    """
    points = section_points(
        index, tenant, doc_id, [section_key], page_size, guard=guard, route="section"
    )
    points = [p for p in points if p.payload.get("section_key") == section_key]
    points.sort(key=lambda p: (int(p.payload.get("part_index") or 0), str(p.payload["chunk_id"])))
    return [
        Evidence.from_payload(p.payload, SECTION_SCORE, rank=i + 1) for i, p in enumerate(points)
    ]
