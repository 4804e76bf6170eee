"""``/v1/retrieve``, ``/v1/search``, ``/v1/lookup``: the engine calls, traced and timed.

Each runs its engine call on the engine thread with ``record=False`` and hands
the trace to the trace batcher (:meth:`sectio.api.state.ApiState.traced`); a
search's question is embedded first, with those of concurrent requests.
"""

from __future__ import annotations

import time
from typing import TypeVar

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from sectio.api.deps import Api, Tenant
from sectio.api.errors import ApiError
from sectio.api.models import LookupRequest, RetrieveRequest, SearchRequest
from sectio.api.state import ApiState
from sectio.contract.bounds import check_query
from sectio.contract.result import RetrievalResult, SearchResult
from sectio.engine import DEFAULT_COLLECTION

router = APIRouter(tags=["retrieval"])
R = TypeVar("R", SearchResult, RetrievalResult)


def _checked(
    api: ApiState, text: str, collection: str | None, tenant: str | None = None
) -> tuple[str, str]:
    """``text``, if it passes :func:`sectio.contract.bounds.check_query`, and the
    collection asked for (``default`` if none), if it is served and ready (for ``tenant``)."""
    problem = check_query(text, api.settings.max_query_chars)
    if problem is not None:
        raise ApiError(422, "invalid_request", problem)
    name = collection or DEFAULT_COLLECTION
    api.readiness.require(name, tenant)
    return text, name


async def _answer(
    api: ApiState,
    result: R,
    *,
    kind: str,
    endpoint: str,
    route: str,
    started: float,
    conversation_id: str | None = None,
) -> JSONResponse:
    """Trace ``result`` as ``kind`` (with those of concurrent requests), time it under
    ``endpoint`` and ``route``, and answer with it."""
    await api.traced(kind, result, conversation_id)
    decision = result.decision if isinstance(result, RetrievalResult) else None
    api.metrics.observe(endpoint, route, started, decision)
    return JSONResponse(result.model_dump(mode="json"))


@router.post("/v1/retrieve", response_model=RetrievalResult)
async def retrieve(body: RetrieveRequest, api: Api, tenant: Tenant) -> JSONResponse:
    """The ``ask`` pipeline: route the question, return evidence and a decision."""
    started = time.perf_counter()
    query, name = _checked(api, body.query, body.collection, tenant)
    request = body.ask_request(query)
    previous = None
    if body.conversation_id:  # read on the store lane, never on the engine thread
        previous = await api.previous_subject(body.conversation_id, tenant)
    result = await api.in_engine(
        lambda: api.engine.answer(
            request,
            collection=name,
            tenant=tenant,
            conversation_id=body.conversation_id,
            record=False,
            previous=previous,
        )
    )
    if result.details.rerank is not None and result.details.rerank.failed:
        api.metrics.rerank_fail_open.inc()
    return await _answer(
        api,
        result,
        kind="ask",
        endpoint="/v1/retrieve",
        route=result.route,
        started=started,
        conversation_id=body.conversation_id,
    )


@router.post("/v1/search", response_model=SearchResult)
async def search(body: SearchRequest, api: Api, tenant: Tenant) -> JSONResponse:
    """Hybrid (default), dense or lexical search; top_k clamped to [1, 50]."""
    started = time.perf_counter()
    query, name = _checked(api, body.query, body.collection, tenant)
    if api.queries is not None and body.mode != "lexical":
        await api.queries.submit((tenant, query))
    result = await api.in_engine(
        lambda: api.engine.search(
            query,
            collection=name,
            top_k=body.top_k,
            mode=body.mode,
            filters=body.filters,
            tenant=tenant,
            record=False,
        )
    )
    return await _answer(
        api, result, kind="search", endpoint="/v1/search", route=body.mode, started=started
    )


@router.post("/v1/lookup", response_model=RetrievalResult)
async def lookup(body: LookupRequest, api: Api, tenant: Tenant) -> JSONResponse:
    """Reverse lookup: which documents mention this phrase in the lookup section."""
    started = time.perf_counter()
    phrase, name = _checked(api, body.phrase, body.collection, tenant)
    result = await api.in_engine(
        lambda: api.engine.lookup(phrase, collection=name, tenant=tenant, record=False)
    )
    if result.details.rerank is not None and result.details.rerank.failed:
        api.metrics.rerank_fail_open.inc()
    return await _answer(
        api, result, kind="lookup", endpoint="/v1/lookup", route=result.route, started=started
    )
