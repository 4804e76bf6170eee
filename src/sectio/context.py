"""Per-request context that travels into the trace a request writes.

The HTTP layer sets it (request id, W3C trace id); :meth:`sectio.Sectio.record`
reads it when no explicit ``correlation_id`` / ``otel_trace_id`` is given.
Context variables follow the request into the engine's worker thread.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class RequestContext:
    """What a request carries into the trace it writes."""

    request_id: str
    otel_trace_id: str | None = None


request_context: ContextVar[RequestContext | None] = ContextVar("sectio_request", default=None)


#: The tenant whose questions are being embedded: the query LRU's first key part
#: (:mod:`sectio.embed.cache`). Every tenant-scoped call of :class:`sectio.Sectio` sets
#: it; unset, queries share the scope ``""``.
query_scope: ContextVar[str] = ContextVar("sectio_query_scope", default="")
