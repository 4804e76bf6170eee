"""OpenTelemetry spans: one per request, per retrieval call, per pipeline stage, per engine query.

Optional (``pip install 'sectio[otel]'``). Spans are made only when the
OpenTelemetry API is importable **and** a tracer provider has been installed
(by :func:`setup_from_env`, which ``sectio serve`` and ``sectio mcp`` call, or
by the application embedding sectio). Otherwise every helper here returns at
once: no span, no cost beyond one check. The API itself is imported by the first
helper that asks for it, not with sectio (a command that makes no span, such as
``sectio info``, never imports it).

The spans, parent first::

    POST /v1/retrieve              the HTTP request: FastAPI's own server span (>= 0.142),
    │                              parent: the incoming ``traceparent``
    └── fastapi.endpoint           (FastAPI's)
      └── sectio.ask                 one per ask / search / lookup call: collection,
          │                        tenant, route (or mode), decision, evidence count
          ├── sectio.stage.route   one per pipeline stage (route, rerank, hydrate,
          │   ├── sectio.resolve   pack, decide): route, decision, evidence so far
          │   ├── sectio.embed     a query embedding (``sectio.embed.cached``)
          │   └── sectio.engine.*  each engine query (search_dense, scroll, ...): hits
          ├── sectio.stage.rerank ...
    sectio.trace_write             traces written to the store (the server: a batch)

Attributes are ``sectio.*`` (see :func:`result_attributes`). Export: OTLP over
HTTP, configured by the standard ``OTEL_*`` variables (endpoint, headers,
service name, sampler).

Example:
    >>> with span("sectio.example", {"sectio.n": 1}) as s:  # None when tracing is off
    ...     pass
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

    from sectio.contract.result import RetrievalResult, SearchResult

AttrValue = str | int | float | bool
TRACER_NAME = "sectio"


@functools.cache
def _api() -> ModuleType | None:
    """``opentelemetry.trace`` (the API alone: spans need a provider installed, see the
    module doc), imported on first use; None when it is not installed."""
    try:
        from opentelemetry import trace
    except ImportError:  # pragma: no cover - exercised in an install without the extra
        return None
    return trace


#: The engine calls that read (each gets a ``sectio.engine.<name>`` span).
ENGINE_QUERIES = frozenset(
    {
        "search_dense",
        "search_sparse",
        "search_fused",
        "scroll",
        "retrieve",
        "count",
    }
)


def tracer() -> Tracer | None:
    """sectio's tracer if tracing is on (API importable, a provider installed), else None."""
    trace = _api()
    if trace is None:
        return None
    provider = trace.get_tracer_provider()
    # the provider types that mean "nothing installed": no spans
    if type(provider) in (trace.ProxyTracerProvider, trace.NoOpTracerProvider):
        return None
    from sectio._version import __version__

    return provider.get_tracer(TRACER_NAME, __version__)


_OFF: contextlib.nullcontext[None] = contextlib.nullcontext()


def span(
    name: str, attributes: Mapping[str, AttrValue] | None = None
) -> contextlib.AbstractContextManager[Span | None]:
    """A span named ``name`` under the current one (None and nothing done when tracing is off).

    An exception escaping the block is recorded on the span and re-raised.
    """
    t = tracer()
    if t is None:
        return _OFF
    return t.start_as_current_span(name, attributes=dict(attributes or {}))


def set_attributes(current: Span | None, attributes: Mapping[str, AttrValue | None]) -> None:
    """Set the non-None ``attributes`` on ``current`` (nothing when it is None)."""
    if current is not None:
        current.set_attributes({k: v for k, v in attributes.items() if v is not None})


def result_attributes(result: RetrievalResult | SearchResult) -> dict[str, AttrValue | None]:
    """``sectio.*`` attributes of a result: route or mode, decision, counts, trace id."""
    from sectio.contract.result import RetrievalResult

    if isinstance(result, RetrievalResult):
        return {
            "sectio.route": result.route,
            "sectio.decision": result.decision,
            "sectio.evidence_count": len(result.evidence),
            "sectio.omitted_count": len(result.omitted_evidence_ids),
            "sectio.resolved_doc_id": result.resolved_doc_id,
            "sectio.resolved_section_key": result.resolved_section_key,
        }
    return {
        "sectio.mode": result.mode,
        "sectio.top_k": result.top_k,
        "sectio.evidence_count": len(result.hits),
    }


