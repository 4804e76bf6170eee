"""How the MCP server is reached: stdio (one configured tenant) or streamable HTTP (key -> tenant).

Over HTTP every request needs ``Authorization: Bearer <key>`` when keys are
configured (``SECTIO_API_KEYS``/``_FILE``, as ``sectio serve``): a missing or
unknown key is answered 401 before the MCP layer; each tool call reads the
tenant from its own request's key. With no keys the tenant is the
configured one (the CLI refuses to bind beyond loopback then).
"""

from __future__ import annotations

import json

from mcp.server.mcpserver import Context
from starlette.types import ASGIApp, Receive, Scope, Send

from sectio.api.auth import KeyRing
from sectio.mcp.server import TenantOf


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, else None."""
    scheme, _, token = (header or "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def tenant_resolver(keys: KeyRing, default: str) -> TenantOf:
    """The tenant of a tool call: its HTTP request's key's when keys are on, else ``default``.

    A call over HTTP whose key maps to no tenant is refused (the middleware already
    answered 401; this is the second check).
    """

    def tenant_of(ctx: Context) -> str:
        headers = ctx.headers
        if headers is None or not keys.enabled:  # stdio, or HTTP without keys
            return default
        tenant = keys.tenant_for(bearer(headers.get("authorization")))
        if tenant is None:
            raise PermissionError("missing or invalid API key")
        return tenant

    return tenant_of


class KeyMiddleware:
    """401 ``unauthorized`` for an HTTP request without a known key (keys configured)."""

    def __init__(self, app: ASGIApp, keys: KeyRing) -> None:
        self.app, self.keys = app, keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.keys.enabled:
            auth = next((v for k, v in scope["headers"] if k.lower() == b"authorization"), b"")
            if self.keys.tenant_for(bearer(auth.decode("latin-1"))) is None:
                body = json.dumps(
                    {"error": {"code": "unauthorized", "message": "missing or invalid API key"}}
                ).encode()
                headers = [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]
                await send({"type": "http.response.start", "status": 401, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
