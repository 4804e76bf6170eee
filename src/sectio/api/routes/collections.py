"""``/v1/collections`` and ``/v1/collections/{name}``: what this server serves, as the
caller's tenant sees it (its own chunk counts; no corpus-wide figures, no paths)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from sectio.api.deps import Api, Tenant
from sectio.api.models import CollectionDetail, Collections
from sectio.contract.names import name_problem
from sectio.errors import CollectionNotFound, ContractError

router = APIRouter(tags=["collections"])


@router.get("/v1/collections", response_model=Collections)
async def collections(api: Api, tenant: Tenant) -> dict[str, Any]:
    """Collections served here: readiness, the caller's chunk count, model and profile."""
    return {"collections": await api.in_engine(lambda: api.readiness.summaries(tenant))}


@router.get("/v1/collections/{name}", response_model=CollectionDetail)
async def collection(name: str, api: Api, tenant: Tenant) -> dict[str, Any]:
    """One collection: readiness, the caller's chunk count and how it is built."""
    problem = name_problem(name)
    if problem is not None:
        raise ContractError(problem)
    data = await api.in_engine(lambda: api.readiness.detail(name, tenant))
    if data is None:
        raise CollectionNotFound(f"no collection named {name!r}")
    return data
