"""``/v1/collections`` and ``/v1/collections/{name}``: what this server serves."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from sectio.api.deps import Api, Tenant
from sectio.errors import CollectionNotFound

router = APIRouter(tags=["collections"])


@router.get("/v1/collections")
async def collections(api: Api, tenant: Tenant) -> dict[str, Any]:
    """Collections served here, with readiness and manifest summary."""
    return {"collections": api.readiness.summaries()}


@router.get("/v1/collections/{name}")
async def collection(name: str, api: Api, tenant: Tenant) -> dict[str, Any]:
    """One collection: its manifest, total points and the caller's points."""
    data = await api.in_engine(lambda: api.readiness.detail(name, tenant))
    if data is None:
        raise CollectionNotFound(f"no collection named {name!r}")
    return data
