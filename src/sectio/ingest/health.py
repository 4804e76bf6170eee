"""Which tenants of a collection are not ready: their points are not what the manifest says.

A tenant is **not ready** while a journal entry naming it is pending (a document
write or a tenant addition was interrupted: :mod:`sectio.ingest.journal`), or when
its points do not number its manifest entry's ``chunk_count``, or when the
collection holds points of a tenant the manifest does not list (an addition that
died before its entry was written). ``info`` reports them and ``/readyz`` names
them; the other tenants are served. The counts per tenant are read only when
something is off (a pending entry, or a whole count that differs from the
manifest's): a healthy collection costs no engine call here.

Example:
    >>> not_ready_reason(3, 5).split(" (")[0]
    'holds 3 points, its manifest says 5'
"""

from __future__ import annotations

from typing import Any

from sectio.index.filters import AnyOf, Eq, Where
from sectio.index.manifest import Manifest
from sectio.index.port import IndexBackend, Journaled, VectorIndex
from sectio.ingest.journal import pending_tenants

FIX = "the next write or `sectio gc` finishes or undoes it"
#: Points read to name the tenants a manifest does not list.
SCAN = 1024


def not_ready_reason(held: int, expected: int) -> str:
    return f"holds {held} points, its manifest says {expected} (an interrupted write: {FIX})"


def tenants_not_ready(
    backend: IndexBackend,
    name: str,
    manifest: Manifest | None,
    count: int,
    index: VectorIndex | None = None,
) -> dict[str, str]:
    """The tenants of ``name`` that are not ready, each with why, by tenant ({}: all are).

    ``count`` is the collection's point count; ``index`` the open collection, if any
    (else it is opened here, only when the counts must be read).
    """
    if manifest is None or not manifest.tenants:
        return {}
    entry = backend.read_journal(name) if isinstance(backend, Journaled) else None
    out = {
        t: f"a write of its documents was interrupted (journal pending): {FIX}"
        for t in pending_tenants(entry)
    }
    if count == manifest.chunk_count and not out:
        return out
    own = index is None
    live = backend.open(name) if index is None else index
    try:
        out.update(_miscounted(live, manifest, out))
    finally:
        if own:
            live.close()
    return dict(sorted(out.items()))


def _miscounted(index: VectorIndex, manifest: Manifest, known: dict[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for tenant, corpus in manifest.tenants.items():
        expected = int(corpus.get("chunk_count") or 0)
        held = index.count(Where.of(Eq("tenant", tenant)))
        if held != expected and tenant not in known:
            out[tenant] = not_ready_reason(held, expected)
    unlisted = Where(must_not=(AnyOf("tenant", tuple(manifest.tenants)),))
    if index.count(unlisted):
        page, _ = index.scroll(unlisted, limit=SCAN)
        for tenant in sorted({str(p.payload.get("tenant") or "default") for p in page}):
            if tenant not in known:
                out[tenant] = (
                    "its points are in the collection but not in its manifest (an "
                    f"interrupted tenant addition: {FIX})"
                )
    return out


def health_json(not_ready: dict[str, Any]) -> dict[str, Any]:
    """What ``info`` adds to a collection: ``tenants_ready`` and ``tenants_not_ready``."""
    return {"tenants_ready": not not_ready, "tenants_not_ready": dict(not_ready)}


__all__ = ["health_json", "not_ready_reason", "tenants_not_ready"]
