"""ASGI middleware: request id, W3C traceparent, body size cap, JSON access log.

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


class _TooLarge(Exception):
    pass


class RequestMiddleware:
    """Request id, traceparent, body cap and an access log line per request."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

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
        try:
            if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
                await _reject(send, 413, "body_too_large", f"body over {self.max_body_bytes} bytes")
                status["code"] = 413
                return
            received = 0

            async def capped_receive() -> Message:
                nonlocal received
                message = await receive()
                if message["type"] == "http.request":
                    received += len(message.get("body", b""))
                    if received > self.max_body_bytes:
                        raise _TooLarge
                return message

            async def tagged_send(message: Message) -> None:
                if message["type"] == "http.response.start":
                    status["code"] = message["status"]
                    raw = list(message.get("headers", []))
                    raw.append((b"x-request-id", request_id.encode()))
                    message = {**message, "headers": raw}
                await send(message)

            try:
                await self.app(scope, capped_receive, tagged_send)
            except _TooLarge:
                status["code"] = 413
                await _reject(send, 413, "body_too_large", f"body over {self.max_body_bytes} bytes")
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