@contextlib.contextmanager
def call_span(kind: str, collection: str, tenant: str) -> Iterator[Span | None]:
    """The span of one ``ask`` / ``search`` / ``lookup`` call; :func:`set_attributes` the
    result's :func:`result_attributes` on what it yields."""
    with span(f"sectio.{kind}", {"sectio.collection": collection, "sectio.tenant": tenant}) as s:
        yield s


@contextlib.contextmanager
def stage_span(name: str, turn: Any) -> Iterator[None]:
    """The span of one pipeline stage; after it, the turn's route, decision and evidence.

    ``turn`` is a :class:`sectio.retrieve.routes.base.Turn` (read, never changed).
    """
    with span(f"sectio.stage.{name}") as current:
        yield
        if current is not None:
            outcome = getattr(turn, "outcome", None)
            set_attributes(
                current,
                {
                    "sectio.route": getattr(outcome, "route", None),
                    "sectio.evidence_count": len(outcome.evidence) if outcome else None,
                    "sectio.decision": getattr(turn, "decision", None),
                },
            )


def current_traceparent() -> str | None:
    """The W3C ``traceparent`` of the active span (to send downstream), else None."""
    trace = _api()
    if trace is None:
        return None
    ctx = trace.get_current_span().get_span_context()
    if not ctx.is_valid:
        return None
    return f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-{int(ctx.trace_flags):02x}"


class TracedIndex:
    """A :class:`~sectio.index.port.VectorIndex` whose queries (:data:`ENGINE_QUERIES`)
    each run in a ``sectio.engine.<name>`` span; everything else passes through.

    Build it with :func:`traced_index`: the class it makes defines each query the
    inner index has, so capability checks (``isinstance(index, SomeProtocol)``)
    answer as they would for the inner index.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


#: One traced class per index class (made on first use).
_TRACED_CLASSES: dict[type, type[TracedIndex]] = {}


def _traced_class(inner_type: type) -> type[TracedIndex]:
    if inner_type in _TRACED_CLASSES:
        return _TRACED_CLASSES[inner_type]
    methods = {
        name: _traced_method(name)
        for name in ENGINE_QUERIES
        if callable(getattr(inner_type, name, None))
    }
    made = type(f"Traced{inner_type.__name__}", (TracedIndex,), methods)
    _TRACED_CLASSES[inner_type] = made
    return made


def traced_index(inner: Any) -> TracedIndex:
    """``inner`` with its queries traced (see :class:`TracedIndex`)."""
    return _traced_class(type(inner))(inner)


def _traced_method(name: str) -> Callable[..., Any]:
    def call(self: TracedIndex, *args: Any, **kwargs: Any) -> Any:
        with span(f"sectio.engine.{name}") as current:
            out = getattr(self._inner, name)(*args, **kwargs)
            hits = out[0] if isinstance(out, tuple) and out else out  # (points, next) or points
            set_attributes(current, {"sectio.hits": len(hits) if isinstance(hits, list) else None})
            return out

    call.__name__ = name
    return call


class _HasIndex(Protocol):
    index: Any


_C = TypeVar("_C", bound=_HasIndex)


def instrument_collection(collection: _C) -> _C:
    """``collection`` (an open collection) with its index's queries traced, when tracing
    is on (else as is). Typed structurally: this module sits below the index layer."""
    if tracer() is None or isinstance(collection.index, TracedIndex):
        return collection
    collection.index = traced_index(collection.index)
    return collection


def setup_from_env(service_name: str = "sectio") -> bool:
    """Install an OTLP (HTTP) exporting tracer provider from the ``OTEL_*`` variables.

    Does nothing (False) when the SDK is not installed, ``OTEL_SDK_DISABLED``
    is true, no ``OTEL_EXPORTER_OTLP_ENDPOINT`` /
    ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` is set, or a provider is already
    installed (the host application's wins). ``OTEL_SERVICE_NAME`` overrides
    ``service_name``; the exporter reads its own variables (headers, timeout).
    """
    env = os.environ  # the OpenTelemetry SDK's own contract, not a sectio setting
    trace = _api()
    if env.get("OTEL_SDK_DISABLED", "").lower() == "true" or trace is None:
        return False
    if not (
        env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    ):
        return False
    if tracer() is not None:
        return False
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        return False
    attrs = {} if env.get("OTEL_SERVICE_NAME") else {"service.name": service_name}
    provider = TracerProvider(resource=Resource.create(attrs))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    return True
