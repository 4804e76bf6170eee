"""Tenant-scoped reads the routes share: complete scrolls, ordered fetches, the tenant re-check.

Every read carries the tenant filter into the engine and checks every returned
point again in Python (defence in depth: a payload/filter mismatch must never
leak another tenant's chunk). The re-check is the caller's
:class:`~sectio.retrieve.reads.TenantGuard` (the owning ``Sectio``'s, through
its :class:`~sectio.retrieve.ask.Router`), so every point it drops is logged
and counted in ``guard.dropped`` (``sectio_tenant_check_drops`` on /metrics).
``route`` names the route in the guard's log line.
"""

from __future__ import annotations

from collections.abc import Sequence

from sectio.contract.profile import CorpusProfile
from sectio.contract.result import Evidence
from sectio.index.filters import AnyOf, Condition, Eq, HasIds, Where, tenant_where
from sectio.index.ids import point_id_for
from sectio.index.port import StoredPoint, VectorIndex
from sectio.retrieve.reads import TenantGuard, scroll_all

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


def section_points(
    index: VectorIndex,
    tenant: str,
    doc_id: str,
    sections: Sequence[str] | None,
    page_size: int = 256,
    *,
    guard: TenantGuard,
    route: str = "scan",
) -> list[StoredPoint]:
    """All prose chunks of a document (optionally only some sections), tenant-checked."""
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
        index, tenant, prose_where(tenant, *conditions), guard=guard, page=page_size, route=route
    )
    return [p for p in points if p.payload.get("doc_id") == doc_id]


def fetch_chunks(
    index: VectorIndex,
    chunk_ids: Sequence[str],
    tenant: str,
    *,
    guard: TenantGuard,
    route: str = "scan",
) -> dict[str, StoredPoint]:
    """Points by chunk id (tenant-checked), keyed by chunk id; unknown ids are absent.

    The engine's ``retrieve`` takes no filter, so this is a scroll under the
    tenant condition and the point ids (both tenant checks, as everywhere).
    Engines return points in their own order: callers look results up by chunk
    id and so keep the order they asked in.
    """
    wanted = list(dict.fromkeys(chunk_ids))
    if not wanted:
        return {}
    where = tenant_where(tenant, HasIds(tuple(point_id_for(c) for c in wanted)))
    points = scroll_all(index, tenant, where, guard=guard, route=route)
    return {str(p.payload.get("chunk_id")): p for p in points}
