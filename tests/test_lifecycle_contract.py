"""The document-write contract, run on both index backends (issue 36, item 4).

Qdrant Edge (the embedded default) and the server adapter (``SECTIO_QDRANT_URL``'s
code path, through qdrant-client local mode on a folder: no Qdrant server can be
installed on these machines). Each test runs once per backend, unchanged: upsert,
delete, sync, a write interrupted by a full disk and settled by the next one, and
one write through the HTTP admin endpoint of an app serving the collection; and
``kill -9`` at write points of a CLI upsert and delete, then ``sectio gc``.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sectio import Sectio, Settings
from sectio.api import create_app
from sectio.errors import ContractError, SectioError
from sectio.index.port import Journaled
from sectio.retrieve.reads import scroll_all
from tests.helpers import chunk, write_jsonl
from tests.test_faults import run

OLD = [
    chunk("aspirin", "warnings", 0, "Aspirin may cause stomach bleeding."),
    chunk("aspirin", "warnings", 1, "Avoid aspirin in children with fever."),
    chunk("metformin", "warnings", 0, "Metformin can cause lactic acidosis."),
    chunk("warfarin", "warnings", 0, "Warfarin raises the risk of bleeding."),
]
EDITED = [
    chunk("aspirin", "warnings", 0, "Aspirin may cause severe stomach bleeding."),
    chunk("heparin", "warnings", 0, "Heparin is given by injection."),
]


@pytest.fixture(params=["edge", "server"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    """Settings for one backend: an edge home, or the server adapter on local-mode storage."""
    home = tmp_path / "home"
    if request.param == "edge":
        return Settings(home=home, embedder="fake")
    return Settings(home=home, embedder="fake", qdrant_location=str(tmp_path / "qdrant"))


@pytest.fixture
def s(settings: Settings, tmp_path: Path) -> Iterator[Sectio]:
    with Sectio(settings) as sectio:
        sectio.ingest(write_jsonl(tmp_path / "old.jsonl", OLD))
        yield sectio


def points(s: Sectio) -> dict[str, tuple[str, str]]:
    """chunk id -> (doc id, text) of every point of the default tenant."""
    index = s.collection("default").index
    return {
        p.payload["chunk_id"]: (p.payload["doc_id"], p.payload["text"])
        for p in scroll_all(index, "default", page=64)
    }


def matches(s: Sectio) -> dict[str, Any]:
    info = s.info("default")["collections"][0]
    return {"matches": info["matches_manifest"], "not_ready": info["tenants_not_ready"]}


def test_backend_is_the_one_named(s: Sectio, settings: Settings) -> None:
    want = "qdrant-local" if settings.qdrant_location else "edge"
    assert s.backend.kind == want and isinstance(s.backend, Journaled)


def test_upsert_replaces_changed_adds_new_and_leaves_the_rest(s: Sectio, tmp_path: Path) -> None:
    before = points(s)
    report = s.upsert(write_jsonl(tmp_path / "e.jsonl", EDITED))
    assert (report.added, report.changed, report.deleted) == (("heparin",), ("aspirin",), ())
    assert (report.upserted, report.removed, report.embeddings_computed) == (2, 1, 2)
    after = points(s)
    assert after["aspirin#warnings#0"] == ("aspirin", EDITED[0]["text"])
    assert "aspirin#warnings#1" not in after and after["heparin#warnings#0"][0] == "heparin"
    for cid in ("metformin#warnings#0", "warfarin#warnings#0"):
        assert after[cid] == before[cid]
    assert report.collection_count == len(after) == 4
    assert matches(s) == {"matches": True, "not_ready": {}}
    again = s.upsert(write_jsonl(tmp_path / "e.jsonl", EDITED))
    assert again.unchanged == 2 and (again.upserted, again.embeddings_computed) == (0, 0)
    hits = s.search("severe stomach bleeding", mode="lexical").hits
    assert hits[0].chunk_id == "aspirin#warnings#0"


def test_delete_removes_documents_and_refuses_unknown_ones(s: Sectio) -> None:
    with pytest.raises(ContractError, match="holds no document 'nope'; nothing was deleted"):
        s.delete(["aspirin", "nope"])
    assert len(points(s)) == 4
    report = s.delete(["aspirin"])
    assert (report.deleted, report.removed, report.collection_count) == (("aspirin",), 2, 2)
    assert {d for d, _ in points(s).values()} == {"metformin", "warfarin"}
    manifest = s.backend.read_manifest("default")
    assert manifest is not None and "aspirin" not in manifest.tenants["default"]["documents"]
    assert matches(s) == {"matches": True, "not_ready": {}}


def test_sync_adds_changes_and_deletes(s: Sectio, tmp_path: Path) -> None:
    new = [OLD[0], OLD[1], chunk("metformin", "warnings", 0, "Metformin: lactic acidosis.")]
    new.append(chunk("insulin", "warnings", 0, "Insulin can cause low blood sugar."))
    report = s.sync(write_jsonl(tmp_path / "b.jsonl", new))
    assert report.as_dict()["counts"] == {"added": 1, "changed": 1, "deleted": 1, "unchanged": 1}
    assert {d for d, _ in points(s).values()} == {"aspirin", "metformin", "insulin"}
    assert report.collection_count == 4 and matches(s) == {"matches": True, "not_ready": {}}


def test_a_write_cut_by_a_full_disk_is_settled(
    s: Sectio, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC after the journal holds the write: the tenant is named not ready; ``gc``
    (settle_pending) finishes it; every document new or untouched, counts match."""
    before = points(s)
    monkeypatch.setenv("SECTIO_FAULT_ENOSPC", "lifecycle.points.upserted")
    with pytest.raises((SectioError, OSError), match="(?i)no space left"):
        s.upsert(write_jsonl(tmp_path / "e.jsonl", EDITED))
    monkeypatch.delenv("SECTIO_FAULT_ENOSPC")
    assert isinstance(s.backend, Journaled) and s.backend.read_journal("default") is not None
    assert set(matches(s)["not_ready"]) == {"default"}
    assert s.settle_pending("default") == {"default": "finished"}
    after = points(s)
    assert after["aspirin#warnings#0"] == ("aspirin", EDITED[0]["text"])
    assert "aspirin#warnings#1" not in after and "heparin#warnings#0" in after
    for cid in ("metformin#warnings#0", "warfarin#warnings#0"):
        assert after[cid] == before[cid]
    assert matches(s) == {"matches": True, "not_ready": {}}
    assert s.backend.read_journal("default") is None


