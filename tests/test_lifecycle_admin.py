"""HTTP admin endpoints (in-process app, real Qdrant Edge, fake embedder): document writes by
an admin key, on its own tenant only, picked up by the running app without a restart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sectio import Sectio, Settings
from sectio.api import create_app
from sectio.api.auth import Grant, KeyRing
from sectio.errors import ConfigError
from tests.helpers import write_jsonl
from tests.helpers.api import ACME, GLOBEX, KEYS, label_rows

ADMIN_KEYS = KEYS + ",key-acme-admin:acme:admin"
ACME_ADMIN = {"Authorization": "Bearer key-acme-admin"}


def heparin(tenant: str, text: str = "Do not use heparin with a bleeding disorder.") -> list[Any]:
    return [
        {
            "chunk_id": f"{tenant}:heparin#contraindications#0",
            "doc_id": "heparin",
            "doc_title": "Heparin",
            "section_key": "contraindications",
            "part_index": 0,
            "text": text,
            "source_refs": [{"source": "label"}],
        }
    ]


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = Settings(home=tmp_path / "home", embedder="fake", api_keys=ADMIN_KEYS)
    corpus = write_jsonl(tmp_path / "labels.jsonl", label_rows("acme") + label_rows("globex"))
    with Sectio(settings) as s:
        s.ingest(corpus, profile="en_drug_label")
    return settings


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as c:
        yield c


def search_docs(client: TestClient, headers: dict[str, str], query: str) -> list[str]:
    resp = client.post("/v1/search", json={"query": query, "top_k": 20}, headers=headers)
    assert resp.status_code == 200, resp.text
    return [e["doc_id"] for e in resp.json()["hits"]]


def test_key_ring_reads_the_admin_form() -> None:
    ring = KeyRing.parse("r:acme, w:acme:admin, x:y:globex, n:admin:read")
    assert ring.grant_for("r") == Grant("acme", admin=False)
    assert ring.grant_for("w") == Grant("acme", admin=True)
    assert ring.grant_for("x:y") == Grant("globex", admin=False)
    assert ring.grant_for("n") == Grant("admin", admin=False)
    assert ring.tenant_for("w") == "acme"
    with pytest.raises(ConfigError, match="key:tenant:admin"):
        KeyRing.parse("lonely")


def test_a_read_key_never_writes(client: TestClient) -> None:
    body = {"records": heparin("acme")}
    for headers, status in ((ACME, 403), (GLOBEX, 403), ({}, 401)):
        resp = client.post("/v1/admin/documents/upsert", json=body, headers=headers)
        assert resp.status_code == status, resp.text
    resp = client.post("/v1/admin/documents/delete", json={"doc_ids": ["aspirin"]}, headers=ACME)
    assert resp.status_code == 403
    assert "aspirin" in search_docs(client, ACME, "aspirin bleeding")


def test_an_admin_key_writes_only_its_tenant(client: TestClient) -> None:
    other = [{**heparin("globex")[0], "tenant": "globex"}]
    resp = client.post("/v1/admin/documents/upsert", json={"records": other}, headers=ACME_ADMIN)
    assert resp.status_code == 403 and "globex" in resp.json()["error"]["message"]
    resp = client.post(
        "/v1/admin/documents/upsert", json={"records": heparin("acme")}, headers=ACME_ADMIN
    )
    assert resp.status_code == 200, resp.text
    assert resp.json()["tenant"] == "acme" and resp.json()["added"] == ["heparin"]
    assert "heparin" in search_docs(client, ACME, "heparin bleeding disorder")
    assert "heparin" not in search_docs(client, GLOBEX, "heparin bleeding disorder")


def test_upsert_change_delete_sync_are_served_at_once(client: TestClient) -> None:
    add = client.post(
        "/v1/admin/documents/upsert", json={"records": heparin("acme")}, headers=ACME_ADMIN
    )
    assert add.json()["counts"] == {"added": 1, "changed": 0, "deleted": 0, "unchanged": 0}
    again = client.post(
        "/v1/admin/documents/upsert", json={"records": heparin("acme")}, headers=ACME_ADMIN
    )
    assert again.json()["counts"]["unchanged"] == 1 and again.json()["upserted"] == 0
    edited = heparin("acme", "Heparin is contraindicated in severe thrombocytopenia.")
    change = client.post("/v1/admin/documents/upsert", json={"records": edited}, headers=ACME_ADMIN)
    assert change.json()["changed"] == ["heparin"]
    hits = client.post(
        "/v1/search", json={"query": "thrombocytopenia", "mode": "lexical"}, headers=ACME
    ).json()["hits"]
    assert [e["doc_id"] for e in hits][:1] == ["heparin"]
    ready = client.get("/readyz").json()
    assert ready["ready"] and "tenants_not_ready" not in ready["collections"]["default"]
    gone = client.post(
        "/v1/admin/documents/delete", json={"doc_ids": ["aspirin"]}, headers=ACME_ADMIN
    )
    assert gone.status_code == 200 and gone.json()["deleted"] == ["aspirin"]
    assert "aspirin" not in search_docs(client, ACME, "aspirin bleeding")
    assert "aspirin" in search_docs(client, GLOBEX, "aspirin bleeding")
    unknown = client.post(
        "/v1/admin/documents/delete", json={"doc_ids": ["nope"]}, headers=ACME_ADMIN
    )
    assert unknown.status_code == 400 and "nope" in unknown.json()["error"]["message"]
    synced = client.post(
        "/v1/admin/documents/sync", json={"records": label_rows("acme")}, headers=ACME_ADMIN
    )
    assert synced.json()["added"] == ["aspirin"] and synced.json()["deleted"] == ["heparin"]
    count = client.get("/v1/collections/default", headers=ACME).json()["count"]
    assert count == len(label_rows("acme"))


def test_new_tenant_and_tenant_replace_through_the_server(tmp_path: Path) -> None:
    settings = Settings(
        home=tmp_path / "home", embedder="fake", api_keys=ADMIN_KEYS + ",key-new:newco:admin"
    )
    corpus = write_jsonl(tmp_path / "labels.jsonl", label_rows("acme"))
    with Sectio(settings) as s:
        s.ingest(corpus, profile="en_drug_label")
    new = {"Authorization": "Bearer key-new"}
    with TestClient(create_app(settings)) as client:
        first = client.post(
            "/v1/admin/documents/upsert", json={"records": heparin("newco")}, headers=new
        )
        assert first.status_code == 200, first.text
        assert search_docs(client, new, "heparin") == ["heparin"]
        replaced = client.post(
            "/v1/admin/tenant/replace", json={"records": label_rows("acme")[:1]}, headers=ACME_ADMIN
        )
        assert replaced.status_code == 200, replaced.text
        assert client.get("/v1/collections/default", headers=ACME).json()["count"] == 1
        assert search_docs(client, new, "heparin") == ["heparin"]  # the other tenant, copied
        assert client.get("/readyz").json()["ready"]


def test_admin_writes_refresh_what_the_router_derived(client: TestClient) -> None:
    """A newly upserted document's title routes; a deleted one no longer resolves."""
    ask = {"query": "who should not take heparin"}
    before = client.post("/v1/retrieve", json=ask, headers=ACME).json()
    assert before["decision"] != "ANSWERABLE" or "heparin" not in str(before["route"])
    client.post("/v1/admin/documents/upsert", json={"records": heparin("acme")}, headers=ACME_ADMIN)
    after = client.post("/v1/retrieve", json=ask, headers=ACME).json()
    assert after["decision"] == "ANSWERABLE", after
    assert {e["doc_id"] for e in after["evidence"]} == {"heparin"}
    client.post("/v1/admin/documents/delete", json={"doc_ids": ["heparin"]}, headers=ACME_ADMIN)
    gone = client.post("/v1/retrieve", json=ask, headers=ACME).json()
    assert "heparin" not in {e["doc_id"] for e in gone["evidence"]}


