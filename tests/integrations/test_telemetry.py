"""OpenTelemetry spans, read from the SDK's in-memory exporter; and nothing when tracing is off."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.util._once import Once

from sectio import Sectio, Settings, telemetry
from sectio.api import create_app
from sectio.client._core import make_call
from sectio.retrieve.calibration import CALIBRATION_SPAN
from tests.helpers.api import ACME, KEYS
from tests.helpers.servers import QUESTIONS, build_label_home

INCOMING_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
INCOMING_SPAN = "00f067aa0ba902b7"


def _reset_global_provider() -> None:
    """What opentelemetry-test-utils' ``reset_trace_globals`` does: the global provider may
    otherwise be set once per process."""
    trace._TRACER_PROVIDER_SET_ONCE = Once()  # type: ignore[attr-defined]
    trace._TRACER_PROVIDER = None  # type: ignore[attr-defined]


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """Tracing on for one test: an SDK provider exporting to memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    _reset_global_provider()
    trace.set_tracer_provider(provider)
    yield exporter
    provider.shutdown()
    _reset_global_provider()


def by_name(finished: tuple[ReadableSpan, ...], name: str) -> ReadableSpan:
    found = [s for s in finished if s.name == name]
    assert found, f"no span {name}; have {sorted({s.name for s in finished})}"
    return found[0]


def parent_of(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def test_request_ask_and_stage_spans_under_the_incoming_traceparent(
    spans: InMemorySpanExporter, tmp_path: Path
) -> None:
    settings = Settings(home=build_label_home(tmp_path / "home"), embedder="fake", api_keys=KEYS)
    headers = {**ACME, "traceparent": f"00-{INCOMING_TRACE}-{INCOMING_SPAN}-01"}
    with TestClient(create_app(settings)) as client:
        body = {"query": QUESTIONS["fallback"]}
        assert client.post("/v1/retrieve", json=body, headers=headers).status_code == 200
    done = spans.get_finished_spans()
    (request,) = [s for s in done if s.name == "POST /v1/retrieve"]
    assert f"{request.context.trace_id:032x}" == INCOMING_TRACE
    assert parent_of(request) == int(INCOMING_SPAN, 16)
    assert request.attributes and request.attributes["http.response.status_code"] == 200
    ask = by_name(done, "sectio.ask")
    endpoint = by_name(done, "fastapi.endpoint")  # FastAPI's own spans: request > endpoint
    assert parent_of(ask) == endpoint.context.span_id
    assert parent_of(endpoint) == request.context.span_id
    assert ask.attributes is not None
    assert ask.attributes["sectio.route"] == "fallback_search"
    assert ask.attributes["sectio.tenant"] == "acme"
    assert ask.attributes["sectio.decision"] == "ANSWERABLE"
    assert int(str(ask.attributes["sectio.evidence_count"])) == 4
    # the first ranked read of a tenant calibrates the hybrid weights, in a span of its own
    calibration = by_name(done, CALIBRATION_SPAN)
    stages = [s.name for s in done if parent_of(s) == ask.context.span_id]
    names = ("route", "rerank", "hydrate", "pack", "answerability", "decide")
    assert stages == [CALIBRATION_SPAN] + [f"sectio.stage.{n}" for n in names]
    assert any(parent_of(s) == calibration.context.span_id for s in done)
    route = by_name(done, "sectio.stage.route")
    under_route = {s.name for s in done if parent_of(s) == route.context.span_id}
    assert "sectio.resolve" in under_route and "sectio.engine.search_dense" in under_route
    assert by_name(done, "sectio.embed").attributes == {"sectio.embed.cached": False}
    assert by_name(done, "sectio.trace_write").attributes == {
        "sectio.traces": 1,
        "sectio.written": 1,
    }


def test_library_search_span_and_outgoing_traceparent(
    spans: InMemorySpanExporter, settings: Settings, small_corpus: Path
) -> None:
    with Sectio(settings) as s:
        s.ingest(small_corpus)
        with telemetry.span("caller") as caller:
            assert caller is not None
            s.search("aspirin bleeding", tenant="default", top_k=3)
            call = make_call("POST", "/v1/search", {"query": "q"})
    ctx = caller.get_span_context()
    assert call.traceparent == f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-{ctx.trace_flags:02x}"
    done = spans.get_finished_spans()
    search = by_name(done, "sectio.search")
    assert parent_of(search) == ctx.span_id
    assert search.attributes is not None and search.attributes["sectio.mode"] == "hybrid"
    calibration = by_name(done, CALIBRATION_SPAN)  # once, before the call, its own span
    assert parent_of(calibration) == ctx.span_id
    engine = [
        s
        for s in done
        if s.name.startswith("sectio.engine.") and parent_of(s) != calibration.context.span_id
    ]
    assert all(parent_of(s) == search.context.span_id for s in engine)
    # one query per list (dense, then BM25; ids only), fused in Python, then the
    # fused top-n read by id
    assert [s.name for s in engine] == [
        "sectio.engine.search_dense",
        "sectio.engine.search_sparse",
        "sectio.engine.retrieve",
    ]
    assert engine[-1].attributes == {"sectio.hits": 3}


def test_no_spans_and_no_wrapping_when_tracing_is_off(sectio: Sectio, small_corpus: Path) -> None:
    assert telemetry.tracer() is None and telemetry.current_traceparent() is None
    sectio.ingest(small_corpus)
    assert sectio.search("aspirin", tenant="default").hits
    assert not isinstance(sectio.collection("default").index, telemetry.TracedIndex)
    with telemetry.span("nothing") as nothing:
        assert nothing is None


def test_sectio_runs_without_opentelemetry_installed(
    settings: Settings, small_corpus: Path
) -> None:
    with Sectio(settings) as s:
        s.ingest(small_corpus)
    script = (
        "import sys; sys.modules['opentelemetry'] = None\n"  # as if the extra were not installed
        "from sectio import Sectio, Settings, telemetry\n"
        f"s = Sectio(Settings(home={str(settings.home)!r}, embedder='fake'))\n"
        "print(telemetry.tracer(), s.ask('aspirin', tenant='default').route)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["None", "overview"]
