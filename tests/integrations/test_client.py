"""sectio.client against a real ``sectio serve``: the library's models, errors, retries, headers."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from sectio.client import AsyncSectioClient, RetryPolicy, SectioClient
from sectio.contract.result import RetrievalResult
from sectio.errors import CollectionNotFound, RemoteError, ServiceUnreachable, TraceNotFound
from tests.helpers.servers import QUESTIONS, free_port
from tests.integrations.conftest import Remote, chunk_ids

FAST = RetryPolicy(retries=2, backoff_s=0.01, max_backoff_s=0.05)


def test_results_are_the_library_models_and_match_the_cli(remote: Remote) -> None:
    expected, remote_url = remote.answers["ask", QUESTIONS["section"]], remote.url
    with SectioClient(remote_url, api_key="key-acme", retry=FAST) as client:
        result = client.ask(QUESTIONS["section"])
        assert isinstance(result, RetrievalResult)
        assert result.tenant == "acme" and result.route == expected["route"] == "section"
        assert [e.chunk_id for e in result.evidence] == chunk_ids(expected)
        assert [r.model_dump() for r in result.evidence[0].source_refs] == [
            {"source": "label", "page": None, "url": "https://example.org/aspirin"}
        ]
        hits = client.search("bleeding", top_k=3, mode="lexical").hits
        assert hits and all(h.chunk_id.startswith("acme:") for h in hits)
        looked = client.lookup("pain")
        assert looked.route == "lookup" and looked.tenant == "acme"
        assert [c["name"] for c in client.collections()] == ["default"]
        assert client.collection("default")["tenant_count"] == 4
        assert client.ready()["ready"] is True
        stored = client.feedback(str(result.trace_id), "helpful", comment="exact section")
        assert stored["rating"] == "helpful"


def test_request_id_and_traceparent_reach_the_trace(remote: Remote) -> None:
    remote_url = remote.url
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    with SectioClient(remote_url, api_key="key-acme", retry=FAST) as client:
        result = client.ask(
            QUESTIONS["overview"],
            request_id="req-client-1",
            traceparent=f"00-{trace_id}-00f067aa0ba902b7-01",
        )
        trace = client.trace(str(result.trace_id))
    assert trace["correlation_id"] == "req-client-1"
    assert trace["otel_trace_id"] == trace_id


def test_errors_map_onto_the_one_tree(remote: Remote) -> None:
    remote_url = remote.url
    with SectioClient(remote_url, api_key="key-acme", retry=FAST) as client:
        with pytest.raises(CollectionNotFound, match="nope"):
            client.ask("aspirin", collection="nope")
        with pytest.raises(TraceNotFound):
            client.trace("00000000-0000-0000-0000-000000000000")
        with pytest.raises(RemoteError) as caught:
            client.ask("x" * 5000)
        assert (caught.value.status, caught.value.code) == (422, "invalid_request")
    with SectioClient(remote_url, api_key="wrong", retry=FAST) as client:
        with pytest.raises(RemoteError) as caught:
            client.search("aspirin")
        assert caught.value.status == 401 and caught.value.request_id


def test_connection_errors_are_retried_then_unreachable() -> None:
    client = SectioClient(f"http://127.0.0.1:{free_port()}", retry=FAST, timeout_s=2)
    with pytest.raises(ServiceUnreachable, match="after 3 tries"):
        client.search("aspirin")


def test_503_is_retried_with_the_same_request_id() -> None:
    seen: list[httpx.Request] = []
    body = RetrievalResult(
        query="q", collection="default", tenant="t", decision="ABSTAIN", reason="r", route="x"
    ).model_dump(mode="json")

    def server(request: httpx.Request) -> httpx.Response:  # a fake service: 503, 503, 200
        seen.append(request)
        if len(seen) < 3:
            error = {"error": {"code": "store_unavailable", "message": "db down"}}
            return httpx.Response(503, json=error, headers={"Retry-After": "0"})
        return httpx.Response(200, json=body)

    client = SectioClient(
        "http://sectio", api_key="k", retry=FAST, transport=httpx.MockTransport(server)
    )
    assert client.ask("q", top_k=3).decision == "ABSTAIN"
    assert len(seen) == 3
    assert len({r.headers["x-request-id"] for r in seen}) == 1
    assert seen[0].headers["authorization"] == "Bearer k"
    assert json.loads(seen[0].content) == {"query": "q", "top_k": 3}


def test_503_after_every_retry_raises_the_named_error() -> None:
    from sectio.errors import StoreUnavailable

    def server(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, json={"error": {"code": "store_unavailable", "message": "down"}})

    client = SectioClient("http://sectio", retry=FAST, transport=httpx.MockTransport(server))
    with pytest.raises(StoreUnavailable, match="down"):
        client.lookup("pain")


def test_async_client_gives_the_same_answers(remote: Remote) -> None:
    remote_url = remote.url

    async def both() -> tuple[list[str], list[str]]:
        async with AsyncSectioClient(remote_url, api_key="key-globex", retry=FAST) as client:
            asked = await client.ask(QUESTIONS["section"])
            found = await client.search("bleeding", top_k=2)
            return [e.chunk_id for e in asked.evidence], [h.chunk_id for h in found.hits]

    asked, found = asyncio.run(both())
    with SectioClient(remote_url, api_key="key-globex", retry=FAST) as client:
        assert asked == [e.chunk_id for e in client.ask(QUESTIONS["section"]).evidence]
        assert found == [h.chunk_id for h in client.search("bleeding", top_k=2).hits]
    assert asked and all(c.startswith("globex:") for c in asked + found)
