"""Every front door applies the HTTP API's bounds; small input holes are closed.

MCP: a question over ``SECTIO_MAX_QUERY_CHARS``, a blank or zero-width-only
query, and an argument a tool does not take are refused. HTTP: a query of only
zero-width characters is blank. The CLI: the same bounds; ``purge`` refuses a
period no date can hold. Ingest: a tenant that would read as another is refused.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sectio import Sectio, Settings
from sectio.api.app import create_app
from sectio.cli import main
from sectio.errors import ContractError
from sectio.ops import InvalidInput, OpsStore
from tests.helpers import chunk, write_jsonl
from tests.helpers.api import ACME, KEYS, label_rows

ZERO_WIDTH = "\u200b\u200c\u200d\ufeff\u2060"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("doors")
    with Sectio(Settings(home=root / "home", embedder="fake", traces=False)) as s:
        s.ingest(write_jsonl(root / "l.jsonl", label_rows("acme")), profile="en_drug_label")
    return root / "home"


def test_http_refuses_a_query_of_only_zero_width_characters(home: Path) -> None:
    with TestClient(create_app(Settings(home=home, embedder="fake", api_keys=KEYS))) as c:
        for path, field in (
            ("/v1/search", "query"),
            ("/v1/retrieve", "query"),
            ("/v1/lookup", "phrase"),
        ):
            r = c.post(path, json={field: ZERO_WIDTH}, headers=ACME)
            assert r.status_code == 422 and "blank" in r.json()["error"]["message"], path
        nul = c.post("/v1/search", json={"query": "aspirin\u0000"}, headers=ACME)
        assert nul.status_code == 422 and "NUL" in nul.text


def _call(home: Path, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    pytest.importorskip("mcp")
    from sectio.mcp.server import build_server

    async def run() -> tuple[bool, str]:
        with Sectio(Settings(home=home, embedder="fake", traces=False)) as s:
            server = build_server(s, lambda ctx: "acme")
            try:
                result = await server.call_tool(tool, arguments)
            except Exception as exc:  # the SDK raises ToolError for a refused call
                return True, f"{type(exc).__name__}: {exc}"
            return False, str(result)[:300]

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("tool", "arguments", "match"),
    [
        ("ask", {"question": "aspirin " * 300}, "over 2000 characters"),
        ("search", {"query": ""}, "blank"),
        ("search", {"query": ZERO_WIDTH}, "blank"),
        ("lookup", {"phrase": "x" * 2001}, "over 2000"),
        ("ask", {"question": "aspirin", "tenant": "globex"}, "tenant"),
        ("search", {"query": "aspirin", "colection": "default"}, "colection"),
    ],
    ids=["long-ask", "empty-search", "zero-width", "long-lookup", "tenant-arg", "typo-arg"],
)
def test_mcp_refuses_what_http_refuses(
    home: Path, tool: str, arguments: dict[str, Any], match: str
) -> None:
    failed, text = _call(home, tool, arguments)
    assert failed and match in text, text


def test_mcp_answers_a_bounded_call(home: Path) -> None:
    failed, text = _call(home, "search", {"query": "aspirin"})
    assert not failed, text


def test_mcp_tools_publish_that_they_take_no_other_argument(home: Path) -> None:
    pytest.importorskip("mcp")
    from sectio.mcp.server import build_server

    async def schemas() -> list[dict[str, Any]]:
        with Sectio(Settings(home=home, embedder="fake")) as s:
            return [t.input_schema for t in await build_server(s, lambda c: "a").list_tools()]

    assert all(schema.get("additionalProperties") is False for schema in asyncio.run(schemas()))


def test_cli_applies_the_query_bound(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("SECTIO_HOME", str(home))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    monkeypatch.setenv("SECTIO_TRACES", "false")
    assert main(["search", "x" * 2001]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "over 2000 characters" in err
    assert main(["ask", ZERO_WIDTH, "--tenant", "acme"]) == 1
    assert "blank" in capsys.readouterr().err


def test_purge_refuses_a_period_no_date_can_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("SECTIO_HOME", str(tmp_path / "home"))
    assert main(["purge", "--older-than", "1000000"]) == 2
    err = capsys.readouterr().err
    assert "internal error" not in err and "1000000" in err
    monkeypatch.setenv("SECTIO_RETENTION_DAYS", "1000000")
    assert main(["purge", "--auto"]) == 1
    err = capsys.readouterr().err
    assert "internal error" not in err and "SECTIO_RETENTION_DAYS" in err
    assert err.count("\n") == 1
    store = OpsStore(f"sqlite:///{tmp_path / 'ops.sqlite3'}", auto_migrate=True)
    with pytest.raises(InvalidInput, match="0 to 36500"):
        store.purge_older_than(1_000_000)
    assert store.purge_older_than(36_500).traces == 0
    store.close()


@pytest.mark.parametrize("tenant", [" acme", "acme\u200b", "default ", "ac\tme"])
def test_ingest_refuses_a_tenant_that_would_read_as_another(tmp_path: Path, tenant: str) -> None:
    rows = [chunk("d", "s", 0, "text", tenant=tenant)]
    with Sectio(Settings(home=tmp_path / "h", embedder="fake", traces=False)) as s:
        with pytest.raises(ContractError, match="field tenant"):
            s.ingest(write_jsonl(tmp_path / "t.jsonl", rows), collection="t")
        assert "t" not in s.collection_names()  # nothing written
        s.ingest(write_jsonl(tmp_path / "ok.jsonl", [chunk("d", "s", 0, "x", tenant="acme corp")]))
