"""``create_app(settings)``: the FastAPI service over one :class:`sectio.Sectio`.

Serving model (Qdrant Edge): one process owns the shards, and every edge call
holds the GIL. Engine calls therefore run one at a time on a worker thread
(an ``anyio.CapacityLimiter(1)``): requests queue instead of blocking the event
loop, and ``/healthz`` stays responsive. Two lanes run beside it: questions are
embedded before the engine call and traces written after it, each on a thread
of its own and the work of concurrent requests in one batch (one model call,
one transaction; :mod:`sectio.api.batching`), so the engine thread only
searches. Nothing here optimizes or writes to an index. To serve from several
processes, use the Qdrant server adapter (``SECTIO_QDRANT_URL``, see
docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator, Callable
from importlib import resources
from typing import Any, TypeVar

import anyio
from fastapi import Depends, FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.exceptions import HTTPException as StarletteHTTPException

from sectio._version import __version__
from sectio.api.auth import KeyRing
from sectio.api.batching import Batcher
from sectio.api.metrics import Metrics
from sectio.api.middleware import RequestMiddleware
from sectio.api.models import FeedbackRequest, LookupRequest, RetrieveRequest, SearchRequest
from sectio.api.readiness import Readiness
from sectio.context import request_context
from sectio.contract.result import RetrievalResult, SearchResult
from sectio.engine import DEFAULT_COLLECTION, Sectio
from sectio.errors import (
    CollectionNotFound,
    ConfigError,
    ContractError,
    IndexError_,
    ManifestMismatch,
    ManifestMissing,
    SectioError,
)
from sectio.ops.errors import InvalidInput, StoreNotMigrated, StoreUnavailable, TraceNotFound
from sectio.ops.records import TraceEntry
from sectio.settings import Settings, load_settings

log = logging.getLogger("sectio.api")
T = TypeVar("T")
R = TypeVar("R", SearchResult, RetrievalResult)


class ApiError(Exception):
    """An error with an HTTP status and a stable code."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _status_of(exc: SectioError) -> tuple[int, str]:
    if isinstance(exc, CollectionNotFound):
        return 404, "collection_not_found"
    if isinstance(exc, ManifestMismatch | ManifestMissing):
        return 503, "collection_not_ready"
    if isinstance(exc, ContractError | ConfigError):
        return 400, "bad_request"
    if isinstance(exc, IndexError_):
        return 503, "index_error"
    if isinstance(exc, TraceNotFound):
        return 404, "trace_not_found"
    if isinstance(exc, InvalidInput):
        return 422, "invalid_request"
    if isinstance(exc, StoreUnavailable | StoreNotMigrated):
        return 503, "store_unavailable"
    return 400, "bad_request"


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": " ".join(message.split())}}, status)


