"""``/v1/feedback`` and ``/v1/traces/{trace_id}``: rate an answer, read its trace."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse

from sectio.api.deps import Api, Tenant
from sectio.api.models import FeedbackRequest, FeedbackStored, TraceRecord
from sectio.errors import TraceNotFound

router = APIRouter(tags=["feedback"])


@router.post("/v1/feedback", response_model=FeedbackStored)
async def feedback(body: FeedbackRequest, api: Api, tenant: Tenant) -> JSONResponse:
    """Rate an answer (one per trace; a second submission updates it)."""
    data = await api.in_store(
        lambda: api.engine.ops.feedback(
            body.trace_id,
            body.rating,
            comment=body.comment,
            tenant=tenant,
            conversation_id=body.conversation_id,
        )
    )
    return JSONResponse(jsonable_encoder(data.as_dict()))


@router.get("/v1/traces/{trace_id}", response_model=TraceRecord)
async def trace(trace_id: str, api: Api, tenant: Tenant) -> JSONResponse:
    """One retrieval trace of the caller's tenant."""
    data: dict[str, Any] | None = await api.in_store(
        lambda: api.engine.ops.trace(trace_id, tenant=tenant)
    )
    if data is None:
        raise TraceNotFound(f"no trace {trace_id!r}")
    return JSONResponse(jsonable_encoder(data))