def test_an_admin_write_is_served_at_once(settings: Settings, tmp_path: Path) -> None:
    """One upsert and one delete through the HTTP admin endpoints of the serving app."""
    with Sectio(settings) as s:
        s.ingest(write_jsonl(tmp_path / "old.jsonl", OLD))
    with TestClient(create_app(settings)) as client:
        rows = [{**r, "tenant": "default"} for r in EDITED]
        up = client.post("/v1/admin/documents/upsert", json={"records": rows})
        assert up.status_code == 200, up.text
        assert up.json()["counts"] == {"added": 1, "changed": 1, "deleted": 0, "unchanged": 0}
        search = {"query": "severe stomach bleeding", "mode": "lexical"}
        hits = client.post("/v1/search", json=search).json()["hits"]
        assert hits[0]["chunk_id"] == "aspirin#warnings#0"
        gone = client.post("/v1/admin/documents/delete", json={"doc_ids": ["warfarin"]})
        assert gone.status_code == 200 and gone.json()["deleted"] == ["warfarin"]
        assert client.get("/v1/collections/default").json()["count"] == 3
        ready = client.get("/readyz").json()
        assert ready["ready"] and "tenants_not_ready" not in ready["collections"]["default"]


@pytest.mark.parametrize("backend", ["edge", "server"])
@pytest.mark.parametrize(
    ("command", "point"),
    [
        ("upsert", "lifecycle.points.upserted"),
        ("upsert", "lifecycle.manifest.written"),
        ("delete", "lifecycle.points.deleted"),
    ],
)
def test_a_killed_write_is_finished_by_gc(
    tmp_path: Path, backend: str, command: str, point: str
) -> None:
    """``kill -9`` with the journal written: the tenant is named not ready until ``sectio
    gc`` finishes the write; then every document is new or untouched, counts match."""
    home = tmp_path / "home"
    env = {"SECTIO_QDRANT_LOCATION": str(tmp_path / "qdrant")} if backend == "server" else {}
    assert run(home, "ingest", str(write_jsonl(tmp_path / "old.jsonl", OLD)), **env).returncode == 0
    args = ["upsert", str(write_jsonl(tmp_path / "e.jsonl", EDITED))]
    if command == "delete":
        args = ["delete", "--doc", "aspirin"]
    proc = run(home, *args, SECTIO_FAULT_POINT=point, **env)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    seen = json.loads(run(home, "info", "--json", **env).stdout)["collections"][0]
    assert set(seen["tenants_not_ready"]) == {"default"}
    gc = run(home, "gc", "--json", **env)
    assert gc.returncode == 0, gc.stderr
    assert json.loads(gc.stdout)["settled"] == {"default": "finished"}
    with Sectio(Settings(home=home, embedder="fake", **_location(env))) as s:
        got = points(s)
        assert matches(s) == {"matches": True, "not_ready": {}}
    want = {"aspirin#warnings#0", "heparin#warnings#0"} if command == "upsert" else set()
    assert {c for c, (d, _) in got.items() if d in ("aspirin", "heparin")} == want
    assert got["metformin#warnings#0"] == ("metformin", OLD[2]["text"])
    assert got["warfarin#warnings#0"] == ("warfarin", OLD[3]["text"])


def _location(env: dict[str, str]) -> dict[str, str]:
    return {"qdrant_location": env["SECTIO_QDRANT_LOCATION"]} if env else {}
