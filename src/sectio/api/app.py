"""``create_app(settings)``: the FastAPI service over one :class:`sectio.Sectio`.

This module only assembles: the settings, the shared state
(:class:`sectio.api.state.ApiState`, which also explains the serving model),
the lifespan, the middleware, the error handlers (:mod:`sectio.api.errors`)
and the routers (:mod:`sectio.api.routes`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from sectio._version import __version__
from sectio.api.auth import KeyRing
from sectio.api.docs import ASSETS, declare_bearer_auth
from sectio.api.errors import install_error_handlers
from sectio.api.json_body import JsonBodyDefault
from sectio.api.middleware import RequestMiddleware
from sectio.api.routes import ROUTERS
from sectio.api.state import ApiState
from sectio.engine import Sectio
from sectio.settings import Settings, load_settings

DESCRIPTION = (
    "Exact, sectioned retrieval for grounded RAG. Every request is scoped to the "
    "tenant of its API key (`Authorization: Bearer <key>`)."
)


def server_settings(settings: Settings) -> Settings:
    """``settings`` as the server runs them: one model thread unless ``SECTIO_EMBED_THREADS``.

    Under concurrent load ONNX's second thread spins against the engine thread
    (8 clients, fresh questions: /v1/search 107 -> 139 req/s, server CPU per
    request 15 -> 9 ms); a lone question takes ~7 ms, not ~4.5.
    """
    if settings.embed_threads is None:
        return settings.model_copy(update={"embed_threads": 1})
    return settings


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Start the app's state (readiness, model, background tasks); stop it on shutdown."""
    state: ApiState = app.state.api
    await state.start()
    try:
        yield
    finally:
        await state.stop()


def create_app(settings: Settings | None = None, sectio: Sectio | None = None) -> FastAPI:
    """Build the app. ``sectio`` may be injected (tests); otherwise built from ``settings``.

    The state is ``app.state.api`` (:class:`sectio.api.state.ApiState`).

    Raises:
        ConfigError: malformed API keys, or a SECTIO_* setting that does not validate.
    """
    settings = server_settings(settings or load_settings())
    keys = KeyRing.from_settings(settings)
    state = ApiState(settings, sectio or Sectio(settings), keys, owns_engine=sectio is None)
    app = FastAPIOffline(  # /docs and /redoc from files in the wheel, not a CDN
        title="sectio",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        static_url=ASSETS,
    )
    app.state.api = state
    app.add_middleware(JsonBodyDefault)
    app.add_middleware(
        RequestMiddleware,
        max_body_bytes=settings.max_body_bytes,
        keys=keys,
        admin_max_body_bytes=settings.admin_max_body_bytes,
    )
    install_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    declare_bearer_auth(app)
    return app
