"""``/v1/admin/...``: document writes on the served collections, by an admin key.

* ``POST /v1/admin/documents/upsert``: add documents, replace changed ones (by doc id);
* ``POST /v1/admin/documents/delete``: remove documents;
* ``POST /v1/admin/documents/sync``: make the key's tenant equal to the records sent;
* ``POST /v1/admin/tenant/replace``: a new version of the key's tenant, built beside the
  live one and switched (the other tenants' points copied).

Only an admin key (``key:tenant:admin``, :mod:`sectio.api.auth`) writes, and only
its own tenant: a read key gets 403, and so does a record naming another tenant.
Without keys configured (loopback serving), only a loopback client writes.

Readers never see a half-changed document: a write is planned and applied on the
engine thread (between two engine calls), and its embedding runs off it
(:meth:`sectio.Sectio.prepare_documents`), so searches keep being answered while
it is embedded. A tenant's first load and a tenant replace run :meth:`sectio.Sectio.ingest`
on the engine thread, after their vectors were computed off it. After every write
the readiness check runs again: no restart, no 503 for the other requests.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

import anyio
from fastapi import APIRouter, Request

from sectio.api.deps import Api
from sectio.api.errors import ApiError
from sectio.api.models import DeleteRequest, DocumentsRequest, DocumentWrite
from sectio.api.state import ApiState
from sectio.contract.names import DEFAULT_COLLECTION, name_problem
from sectio.contract.record import ChunkRecord, parse_record
from sectio.errors import ContractError, CorpusMismatch

router = APIRouter(tags=["admin"])
#: A write planned against a manifest another write changed first is planned again.
ATTEMPTS = 3


T = TypeVar("T")


async def _aside(fn: Callable[[], T]) -> T:
    """Run ``fn`` on a worker thread beside the engine thread (embedding: no index access)."""
    return await anyio.to_thread.run_sync(fn)


def _loopback(request: Request) -> bool:
    host = request.client.host if request.client is not None else ""
    if host in ("localhost", "testclient"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def admin_tenant(request: Request, api: Api) -> str:
    """The tenant an admin request writes: its admin key's.

    Raises:
        ApiError: 401 no or an unknown key; 403 a read key, or (no keys configured)
            a client that is not on this machine.
    """
    if not api.keys.enabled:
        if not _loopback(request):
            raise ApiError(403, "forbidden", "no API keys configured: only loopback clients write")
        return "default"
    grant = api.keys.grant_for_header(request.headers.get("authorization"))
    if grant is None:
        raise ApiError(401, "unauthorized", "missing or invalid API key")
    if not grant.admin:
        raise ApiError(403, "forbidden", "this key reads only; writes need an admin key")
    return grant.tenant


def _collection(name: str | None) -> str:
    chosen = name or DEFAULT_COLLECTION
    problem = name_problem(chosen)
    if problem is not None:
        raise ContractError(problem)
    return chosen


def _records(raw: Sequence[dict[str, Any]], tenant: str) -> list[ChunkRecord]:
    """The body's records, each the key's tenant's.

    Raises:
        ApiError: 403, a record naming another tenant.
        RecordError: a record that breaks the contract (422, naming it).
    """
    out = []
    for line, data in enumerate(raw, start=1):
        given = data.get("tenant", tenant)
        if given != tenant:
            why = f"record {line} names tenant {given!r}; this key writes {tenant!r}"
            raise ApiError(403, "forbidden", why)
        out.append(parse_record({**data, "tenant": tenant}, "body.records", line))
    return out


async def _write(
    api: ApiState, action: str, name: str, tenant: str, records: list[ChunkRecord]
) -> dict[str, Any]:
    """Plan on the engine thread, embed off it, apply on it; readiness checked after."""
    engine = api.engine
    for attempt in range(ATTEMPTS):
        plan = await api.in_engine(
            lambda: engine.plan_documents(name, tenant, records, action=action)
        )
        prepared = await _aside(partial(engine.prepare_documents, plan))
        try:
            report = await api.in_engine(partial(engine.apply_documents, prepared))
        except CorpusMismatch:
            if attempt == ATTEMPTS - 1:
                raise
            continue
        await api.in_engine(api.readiness.check)
        return report.as_dict()
    raise AssertionError("unreachable")


async def _load(
    api: ApiState, action: str, name: str, tenant: str, records: list[ChunkRecord], replace: bool
) -> dict[str, Any]:
    """A tenant's first load, or its replace: vectors computed off the engine thread."""
    engine = api.engine
    await _aside(lambda: engine.warm_records(records))
    report = await api.in_engine(
        lambda: engine.load_records(
            records, collection=name, tenant=tenant, replace=replace, action=action
        )
    )
    await api.in_engine(api.readiness.check)
    return report.as_dict()


async def _records_write(api: ApiState, action: str, body: DocumentsRequest, tenant: str) -> Any:
    name = _collection(body.collection)
    records = _records(body.records, tenant)
    held = await api.in_engine(lambda: api.engine.holds_tenant(name, tenant))
    if not held:  # a new collection or tenant: loaded as ingest loads it
        return await _load(api, action, name, tenant, records, replace=False)
    return await _write(api, action, name, tenant, records)


@router.post("/v1/admin/documents/upsert", response_model=DocumentWrite)
async def upsert(body: DocumentsRequest, request: Request, api: Api) -> Any:
    """Add the documents sent and replace those the tenant holds again (by doc id);
    unchanged ones cost nothing. A tenant not held yet is loaded whole."""
    tenant = await admin_tenant(request, api)
    return await _records_write(api, "upsert", body, tenant)


@router.post("/v1/admin/documents/sync", response_model=DocumentWrite)
async def sync(body: DocumentsRequest, request: Request, api: Api) -> Any:
    """Make the key's tenant equal to the records sent: upsert what changed, delete the
    documents they no longer hold."""
    tenant = await admin_tenant(request, api)
    return await _records_write(api, "sync", body, tenant)


@router.post("/v1/admin/documents/delete", response_model=DocumentWrite)
async def delete(body: DeleteRequest, request: Request, api: Api) -> Any:
    """Remove documents (every chunk of each) of the key's tenant; a doc id it does not
    hold is refused (400) and nothing is removed."""
    tenant = await admin_tenant(request, api)
    name = _collection(body.collection)
    engine = api.engine

    def run() -> dict[str, Any]:
        if not engine.holds_tenant(name, tenant):
            raise ContractError(
                f"collection {name!r} holds no document of tenant {tenant!r}; nothing was deleted"
            )
        plan = engine.plan_documents(name, tenant, (), action="delete", doc_ids=body.doc_ids)
        return engine.apply_documents(engine.prepare_documents(plan)).as_dict()

    report = await api.in_engine(run)
    await api.in_engine(api.readiness.check)
    return report


@router.post("/v1/admin/tenant/replace", response_model=DocumentWrite)
async def replace_tenant(body: DocumentsRequest, request: Request, api: Api) -> Any:
    """A new version of the key's tenant (``ingest --replace`` of one tenant): built beside
    the live version with the other tenants' points copied, then switched."""
    tenant = await admin_tenant(request, api)
    name = _collection(body.collection)
    records = _records(body.records, tenant)
    return await _load(api, "replace", name, tenant, records, replace=True)
