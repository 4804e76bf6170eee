"""The HTTP service in-process (TestClient): every endpoint, auth, tenancy, limits, metrics."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sectio import Sectio, Settings
from sectio.api import create_app
from tests.helpers import write_jsonl
from tests.helpers.api import ACME, GLOBEX, KEYS, label_rows


@pytest.fixture
def api_settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", embedder="fake", api_keys=KEYS)


@pytest.fixture
def loaded(api_settings: Settings, tmp_path: Path) -> Settings:
    rows = label_rows("acme") + label_rows("globex")
    corpus = write_jsonl(tmp_path / "labels.jsonl", rows)
    with Sectio(api_settings) as s:
        s.ingest(corpus, profile="en_drug_label")
    return api_settings


@pytest.fixture
def client(loaded: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(loaded)) as c:
        yield c


def assert_error(resp: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"} and body["error"]["message"]
    if code:
        assert body["error"]["code"] == code
    return body


def test_health_ready_openapi_docs(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["collections"]["default"]["ready"]
    spec = client.get("/openapi.json").json()
    for path in ("/v1/retrieve", "/v1/search", "/v1/lookup", "/v1/collections", "/v1/feedback"):
        assert path in spec["paths"]
    assert "sectio" in client.get("/").text


def test_docs_are_served_from_the_package_and_declare_bearer_auth(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    assets = re.findall(r"""(?:src|href)=['"]([^'"]+)['"]""", page.text)
    assert len(assets) == 3 and all(a.startswith("/docs-assets/") for a in assets), assets
    redoc = client.get("/redoc").text
    assets += re.findall(r"""src=['"]([^'"]+)['"]""", redoc)
    assert len(assets) == 4 and "fonts.googleapis" not in redoc
    for asset in assets:
        resp = client.get(asset)
        assert resp.status_code == 200 and len(resp.content) > 1000, asset
    spec = client.get("/openapi.json").json()
    assert spec["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "An API key of SECTIO_API_KEYS; the request's tenant is the key's.",
    }
    secured = {
        path for path, ops in spec["paths"].items() for op in ops.values() if op.get("security")
    }
    assert secured == {p for p in spec["paths"] if p.startswith("/v1/")} and len(secured) == 11
    assert "sessionStorage" in client.get("/").text and "localStorage" not in client.get("/").text


OPERATIONS = [
    ("GET", "/healthz", ["ops"], "healthz_healthz_get", None),
    ("GET", "/readyz", ["ops"], "readyz_readyz_get", None),
    ("GET", "/metrics", ["ops"], "metrics_endpoint_metrics_get", None),
    ("POST", "/v1/retrieve", ["retrieval"], "retrieve_v1_retrieve_post", "RetrieveRequest"),
    ("POST", "/v1/search", ["retrieval"], "search_v1_search_post", "SearchRequest"),
    ("POST", "/v1/lookup", ["retrieval"], "lookup_v1_lookup_post", "LookupRequest"),
    ("GET", "/v1/collections", ["collections"], "collections_v1_collections_get", None),
    (
        "GET",
        "/v1/collections/{name}",
        ["collections"],
        "collection_v1_collections__name__get",
        None,
    ),
    ("POST", "/v1/feedback", ["feedback"], "feedback_v1_feedback_post", "FeedbackRequest"),
    ("GET", "/v1/traces/{trace_id}", ["feedback"], "trace_v1_traces__trace_id__get", None),
    (
        "POST",
        "/v1/admin/documents/upsert",
        ["admin"],
        "upsert_v1_admin_documents_upsert_post",
        "DocumentsRequest",
    ),
    (
        "POST",
        "/v1/admin/documents/sync",
        ["admin"],
        "sync_v1_admin_documents_sync_post",
        "DocumentsRequest",
    ),
    (
        "POST",
        "/v1/admin/documents/delete",
        ["admin"],
        "delete_v1_admin_documents_delete_post",
        "DeleteRequest",
    ),
    (
        "POST",
        "/v1/admin/tenant/replace",
        ["admin"],
        "replace_tenant_v1_admin_tenant_replace_post",
        "DocumentsRequest",
    ),
]


def test_openapi_operations_are_stable(client: TestClient) -> None:
    """Paths, methods, tags, operation ids and request bodies, in order (clients rely on them)."""
    spec = client.get("/openapi.json").json()
    found = []
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {})
            ref = body.get("schema", {}).get("$ref")
            found.append(
                (method.upper(), path, op["tags"], op["operationId"], ref and ref.split("/")[-1])
            )
    assert found == OPERATIONS
    assert spec["paths"]["/readyz"]["get"]["responses"].keys() == {"200", "401", "422", "503"}


def test_every_error_class_answers_with_its_row_of_the_table(loaded: Settings) -> None:
    from sectio.errors import HTTP_ERRORS, RecordError
    from sectio.ops.errors import public_message

    app = create_app(loaded)
    classes = list(HTTP_ERRORS)

    async def boom(i: int) -> None:
        cls = classes[i]
        raise RecordError("a", 1, "f", "m") if cls is RecordError else cls("went\n  wrong")

    app.add_api_route("/boom/{i}", boom)
    with TestClient(app) as c:
        assert len(classes) >= 21
        for i, cls in enumerate(classes):
            status, code = HTTP_ERRORS[cls]
            body = assert_error(c.get(f"/boom/{i}"), status, code)
            # a store's own failures name no connection detail: a fixed line instead
            shown = public_message(cls("went wrong")) if cls is not RecordError else None
            assert body["error"]["message"] in ("went wrong", "a:1: field f: m", shown), cls


def test_auth_required_and_tenant_never_from_body(client: TestClient) -> None:
    assert_error(client.post("/v1/search", json={"query": "aspirin"}), 401, "unauthorized")
    bad = {"Authorization": "Bearer nope"}
    assert_error(client.post("/v1/search", json={"query": "aspirin"}, headers=bad), 401)
    assert_error(client.get("/v1/collections", headers={"Authorization": "key-acme"}), 401)
    sneaky = client.post("/v1/search", json={"query": "aspirin", "tenant": "globex"}, headers=ACME)
    assert "tenant" in assert_error(sneaky, 422, "invalid_request")["error"]["message"]
    ok = client.post("/v1/search", json={"query": "aspirin"}, headers=ACME)
    assert ok.status_code == 200 and ok.json()["tenant"] == "acme"


def test_tenant_isolation_on_every_endpoint(client: TestClient) -> None:
    for headers, tenant in ((ACME, "acme"), (GLOBEX, "globex")):
        search = client.post(
            "/v1/search", json={"query": "aspirin bleeding"}, headers=headers
        ).json()
        assert search["hits"] and {h["tenant"] for h in search["hits"]} == {tenant}
        for mode in ("dense", "lexical"):
            hits = client.post(
                "/v1/search", json={"query": "aspirin", "mode": mode}, headers=headers
            ).json()["hits"]
            assert hits and all(h["chunk_id"].startswith(f"{tenant}:") for h in hits)
        ask = client.post(
            "/v1/retrieve",
            json={"query": "what are the contraindications of aspirin"},
            headers=headers,
        ).json()
        assert ask["evidence"] and {e["tenant"] for e in ask["evidence"]} == {tenant}
        look = client.post("/v1/lookup", json={"phrase": "mild pain"}, headers=headers).json()
        assert look["evidence"] and {e["tenant"] for e in look["evidence"]} == {tenant}
        detail = client.get("/v1/collections/default", headers=headers).json()
        assert detail["count"] == 4 and detail["tenant"] == tenant
    acme_trace = client.post("/v1/search", json={"query": "aspirin"}, headers=ACME).json()[
        "trace_id"
    ]
    assert client.get(f"/v1/traces/{acme_trace}", headers=ACME).status_code == 200
    assert_error(client.get(f"/v1/traces/{acme_trace}", headers=GLOBEX), 404)
    stolen = {"trace_id": acme_trace, "rating": "helpful"}
    assert_error(client.post("/v1/feedback", json=stolen, headers=GLOBEX), 404)


def test_retrieve_result_contract_and_feedback(client: TestClient) -> None:
    resp = client.post(
        "/v1/retrieve", json={"query": "what are the contraindications of aspirin"}, headers=ACME
    )
    body = resp.json()
    for key in ("decision", "reason", "route", "evidence", "omitted_evidence_ids", "trace_id"):
        assert key in body
    assert body["decision"] == "ANSWERABLE" and body["route"] == "section"
    assert body["resolved_section_key"] == "contraindications"
    ev = body["evidence"][0]
    for key in ("chunk_id", "doc_id", "section_key", "part_index", "text", "score", "source_refs"):
        assert key in ev
    fb = client.post(
        "/v1/feedback", json={"trace_id": body["trace_id"], "rating": "helpful"}, headers=ACME
    )
    assert fb.status_code == 200, fb.text
    again = client.post(
        "/v1/feedback",
        json={"trace_id": body["trace_id"], "rating": "not_helpful", "comment": "too short"},
        headers=ACME,
    )
    assert again.status_code == 200
    too_long = {"trace_id": body["trace_id"], "rating": "helpful", "comment": "x" * 2001}
    assert_error(client.post("/v1/feedback", json=too_long, headers=ACME), 422)
    assert_error(
        client.post("/v1/feedback", json={"trace_id": "nope", "rating": "helpful"}, headers=ACME),
        404,
    )


def test_input_limits_are_json_errors_never_500(client: TestClient, loaded: Settings) -> None:
    big = {"query": "x" * (loaded.max_body_bytes + 10)}
    assert_error(client.post("/v1/search", json=big, headers=ACME), 413, "body_too_large")
    long_query = {"query": "aspirin " * 400}
    assert_error(client.post("/v1/search", json=long_query, headers=ACME), 422)
    clamped = client.post(
        "/v1/search", json={"query": "aspirin", "top_k": 1000}, headers=ACME
    ).json()
    assert (clamped["top_k"], clamped["top_k_requested"], clamped["clamped"]) == (50, 1000, True)
    raw = client.post(
        "/v1/search", content=b"{not json", headers={**ACME, "content-type": "application/json"}
    )
    assert_error(raw, 422)
    assert_error(client.post("/v1/search", json={"query": 5}, headers=ACME), 422)
    assert_error(client.post("/v1/search", json=["q"], headers=ACME), 422)
    assert_error(client.post("/v1/search", json={"query": "   "}, headers=ACME), 422)
    assert_error(
        client.post("/v1/search", json={"query": "a", "filters": {"color": "red"}}, headers=ACME),
        400,
    )
    assert_error(
        client.post("/v1/search", json={"query": "a", "collection": "nope"}, headers=ACME),
        404,
        "collection_not_found",
    )
    assert_error(client.get("/v1/nothing-here", headers=ACME), 404)


def test_request_id_and_traceparent_reach_the_trace(client: TestClient) -> None:
    tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    resp = client.post(
        "/v1/search",
        json={"query": "aspirin"},
        headers={**ACME, "X-Request-ID": "req-123", "traceparent": tp},
    )
    assert resp.headers["x-request-id"] == "req-123"
    trace = client.get(f"/v1/traces/{resp.json()['trace_id']}", headers=ACME).json()
    assert trace["correlation_id"] == "req-123"
    assert trace["otel_trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736"
    generated = client.get("/healthz").headers["x-request-id"]
    assert len(generated) == 32


def test_metrics_export_latency_decisions_and_sizes(client: TestClient) -> None:
    client.post("/v1/search", json={"query": "aspirin"}, headers=ACME)
    client.post("/v1/retrieve", json={"query": "aspirin side effects"}, headers=ACME)
    text = client.get("/metrics").text
    assert 'sectio_request_duration_seconds_count{endpoint="/v1/search",route="hybrid"} 1.0' in text
    assert 'sectio_request_duration_seconds_count{endpoint="/v1/retrieve",route=' in text
    assert 'sectio_decisions_total{decision="ANSWERABLE"}' in text
    assert 'sectio_collection_points{collection="default"} 8.0' in text
    assert "sectio_tenant_check_drops_total 0.0" in text
    assert "sectio_trace_write_failures_total" in text
    client.post("/v1/search", json={"query": "aspirin"}, headers=ACME)  # the same words again
    text = client.get("/metrics").text
    assert 'sectio_query_embeddings_total{source="cached"} 1.0' in text
    assert 'sectio_query_embeddings_total{source="computed"}' in text


def test_readiness_flips_on_a_manifest_mismatch(client: TestClient, loaded: Settings) -> None:
    assert client.get("/readyz").status_code == 200
    current = (loaded.collections_dir / "default" / "CURRENT").read_text().strip()
    manifest_path = loaded.collections_dir / "default" / current / "manifest.json"
    original = manifest_path.read_text()
    data = json.loads(original)
    data["model_id"] = "some-other-model"
    manifest_path.write_text(json.dumps(data))
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert "some-other-model" in ready.json()["collections"]["default"]["reason"]
    assert_error(
        client.post("/v1/search", json={"query": "aspirin"}, headers=ACME),
        503,
        "collection_not_ready",
    )
    assert client.get("/healthz").status_code == 200  # alive, just not ready
    manifest_path.write_text(original)
    assert client.get("/readyz").status_code == 200
    assert client.post("/v1/search", json={"query": "aspirin"}, headers=ACME).status_code == 200


def test_not_ready_without_collections(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "empty", embedder="fake")
    with TestClient(create_app(settings)) as c:
        resp = c.get("/readyz")
        assert resp.status_code == 503 and "no collections" in resp.json()["reason"]
        # no keys configured: tenant default, no auth needed
        assert c.get("/v1/collections").status_code == 200


def test_traceparent_parsing_and_json_logs() -> None:
    import logging

    from sectio.api.middleware import JsonFormatter, parse_traceparent

    good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    assert parse_traceparent(good) == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert parse_traceparent("00-" + "0" * 32 + "-00f067aa0ba902b7-01") is None
    assert parse_traceparent("garbage") is None and parse_traceparent(None) is None
    record = logging.LogRecord("sectio.access", logging.INFO, "x", 1, "request", None, None)
    record.fields = {"status": 200, "path": "/v1/search"}
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "request" and line["status"] == 200 and line["level"] == "info"


def test_key_file_and_malformed_keys(tmp_path: Path) -> None:
    from sectio.api.auth import KeyRing
    from sectio.errors import ConfigError

    keyfile = tmp_path / "keys"
    keyfile.write_text("# comment\nk1:acme\n\nk2:globex\n")
    ring = KeyRing.from_settings(Settings(home=tmp_path, api_keys_file=keyfile))
    assert ring.enabled and ring.tenant_for("k2") == "globex" and ring.tenant_for("k3") is None
    with pytest.raises(ConfigError, match="key:tenant"):
        KeyRing.parse("justakey")
    with pytest.raises(ConfigError, match="twice"):
        KeyRing.parse("k:a,k:b")


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/search", {"query": "aspirin"}),
        ("/v1/retrieve", {"query": "contraindications of aspirin"}),
        ("/v1/lookup", {"phrase": "pain"}),
        ("/v1/search", {"query": "aspirin", "mode": "lexical"}),
    ],
)
def test_a_body_naming_an_unknown_collection_is_404(
    client: TestClient, path: str, body: dict[str, Any]
) -> None:
    """The collection is a resource: naming one that does not exist is 404, not 400."""
    resp = client.post(path, json={**body, "collection": "nope"}, headers=ACME)
    assert_error(resp, 404, "collection_not_found")
    assert "nope" in resp.json()["error"]["message"]