def test_admin_paths_in_the_openapi_schema(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("upsert", "delete", "sync"):
        assert f"/v1/admin/documents/{path}" in paths
    assert "/v1/admin/tenant/replace" in paths
    op = paths["/v1/admin/documents/upsert"]["post"]
    assert op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "DocumentWrite"
    )


def test_full_disk_through_the_server_names_the_tenant_until_the_next_write(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC mid-write (the journal holds it): 507, /readyz names acme not ready, acme's
    requests get 503 and globex's are served; the next write finishes it."""
    monkeypatch.setenv("SECTIO_FAULT_ENOSPC", "lifecycle.points.upserted")
    resp = client.post(
        "/v1/admin/documents/upsert", json={"records": heparin("acme")}, headers=ACME_ADMIN
    )
    assert resp.status_code == 507 and "journal" in resp.json()["error"]["message"]
    monkeypatch.delenv("SECTIO_FAULT_ENOSPC")
    waiting = client.get("/readyz").json()["collections"]["default"]
    assert set(waiting["tenants_not_ready"]) == {"acme"}
    blocked = client.post("/v1/search", json={"query": "aspirin"}, headers=ACME)
    assert blocked.status_code == 503
    assert "aspirin" in search_docs(client, GLOBEX, "aspirin")
    again = client.post(
        "/v1/admin/documents/upsert", json={"records": heparin("acme")}, headers=ACME_ADMIN
    )
    assert again.status_code == 200 and again.json()["counts"]["unchanged"] == 1
    assert "tenants_not_ready" not in client.get("/readyz").json()["collections"]["default"]
    assert "heparin" in search_docs(client, ACME, "heparin bleeding disorder")


def test_the_async_client_writes_through_the_admin_endpoints(settings: Settings) -> None:
    """AsyncSectioClient's admin calls against the app (ASGI transport, lifespan run)."""
    import anyio
    import httpx

    from sectio.client import AsyncSectioClient

    app = create_app(settings)

    async def scenario() -> list[dict[str, Any]]:
        await app.state.api.start()
        try:
            transport = httpx.ASGITransport(app=app)
            async with AsyncSectioClient(
                "http://testserver", api_key="key-acme-admin", transport=transport
            ) as c:
                return [
                    await c.upsert_documents(heparin("acme")),
                    await c.sync_documents([*label_rows("acme"), *heparin("acme")]),
                    await c.delete_documents(["heparin"]),
                    await c.replace_tenant(label_rows("acme")[:1]),
                ]
        finally:
            await app.state.api.stop()

    up, synced, gone, replaced = anyio.run(scenario)
    assert up["added"] == ["heparin"] and synced["counts"]["unchanged"] == 2
    assert gone["deleted"] == ["heparin"] and replaced["action"] == "replace"