def create_app(settings: Settings | None = None, sectio: Sectio | None = None) -> FastAPI:
    """Build the app. ``sectio`` may be injected (tests); otherwise built from ``settings``.

    Raises:
        ConfigError: malformed API keys, or a SECTIO_* setting that does not validate.
    """
    settings = settings or load_settings()
    if settings.embed_threads is None:
        # One model thread: under concurrent load ONNX's second thread spins against
        # the engine thread (8 clients, fresh questions: /v1/search 107 -> 139 req/s,
        # server CPU per request 15 -> 9 ms); a lone question takes ~7 ms, not ~4.5.
        settings = settings.model_copy(update={"embed_threads": 1})
    keys = KeyRing.from_settings(settings)
    engine = sectio or Sectio(settings)
    limiter = anyio.CapacityLimiter(1)
    readiness = Readiness(engine, settings)
    metrics = Metrics(lambda: readiness.live_values())
    # Questions are embedded before the engine call, concurrent ones together, and
    # the vectors handed over through the query LRU (without it, nothing to batch).
    queries: Batcher[str] | None = None
    if settings.query_cache_size:  # the embedder is built on first use, not here
        queries = Batcher("query", lambda texts: engine.embedder.prefetch_queries(texts))
    traces: Batcher[TraceEntry] = Batcher("trace", engine.record_entries)

    async def in_engine(fn: Callable[[], T]) -> T:
        """Run an engine call on the single engine thread (requests queue, the loop stays free)."""
        return await anyio.to_thread.run_sync(fn, limiter=limiter)

    async def traced(kind: str, result: R, conversation_id: str | None = None) -> R:
        """Write ``result``'s trace with those of concurrent requests; set its ``trace_id``.

        Off the engine thread (a trace was ~40% of a repeated search's engine
        time), one transaction per batch. The response waits for its trace, so a
        returned ``trace_id`` names a written trace (None: the fail-open write
        failed), ready for ``/v1/feedback``.
        """
        await traces.submit(engine.trace_entry(kind, result, conversation_id=conversation_id))
        return result

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await in_engine(readiness.check)
        try:  # load the model now, not on the first request
            await in_engine(lambda: engine.embedder.inner.embed_query("warm up"))
        except Exception as exc:  # the first query will report it
            logging.getLogger("sectio.api").warning("embedder warm-up failed: %s", exc)
        # Everything loaded so far lives as long as the app: keep it out of the
        # collector's scans, so a full collection under load is short.
        gc.collect()
        gc.freeze()
        tasks = [asyncio.create_task(_refresh_forever())]
        if settings.retention_days:
            tasks.append(asyncio.create_task(_retention_daily()))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            if sectio is None:
                await in_engine(engine.close)

    async def _refresh_forever() -> None:
        while True:
            await asyncio.sleep(settings.readiness_interval_s)
            with contextlib.suppress(Exception):
                await in_engine(readiness.check)

    async def _retention_daily() -> None:
        while True:
            with contextlib.suppress(Exception):
                await in_engine(engine.ops.apply_retention)
            await asyncio.sleep(24 * 3600)

    app = FastAPI(
        title="sectio",
        version=__version__,
        description="Exact, sectioned retrieval for grounded RAG. Every request is scoped to the "
        "tenant of its API key (`Authorization: Bearer <key>`).",
        lifespan=lifespan,
    )
    app.add_middleware(RequestMiddleware, max_body_bytes=settings.max_body_bytes)

    # --- errors: always JSON, never a 500 for bad input ------------------------------
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(SectioError)
    async def _sectio_error(_: Request, exc: SectioError) -> JSONResponse:
        status, code = _status_of(exc)
        return _error(status, code, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        loc = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
        msg = str(first.get("msg", "invalid request"))
        if first.get("type") == "extra_forbidden":
            msg = "unknown field"
        return _error(422, "invalid_request", f"{loc}: {msg}")

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {401: "unauthorized", 404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, "http_error"
        )
        return _error(exc.status_code, code, str(exc.detail))

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return _error(500, "internal_error", "internal error; see the server log")

    # --- auth -------------------------------------------------------------------------
    def tenant_of(request: Request) -> str:
        if not keys.enabled:
            return "default"
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        tenant = keys.tenant_for(token.strip()) if scheme.lower() == "bearer" else None
        if tenant is None:
            raise ApiError(401, "unauthorized", "missing or invalid API key")
        return tenant

    def collection_of(name: str | None) -> str:
        name = name or DEFAULT_COLLECTION
        readiness.require(name)
        return name

    def check_query(text: str) -> str:
        if len(text) > settings.max_query_chars:
            raise ApiError(
                422, "invalid_request", f"query over {settings.max_query_chars} characters"
            )
        if not text.strip():
            raise ApiError(422, "invalid_request", "query is blank")
        return text

    def observe(endpoint: str, route: str, started: float, decision: str | None = None) -> None:
        metrics.latency.labels(endpoint, route).observe(time.perf_counter() - started)
        if decision:
            metrics.decisions.labels(decision).inc()

    # --- endpoints --------------------------------------------------------------------
    @app.get("/healthz", tags=["ops"])
    async def healthz() -> dict[str, str]:
        """The process is alive (says nothing about collections)."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["ops"], responses={503: {"description": "not ready, with reasons"}})
    async def readyz() -> JSONResponse:
        """200 when every configured collection passed the manifest gate, else 503 with reasons."""
        await in_engine(readiness.check)
        body = readiness.report()
        return JSONResponse(body, 200 if body["ready"] else 503)

    @app.get("/metrics", tags=["ops"])
    async def metrics_endpoint() -> Response:
        """Prometheus metrics."""
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    @app.post("/v1/retrieve", tags=["retrieval"])
    async def retrieve(body: RetrieveRequest, tenant: str = Depends(tenant_of)) -> JSONResponse:
        """The ``ask`` pipeline: route the question, return evidence and a decision."""
        started = time.perf_counter()
        query = check_query(body.query)
        name = collection_of(body.collection)
        result = await in_engine(
            lambda: engine.ask(
                query,
                collection=name,
                tenant=tenant,
                doc_id=body.doc_id,
                section_key=body.section_key,
                turn_type=body.turn_type,
                top_k=body.top_k,
                conversation_id=body.conversation_id,
                record=False,
            )
        )
        result = await traced("ask", result, body.conversation_id)
        if (result.details or {}).get("rerank", {}).get("failed"):
            metrics.rerank_fail_open.inc()
        observe("/v1/retrieve", result.route, started, result.decision)
        return JSONResponse(result.model_dump(mode="json"))

    @app.post("/v1/search", tags=["retrieval"])
    async def search(body: SearchRequest, tenant: str = Depends(tenant_of)) -> JSONResponse:
        """Hybrid (default), dense or lexical search; top_k clamped to [1, 50]."""
        started = time.perf_counter()
        query = check_query(body.query)
        name = collection_of(body.collection)
        if queries is not None and body.mode != "lexical":
            await queries.submit(query)
        result = await in_engine(
            lambda: engine.search(
                query,
                collection=name,
                top_k=body.top_k,
                mode=body.mode,
                filters=body.filters,
                tenant=tenant,
                record=False,
            )
        )
        result = await traced("search", result)
        observe("/v1/search", body.mode, started)
        return JSONResponse(result.model_dump(mode="json"))

    @app.post("/v1/lookup", tags=["retrieval"])
    async def lookup(body: LookupRequest, tenant: str = Depends(tenant_of)) -> JSONResponse:
        """Reverse lookup: which documents mention this phrase in the lookup section."""
        started = time.perf_counter()
        phrase = check_query(body.phrase)
        name = collection_of(body.collection)
        result = await in_engine(
            lambda: engine.lookup(phrase, collection=name, tenant=tenant, record=False)
        )
        result = await traced("lookup", result)
        observe("/v1/lookup", result.route, started, result.decision)
        return JSONResponse(result.model_dump(mode="json"))

    @app.get("/v1/collections", tags=["collections"])
    async def collections(tenant: str = Depends(tenant_of)) -> dict[str, Any]:
        """Collections served here, with readiness and manifest summary."""
        return {"collections": readiness.summaries()}

    @app.get("/v1/collections/{name}", tags=["collections"])
    async def collection(name: str, tenant: str = Depends(tenant_of)) -> dict[str, Any]:
        """One collection: its manifest, total points and the caller's points."""
        data = await in_engine(lambda: readiness.detail(name, tenant))
        if data is None:
            raise ApiError(404, "collection_not_found", f"no collection named {name!r}")
        return data

    @app.post("/v1/feedback", tags=["feedback"])
    async def feedback(body: FeedbackRequest, tenant: str = Depends(tenant_of)) -> JSONResponse:
        """Rate an answer (one per trace; a second submission updates it)."""
        data = await in_engine(
            lambda: engine.ops.submit_feedback(
                body.trace_id,
                body.rating,
                comment=body.comment,
                tenant=tenant,
                conversation_id=body.conversation_id,
            )
        )
        return JSONResponse(_jsonable(data))

    @app.get("/v1/traces/{trace_id}", tags=["feedback"])
    async def trace(trace_id: str, tenant: str = Depends(tenant_of)) -> JSONResponse:
        """One retrieval trace of the caller's tenant."""
        data = await in_engine(lambda: engine.ops.get_trace(trace_id, tenant=tenant))
        if data is None:
            raise ApiError(404, "trace_not_found", f"no trace {trace_id!r}")
        return JSONResponse(_jsonable(data))

    @app.get("/", include_in_schema=False)
    async def playground() -> HTMLResponse:
        page = resources.files("sectio.api").joinpath("static/index.html").read_text("utf-8")
        return HTMLResponse(page)

    app.state.sectio = engine
    app.state.readiness = readiness
    app.state.metrics = metrics
    app.state.batchers = {"query": queries, "trace": traces}
    app.state.request_context = request_context
    return app


def _jsonable(data: Any) -> Any:
    if hasattr(data, "model_dump"):
        return data.model_dump(mode="json")
    if hasattr(data, "as_dict"):
        data = data.as_dict()
    return jsonable_encoder(data)
