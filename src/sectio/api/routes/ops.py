"""``/healthz``, ``/readyz``, ``/metrics`` and the playground page ``/``."""

from __future__ import annotations

import hmac
import ipaddress
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


def _local_peer(request: Request) -> bool:
    """Whether the caller is on this machine: a loopback address, or no IP peer at all (a
    Unix socket; an in-process client)."""
    host = request.client.host if request.client else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # not an IP address: no network peer
        return True


@router.head("/healthz", include_in_schema=False)
async def healthz_head() -> Response:
    """``HEAD /healthz``: the same status, no body (load balancers probe with HEAD)."""
    return Response(status_code=200)


@router.head("/readyz", include_in_schema=False)
async def readyz_head(api: Api) -> Response:
    """``HEAD /readyz``: 200 or 503 as ``GET /readyz``, no body."""
    await api.in_engine(api.readiness.check)
    return Response(status_code=200 if api.readiness.report()["ready"] else 503)


@router.get(
    "/metrics",
    response_class=Response,
    responses={
        200: {"content": {"text/plain": {}}, "description": "Prometheus text format"},
        401: {"description": "missing or wrong metrics token, or a remote caller"},
    },
)
async def metrics_endpoint(request: Request, api: Api) -> Response:
    """Prometheus metrics: process-wide figures only, never a tenant's.

    With ``SECTIO_METRICS_TOKEN`` it needs ``Authorization: Bearer <that token>`` (an
    API key is not one); without it, only loopback callers are answered.
    """
    token = api.settings.metrics_token
    if token is not None:
        scheme, _, given = (request.headers.get("authorization") or "").partition(" ")
        expected = token.get_secret_value().encode()
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), expected):
            raise ApiError(401, "unauthorized", "/metrics needs the metrics token")
    elif not _local_peer(request):
        raise ApiError(
            401, "unauthorized", "/metrics answers loopback only; set SECTIO_METRICS_TOKEN"
        )
    return Response(generate_latest(api.metrics.registry), media_type=CONTENT_TYPE_LATEST)


@router.get("/", include_in_schema=False)
async def playground() -> HTMLResponse:
    page = resources.files("sectio.api").joinpath("static/index.html").read_text("utf-8")
    return HTMLResponse(page)
