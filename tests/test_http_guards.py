"""HTTP guards (issue 17 item 8): 413 for any oversized body (chunked too), the key
checked before the body, malformed JSON located, tenant-scoped collection detail,
readiness without filesystem paths unless asked with a key."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sectio import Sectio, Settings
from sectio.api import create_app
from sectio.api.readiness import redact_paths
from tests.helpers import write_jsonl
from tests.helpers.api import ACME, GLOBEX, KEYS, label_rows


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """acme (4 chunks) and globex (4) share ``default``; ``broken`` lost its shard."""
    tmp = tmp_path_factory.mktemp("guards")
    settings = Settings(home=tmp / "home", embedder="fake")
    corpus = write_jsonl(tmp / "labels.jsonl", label_rows("acme") + label_rows("globex"))
    with Sectio(settings) as s:
        s.ingest(corpus, profile="en_drug_label")
        s.ingest(corpus, profile="en_drug_label", collection="broken")
    [shard] = (settings.home / "collections" / "broken").glob("v-*/shard")
    shutil.rmtree(shard)
    return settings.home


@pytest.fixture(scope="module")
def client(home: Path) -> Iterator[TestClient]:
    settings = Settings(home=home, embedder="fake", api_keys=KEYS, max_body_bytes=2048)
    with TestClient(create_app(settings)) as c:
        yield c


def error(resp: Any, status: int, code: str) -> str:
    assert resp.status_code == status, resp.text
    body = resp.json()["error"]
    assert body["code"] == code and "\n" not in body["message"]
    return str(body["message"])


def test_any_oversized_body_is_413(client: TestClient) -> None:
    big = b'{"query": "' + b"a" * 4000 + b'"}'
    declared = client.post(
        "/v1/search", content=big, headers={**ACME, "content-type": "application/json"}
    )
    assert "over 2048 bytes" in error(declared, 413, "body_too_large")

    def chunks() -> Iterator[bytes]:
        for i in range(0, len(big), 500):
            yield big[i : i + 500]

    chunked = client.post(
        "/v1/search", content=chunks(), headers={**ACME, "content-type": "application/json"}
    )
    assert chunked.request.headers.get("transfer-encoding") == "chunked"
    error(chunked, 413, "body_too_large")
    small = client.post(
        "/v1/search",
        content=iter([b'{"query": ', b'"aspirin"}']),
        headers={**ACME, "content-type": "application/json"},
    )
    assert small.status_code == 200, small.text


def test_the_key_is_checked_before_the_body(client: TestClient) -> None:
    json_headers = {"content-type": "application/json"}
    for body in (b"{", b"x" * 5000, b'{"query": 1}'):
        resp = client.post("/v1/search", content=body, headers=json_headers)
        assert "API key" in error(resp, 401, "unauthorized")
        bad = client.post(
            "/v1/retrieve", content=body, headers={**json_headers, "Authorization": "Bearer no"}
        )
        error(bad, 401, "unauthorized")
    assert client.get("/healthz").status_code == 200  # public paths stay public


def test_malformed_json_says_where(client: TestClient) -> None:
    headers = {**ACME, "content-type": "application/json"}
    one = client.post("/v1/search", content=b"{", headers=headers)
    message = error(one, 422, "invalid_request")
    assert message.startswith("body: invalid JSON at line 1, column 2: Expecting property name")
    two = client.post("/v1/search", content=b'{\n  "query": "x",\n  "top_k": }', headers=headers)
    assert "line 3, column 12: Expecting value" in error(two, 422, "invalid_request")


def test_collection_detail_and_list_are_the_tenants_own(client: TestClient) -> None:
    for headers, tenant in ((ACME, "acme"), (GLOBEX, "globex")):
        detail = client.get("/v1/collections/default", headers=headers).json()
        assert detail["tenant"] == tenant and detail["count"] == detail["tenant_count"] == 4
        for hidden in ("source", "chunk_count", "corpus_sha256", "bm25"):
            assert hidden not in detail["manifest"]
        assert detail["manifest"]["model_id"] == "fake-hash-bow"
        listed = {
            c["name"]: c
            for c in client.get("/v1/collections", headers=headers).json()["collections"]
        }
        assert listed["default"]["count"] == 4 and "chunk_count" not in listed["default"]
        assert listed["broken"]["ready"] is False and listed["broken"]["count"] == 0
    bad = client.get("/v1/collections/" + "x" * 300, headers=ACME)
    assert "invalid collection name" in error(bad, 400, "bad_request")
    error(client.get("/v1/collections/nope", headers=ACME), 404, "collection_not_found")


def test_readiness_hides_paths_unless_asked_with_a_key(client: TestClient, home: Path) -> None:
    plain = client.get("/readyz")
    assert plain.status_code == 503
    reason = plain.json()["collections"]["broken"]["reason"]
    assert str(home) not in reason and "$SECTIO_HOME/collections/broken/" in reason
    listed = client.get("/v1/collections", headers=ACME).text
    assert str(home) not in listed
    error(client.get("/readyz?verbose=true"), 401, "unauthorized")
    error(
        client.get("/readyz?verbose=true", headers={"Authorization": "Bearer no"}),
        401,
        "unauthorized",
    )
    full = client.get("/readyz?verbose=true", headers=ACME)
    assert str(home) in full.json()["collections"]["broken"]["reason"]


def test_redact_paths() -> None:
    text = "cannot open /srv/h/collections/x/shard: Failed to deserialize /srv/h/a.json: at /etc/x"
    assert redact_paths(text, "/srv/h") == (
        "cannot open $SECTIO_HOME/collections/x/shard: Failed to deserialize "
        "$SECTIO_HOME/a.json: at <path>"
    )
    assert redact_paths("see https://example.org/a/b and 3/4", "/h") == (
        "see https://example.org/a/b and 3/4"
    )
