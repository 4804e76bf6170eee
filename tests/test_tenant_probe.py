"""Tenants learn nothing of each other: caches, BM25 statistics, /metrics, every endpoint.

The cross-tenant probe: a second tenant (globex) records everything it can
observe (bodies, headers that are not per-request, the metrics it may read)
for every HTTP endpoint and MCP tool; then the first tenant (acme) asks
questions and loads a corpus; globex's observations must not change. Real
app (TestClient), real Qdrant Edge on tmp_path, the fake embedder.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from sectio import Sectio, Settings
from sectio.api.app import create_app
from sectio.embed.cache import CachedEmbedder
from sectio.index.edge.readonly import copy_tree
from sectio.testing import FakeEmbedder
from tests.helpers import chunk, write_jsonl
from tests.helpers.api import ACME, GLOBEX, KEYS, label_rows

SECRET_QUESTION = "does patient 4711 on zorblax have hepatitis"


# --- the query-embedding cache is per tenant -------------------------------------------
def test_the_query_cache_is_keyed_by_tenant(tmp_path: Path) -> None:
    from sectio.context import query_scope

    c = CachedEmbedder(FakeEmbedder(dimensions=8), tmp_path / "e.sqlite", query_cache_size=16)
    token = query_scope.set("acme")
    try:
        first = c.embed_query(SECRET_QUESTION)
    finally:
        query_scope.reset(token)
    token = query_scope.set("globex")
    try:
        second = c.embed_query(SECRET_QUESTION)  # not a hit: acme's question is acme's
        assert (c.stats.queries_computed, c.stats.queries_cached) == (2, 0)
        c.embed_query(SECRET_QUESTION)
        assert c.stats.queries_cached == 1
    finally:
        query_scope.reset(token)
    assert np.array_equal(first, second)


def test_prefetch_keeps_each_vector_under_its_tenant(tmp_path: Path) -> None:
    from sectio.context import query_scope

    c = CachedEmbedder(FakeEmbedder(dimensions=8), tmp_path / "e.sqlite", query_cache_size=16)
    assert c.prefetch_queries(["q", "q"], ["acme", "globex"]) == 2
    token = query_scope.set("globex")
    try:
        c.embed_query("q")  # its own prefetched vector: computed once, not a hit
        assert (c.stats.queries_computed, c.stats.queries_cached) == (2, 0)
    finally:
        query_scope.reset(token)
    with pytest.raises(ValueError):
        c.prefetch_queries(["a", "b"], ["acme"])


# --- BM25 IDF on a shared edge collection is per tenant --------------------------------
def _bm25_score(s: Sectio, collection: str) -> float:
    hit = s.search("zorblax", collection=collection, tenant="b", mode="lexical").hits[0]
    assert hit.chunk_id == "b1" and hit.scores is not None
    return float(next(iter(hit.scores.values())).score)


def test_one_tenants_bm25_scores_do_not_depend_on_anothers_corpus(tmp_path: Path) -> None:
    b = [
        chunk("b1", "s", 0, "zorblax hepatitis note", tenant="b", chunk_id="b1"),
        chunk("b2", "s", 0, "plain other words", tenant="b", chunk_id="b2"),
    ]
    # same lengths either way (the corpus avg_len is the collection's): only the word differs
    with_word = [chunk(f"a{i}", "s", 0, f"zorblax record n{i}", tenant="a") for i in range(30)]
    without = [chunk(f"a{i}", "s", 0, f"qwertyx record n{i}", tenant="a") for i in range(30)]
    with Sectio(Settings(home=tmp_path / "h", embedder="fake", traces=False)) as s:
        s.ingest(write_jsonl(tmp_path / "x.jsonl", b + with_word), collection="x")
        s.ingest(write_jsonl(tmp_path / "y.jsonl", b + without), collection="y")
        assert _bm25_score(s, "x") == pytest.approx(_bm25_score(s, "y"), rel=1e-6)


# --- /metrics is protected, and holds no tenant's figures ------------------------------
@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("probe")
    rows = label_rows("acme") + label_rows("globex")
    with Sectio(Settings(home=root / "home", embedder="fake", traces=False)) as s:
        s.ingest(write_jsonl(root / "labels.jsonl", rows), profile="en_drug_label")
    return root / "home"


def _settings(home: Path, **extra: Any) -> Settings:
    return Settings(home=home, embedder="fake", api_keys=KEYS, **extra)


def test_metrics_answers_loopback_only_without_a_token(home: Path) -> None:
    app = create_app(_settings(home))
    with TestClient(app, client=("10.1.2.3", 40000)) as remote:
        assert remote.get("/metrics", headers=ACME).status_code == 401
    with TestClient(app, client=("127.0.0.1", 40000)) as local:
        assert local.get("/metrics").status_code == 200


def test_metrics_with_a_token_needs_that_token(home: Path) -> None:
    app = create_app(_settings(home, metrics_token="m-secret"))
    with TestClient(app, client=("10.1.2.3", 40000)) as remote:
        assert remote.get("/metrics").status_code == 401
        assert remote.get("/metrics", headers=ACME).status_code == 401  # an API key is not it
        ok = remote.get("/metrics", headers={"Authorization": "Bearer m-secret"})
    assert ok.status_code == 200 and "sectio_requests" in ok.text
    for line in ok.text.splitlines():
        assert "tenant=" not in line and "acme" not in line and "globex" not in line


def test_head_readyz_and_healthz_answer(home: Path) -> None:
    with TestClient(create_app(_settings(home))) as c:
        assert c.head("/readyz").status_code == 200
        assert c.head("/healthz").status_code == 200


# --- the probe: nothing globex observes changes with acme's queries or corpus ----------
VOLATILE_HEADERS = {"x-request-id", "date", "content-length"}
VOLATILE_KEYS = {"trace_id", "timings_ms", "created_at", "updated_at", "feedback_id", "total"}


def _stable(value: Any) -> Any:
    """``value`` without per-request fields (ids, timings)."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _http_view(c: TestClient) -> list[Any]:
    """Everything globex sees of each endpoint (and of the metrics it cannot read)."""
    view: list[Any] = []
    calls: list[tuple[str, str, dict[str, Any] | None]] = [
        ("POST", "/v1/retrieve", {"query": SECRET_QUESTION}),
        ("POST", "/v1/retrieve", {"query": "what are the contraindications of aspirin"}),
        ("POST", "/v1/search", {"query": SECRET_QUESTION}),
        ("POST", "/v1/search", {"query": "zorblax", "mode": "lexical"}),
        ("POST", "/v1/lookup", {"phrase": "bleeding disorder"}),
        ("GET", "/v1/collections", None),
        ("GET", "/v1/collections/default", None),
        ("GET", "/v1/traces/00000000-0000-0000-0000-000000000000", None),
        (
            "POST",
            "/v1/feedback",
            {"trace_id": "00000000-0000-0000-0000-000000000000", "rating": "helpful"},
        ),
        ("GET", "/readyz", None),
        ("GET", "/metrics", None),
    ]
    for method, path, body in calls:
        r = c.request(method, path, json=body, headers=GLOBEX)
        headers = {k: v for k, v in r.headers.items() if k not in VOLATILE_HEADERS}
        try:
            shown: Any = _stable(r.json())
        except json.JSONDecodeError:
            shown = r.text
        view.append((method, path, r.status_code, headers, shown))
    return view


