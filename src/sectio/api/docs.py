"""``/docs`` and ``/redoc`` without a network, and the bearer auth the OpenAPI declares.

FastAPI's default pages load Swagger UI and ReDoc from a CDN (blank offline).
:func:`create_app` builds the app with ``fastapi-offline`` (``FastAPIOffline``:
FastAPI's self-hosting recipe, with Swagger UI 5 and ReDoc shipped inside the
wheel and served under :data:`ASSETS`; no Google fonts).

:func:`declare_bearer_auth` declares every ``/v1/*`` operation as secured by
``bearerAuth`` (HTTP bearer: the API key): ``/docs`` gets its Authorize button
and "Try it out" sends the key. ``/healthz``, ``/readyz``, ``/metrics`` and the
playground are public.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

#: Where the packaged Swagger UI / ReDoc files are served.
ASSETS = "/docs-assets"
SCHEME = "bearerAuth"


def declare_bearer_auth(app: FastAPI) -> None:
    """Make ``app.openapi()`` declare the ``bearerAuth`` scheme (built once, then cached)."""
    plain = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = with_bearer_auth(plain())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def with_bearer_auth(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with a ``bearerAuth`` scheme, required by every ``/v1/`` operation."""
    components = spec.setdefault("components", {})
    components.setdefault("securitySchemes", {})[SCHEME] = {
        "type": "http",
        "scheme": "bearer",
        "description": "An API key of SECTIO_API_KEYS; the request's tenant is the key's.",
    }
    for path, operations in spec.get("paths", {}).items():
        if path.startswith("/v1/"):
            for op in operations.values():
                op["security"] = [{SCHEME: []}]
    return spec
