"""ASGI middleware: request id, W3C traceparent, API key gate, body size cap, JSON access log.

In order, before the app sees a request:

1. the API key gate: with keys configured, a ``/v1/`` request without a valid
   ``Authorization: Bearer`` key gets 401 before its body is read, let alone
   validated (an unauthenticated ``{`` is 401, not 422);
2. the body cap: a declared ``Content-Length`` over ``SECTIO_MAX_BODY_BYTES`` gets
   413 at once; any other body (chunked included) is read up to the cap and gets
   413 at the first byte past it. The app then reads the buffered body.

The request id (``X-Request-ID`` honoured or generated) is echoed back and
stored as the trace's ``correlation_id``; a valid ``traceparent`` header's
trace id is stored as ``otel_trace_id``. Both travel in
:data:`sectio.context.request_context`.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sectio.api.auth import KeyRing
from sectio.context import RequestContext, request_context

log = logging.getLogger("sectio.access")

_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")


def parse_traceparent(value: str | None) -> str | None:
    """The 32-hex trace id of a valid W3C ``traceparent`` (not all zeros), else None."""
    if not value:
        return None
    match = _TRACEPARENT.match(value.strip().lower())
    if not match or match.group(1) == "0" * 32:
        return None
    return match.group(1)


class JsonFormatter(logging.Formatter):
    """One JSON object per log line."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        ctx = request_context.get()
        if ctx is not None:
            data["request_id"] = ctx.request_id
        extra = getattr(record, "fields", None)
        if isinstance(extra, dict):
            data.update(extra)
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False, default=str)


#: Paths that need an API key (when keys are configured); the rest are public.
PROTECTED_PREFIX = "/v1/"
#: Document writes: their bodies are capped by ``SECTIO_ADMIN_MAX_BODY_BYTES``.
ADMIN_PREFIX = "/v1/admin/"


async def _read_body(receive: Receive, cap: int) -> tuple[list[Message], bool]:
    """The request's body messages, read until the last one or past ``cap`` bytes;
    and whether it went past (the rest is then left unread)."""
    messages: list[Message] = []
    received = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, False
        received += len(message.get("body", b""))
        if received > cap:
            return messages, True
        if not message.get("more_body", False):
            return messages, False


class RequestMiddleware:
    """Request id, traceparent, key gate, body cap and an access log line per request.

    ``keys`` (a :class:`sectio.api.auth.KeyRing`) turns the key gate on when it
    holds keys; None or an empty ring leaves it off.
    """

    def __init__(
        self,
        app: ASGIApp,
        max_body_bytes: int,
        keys: KeyRing | None = None,
        admin_max_body_bytes: int | None = None,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.keys = keys
        self.admin_max_body_bytes = admin_max_body_bytes or max_body_bytes

    def _unauthorized(self, scope: Scope, headers: dict[str, str]) -> bool:
        if self.keys is None or not self.keys.enabled:
            return False
        if not str(scope.get("path", "")).startswith(PROTECTED_PREFIX):
            return False
        return self.keys.tenant_for_header(headers.get("authorization")) is None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        given = headers.get("x-request-id", "")
        request_id = given if _REQUEST_ID.match(given) else uuid.uuid4().hex
        ctx = RequestContext(request_id, parse_traceparent(headers.get("traceparent")))
        token = request_context.set(ctx)
        started = time.perf_counter()
        status = {"code": 500}
        declared = headers.get("content-length")
        admin = str(scope.get("path", "")).startswith(ADMIN_PREFIX)
        cap = self.admin_max_body_bytes if admin else self.max_body_bytes
        setting = "SECTIO_ADMIN_MAX_BODY_BYTES" if admin else "SECTIO_MAX_BODY_BYTES"
        too_large = f"body over {cap} bytes ({setting})"
        try:
            if self._unauthorized(scope, headers):
                status["code"] = 401
                await _reject(send, 401, "unauthorized", "missing or invalid API key")
                return
            if declared is not None and declared.isdigit() and int(declared) > cap:
                status["code"] = 413
                await _reject(send, 413, "body_too_large", too_large)
                return
            buffered, over = await _read_body(receive, cap)
            if over:
                status["code"] = 413
                await _reject(send, 413, "body_too_large", too_large)
                return

            async def replay() -> Message:
                return buffered.pop(0) if buffered else await receive()

            async def tagged_send(message: Message) -> None:
                if message["type"] == "http.response.start":
                    status["code"] = message["status"]
                    raw = list(message.get("headers", []))
                    raw.append((b"x-request-id", request_id.encode()))
                    message = {**message, "headers": raw}
                await send(message)

            await self.app(scope, replay, tagged_send)
        finally:
            log.info(
                "request",
                extra={
                    "fields": {
                        "method": scope.get("method"),
                        "path": scope.get("path"),
                        "status": status["code"],
                        "ms": round((time.perf_counter() - started) * 1000, 2),
                        "otel_trace_id": ctx.otel_trace_id,
                    }
                },
            )
            request_context.reset(token)


async def _reject(send: Send, code: int, error: str, message: str) -> None:
    body = json.dumps({"error": {"code": error, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": code,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
