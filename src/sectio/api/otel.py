"""ASGI middleware: one OpenTelemetry server span per HTTP request.

The incoming W3C ``traceparent`` (and ``tracestate``) is the span's parent;
the span carries the method, path, status and ``X-Request-ID``. The engine
call runs inside it (context variables follow the request into the engine
thread), so the ``sectio.ask``/``sectio.search`` spans and their stages are
its children. Tracing off (:func:`sectio.telemetry.tracer` is None): the
request passes straight through.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sectio import telemetry


class TracingMiddleware:
    """A ``SERVER`` span around each HTTP request (see the module doc)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        tracer = telemetry.tracer() if scope["type"] == "http" else None
        if tracer is None:
            await self.app(scope, receive, send)
            return
        from opentelemetry.trace import SpanKind, Status, StatusCode
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        carrier = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        parent = TraceContextTextMapPropagator().extract(carrier)
        method, path = scope.get("method", ""), scope.get("path", "")
        attrs = {"http.request.method": method, "url.path": path}
        with tracer.start_as_current_span(
            f"{method} {path}", context=parent, kind=SpanKind.SERVER, attributes=attrs
        ) as span:

            async def traced_send(message: Message) -> None:
                if message["type"] == "http.response.start":
                    status = int(message["status"])
                    span.set_attribute("http.response.status_code", status)
                    for key, value in message.get("headers", []):
                        if key.lower() == b"x-request-id":
                            span.set_attribute("sectio.request_id", value.decode("latin-1"))
                    if status >= 500:
                        span.set_status(Status(StatusCode.ERROR))
                await send(message)

            await self.app(scope, receive, traced_send)
