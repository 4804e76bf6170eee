"""``/healthz``, ``/readyz``, ``/metrics`` and the playground page ``/``."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from sectio.api.deps import Api
from sectio.api.errors import ApiError
from sectio.api.models import Health, Readiness

router = APIRouter(tags=["ops"])


@router.get("/healthz", response_model=Health)
async def healthz() -> dict[str, str]:
    """The process is alive (says nothing about collections)."""
    return {"status": "ok"}


@router.get(
    "/readyz",
    response_model=Readiness,
    responses={
        401: {"description": "verbose=true without a valid API key"},
        503: {"description": "not ready, with reasons"},
    },
)
async def readyz(request: Request, api: Api, verbose: bool = False) -> JSONResponse:
    """200 when every configured collection passed the manifest gate, else 503 with reasons.

    Reasons name no filesystem path; ``verbose=true`` with a valid API key (any
    caller when no keys are configured) shows them as they are.
    """
    key = request.headers.get("authorization")
    if verbose and api.keys.enabled and api.keys.tenant_for_header(key) is None:
        raise ApiError(401, "unauthorized", "verbose readiness needs a valid API key")
    await api.in_engine(api.readiness.check)
    body = api.readiness.report(verbose=verbose)
    return JSONResponse(body, 200 if body["ready"] else 503)


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text format"}},
)
async def metrics_endpoint(api: Api) -> Response:
    """Prometheus metrics."""
    return Response(generate_latest(api.metrics.registry), media_type=CONTENT_TYPE_LATEST)


@router.get("/", include_in_schema=False)
async def playground() -> HTMLResponse:
    page = resources.files("sectio.api").joinpath("static/index.html").read_text("utf-8")
    return HTMLResponse(page)
