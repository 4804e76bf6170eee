"""``sectio mcp`` with the MCP SDK's own client, over stdio and over streamable HTTP."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.helpers.servers import QUESTIONS, build_label_home, free_port, running, server_env
from tests.integrations.conftest import CliAnswers, chunk_ids

TOOLS = {"ask", "search", "lookup", "feedback", "list_collections"}


async def call(client: Client, tool: str, **arguments: Any) -> tuple[bool, Any]:
    """``(is_error, structured content or the error text)`` of one tool call."""
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        return True, " ".join(getattr(c, "text", "") for c in result.content)
    return False, result.structured_content


def test_stdio_tools_answer_as_the_configured_tenant(
    cli_answers: CliAnswers, label_home: Path
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sectio.cli", "mcp", "--tenant", "acme"],
        env=server_env(label_home),
    )

    async def session() -> None:
        async with Client(params) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == TOOLS
            assert tools["ask"].input_schema["required"] == ["question"]
            assert "tenant" not in tools["ask"].input_schema["properties"]
            assert "decision" in (tools["ask"].output_schema or {}).get("properties", {})
            for question in QUESTIONS.values():
                failed, asked = await call(client, "ask", question=question)
                assert not failed and chunk_ids(asked) == chunk_ids(cli_answers["ask", question])
            failed, asked = await call(client, "ask", question=QUESTIONS["section"])
            assert asked["decision"] == "ANSWERABLE" and asked["tenant"] == "acme"
            assert asked["evidence"][0]["source_refs"][0]["source"] == "label"
            question = QUESTIONS["fallback"]
            failed, found = await call(client, "search", query=question, top_k=10)
            assert chunk_ids(found) == chunk_ids(cli_answers["search", question])
            assert all(h["chunk_id"].startswith("acme:") for h in found["hits"])
            failed, listed = await call(client, "list_collections")
            assert listed["collections"][0]["name"] == "default"
            assert listed["collections"][0]["chunks"] == 4
            failed, rated = await call(
                client, "feedback", trace_id=asked["trace_id"], rating="helpful"
            )
            assert not failed and rated["rating"] == "helpful"
            failed, text = await call(client, "ask", question="aspirin", collection="nope")
            assert failed and "CollectionNotFound" in text

    asyncio.run(session())


@pytest.fixture(scope="module")
def mcp_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``sectio mcp --transport http`` with the test keys, over its own label home."""
    home = build_label_home(tmp_path_factory.mktemp("mcp") / "home")
    port = free_port()
    args = ["mcp", "--transport", "http", "--port", str(port)]
    with running(args, server_env(home), f"http://127.0.0.1:{port}/mcp"):
        yield f"http://127.0.0.1:{port}/mcp"


def test_http_tools_answer_as_the_key_tenant(mcp_http: str) -> None:
    async def ask_as(key: str, refused: bool = False, **extra: Any) -> Any:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"})
        async with http, Client(streamable_http_client(mcp_http, http_client=http)) as client:
            failed, result = await call(client, "ask", question=QUESTIONS["section"], **extra)
            assert failed is refused, result
            return result if refused else dict(result)

    acme = asyncio.run(ask_as("key-acme"))
    # not an argument: refused (it was silently dropped), never obeyed
    smuggled = asyncio.run(ask_as("key-acme", refused=True, tenant="globex"))
    assert "tenant" in smuggled and "globex:" not in smuggled
    globex = asyncio.run(ask_as("key-globex"))
    assert acme["tenant"] == "acme" and chunk_ids(acme) == ["acme:aspirin#contraindications#0"]
    assert globex["tenant"] == "globex"
    assert chunk_ids(globex) == ["globex:aspirin#contraindications#0"]
    assert httpx.post(mcp_http, json={}).status_code == 401
    assert (
        httpx.post(mcp_http, json={}, headers={"Authorization": "Bearer nope"}).status_code == 401
    )