def _acme_activity(c: TestClient, root: Path) -> None:
    for q in (SECRET_QUESTION, "zorblax zorblax hepatitis", "aspirin bleeding"):
        assert c.post("/v1/search", json={"query": q}, headers=ACME).status_code == 200
        assert c.post("/v1/retrieve", json={"query": q}, headers=ACME).status_code == 200
    c.post("/v1/lookup", json={"phrase": "zorblax"}, headers=ACME)


def _mcp_view(s: Sectio, tenant: str) -> list[Any]:
    from sectio.mcp.server import SectioTools

    tools = SectioTools(s, lambda ctx: tenant)

    async def run() -> list[Any]:
        ctx: Any = None
        out: list[Any] = []
        out.append((await tools.ask(SECRET_QUESTION, ctx)).model_dump(mode="json"))
        out.append((await tools.search(SECRET_QUESTION, ctx)).model_dump(mode="json"))
        out.append((await tools.search("zorblax", ctx, mode="lexical")).model_dump(mode="json"))
        out.append((await tools.lookup("bleeding disorder", ctx)).model_dump(mode="json"))
        out.append((await tools.list_collections(ctx)).model_dump(mode="json"))
        return [_stable(o) for o in out]

    return asyncio.run(run())


@pytest.fixture
def probe_home(home: Path, tmp_path: Path) -> Iterator[Path]:

    copy_tree(home, tmp_path / "home")
    yield tmp_path / "home"


#: Tenants reach the service over the network, never from its loopback.
REMOTE = ("10.9.9.9", 40000)


def test_cross_tenant_probe_over_http(probe_home: Path, tmp_path: Path) -> None:
    with TestClient(create_app(_settings(probe_home)), client=REMOTE) as c:
        before = _http_view(c)
        _acme_activity(c, tmp_path)
        after_queries = _http_view(c)
    # acme loads more text that shares globex's words (a second process, as an operator would)
    extra = [
        chunk(f"z{i}", "adverse_reactions", 0, "zorblax hepatitis bleeding aspirin", tenant="acme")
        for i in range(20)
    ]
    with Sectio(Settings(home=probe_home, embedder="fake", traces=False)) as s:
        more = write_jsonl(tmp_path / "more.jsonl", label_rows("acme") + extra)
        s.ingest(more, profile="en_drug_label", replace=True)
    with TestClient(create_app(_settings(probe_home)), client=REMOTE) as c:
        after_corpus = _http_view(c)
    assert after_queries == before
    assert after_corpus == before


def test_cross_tenant_probe_over_mcp(probe_home: Path) -> None:
    pytest.importorskip("mcp")
    with Sectio(Settings(home=probe_home, embedder="fake", traces=False)) as s:
        before = _mcp_view(s, "globex")
        _mcp_view(s, "acme")
        assert _mcp_view(s, "globex") == before
