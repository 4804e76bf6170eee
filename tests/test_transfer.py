"""Moving collections between edge and server stores; server snapshots; sharding; the factory.

The server side runs on qdrant-client local mode (no Qdrant server can be
installed here): what local mode cannot do (snapshots, shard keys) is tested
on its error path, and the server-only code around it on its own.
"""

from __future__ import annotations

import json
import tarfile
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import QdrantClient

from sectio import Sectio, Settings
from sectio.cli import main
from sectio.errors import (
    ConfigError,
    CorpusMismatch,
    IndexError_,
    ManifestMismatch,
    ManifestMissing,
    NotAvailable,
    SnapshotError,
)
from sectio.index.copy import copy_collection, serving_gate
from sectio.index.edge.store import EdgeBackend
from sectio.index.factory import Endpoint, build_backend, parse_endpoint
from sectio.index.filters import Eq, Where, tenant_where
from sectio.index.port import IndexBackend, StoredPoint
from sectio.index.server import SHARED_SHARD_KEY, ServerBackend, Sharding
from sectio.index.server.snapshot import (
    SNAPSHOT_FORMAT,
    read_snapshot_file,
    snapshot_format,
    write_snapshot_file,
)
from sectio.index.transfer import export_collection, import_collection
from sectio.testing.corpus import assert_same_ranking, make_corpus
from sectio.testing.index_contract import load
from tests.helpers import chunk, write_jsonl


def _rows(tag: str = "") -> list[dict[str, Any]]:
    return [
        chunk("aspirin", "indications", 0, f"Aspirin relieves pain and fever.{tag}", tenant="a"),
        chunk("aspirin", "indications", 1, "It lowers the risk of heart attack.", tenant="a"),
        chunk("aspirin", "warnings", 0, "Aspirin may cause stomach bleeding.", tenant="a"),
        chunk("metformin", "indications", 0, "Metformin treats type 2 diabetes.", tenant="b"),
        chunk("metformin", "warnings", 0, "Lactic acidosis is a rare risk.", tenant="b"),
        chunk("guide", "setup", 0, "Install it with pip.", path="docs/setup.md", tenant="b"),
    ]


@pytest.fixture
def edge_home(tmp_path: Path) -> Path:
    """A SECTIO_HOME with collection ``default`` ingested on Qdrant Edge (fake embedder)."""
    home = tmp_path / "edge-home"
    with Sectio(Settings(home=home, embedder="fake")) as s:
        s.ingest(write_jsonl(tmp_path / "c.jsonl", _rows()))
    return home


def _points(backend: IndexBackend, name: str) -> dict[str, tuple[dict[str, Any], Any]]:
    index = backend.open(name)
    try:
        out = {}
        offset = None
        while True:
            page, offset = index.scroll(None, limit=2, offset=offset, with_vectors=True)
            out.update({p.id: (p.payload, p.sparse) for p in page})
            if offset is None:
                return out
    finally:
        index.close()


def _dense_hits(backend: IndexBackend, name: str, query_id: str) -> list[StoredPoint]:
    index = backend.open(name)
    try:
        (me,) = index.retrieve([query_id], with_vectors=True)
        assert me.dense is not None
        return index.search_dense(me.dense, 6)
    finally:
        index.close()


# --- endpoints --------------------------------------------------------------------
def test_parse_endpoint(tmp_path: Path) -> None:
    assert parse_endpoint("http://qdrant:6333/") == Endpoint("server", "http://qdrant:6333")
    assert parse_endpoint("https://q.example.com").kind == "server"
    assert parse_endpoint("local::memory:") == Endpoint("local", ":memory:")
    assert parse_endpoint(f"local:{tmp_path}") == Endpoint("local", str(tmp_path))
    assert parse_endpoint(str(tmp_path)) == Endpoint("edge", str(tmp_path))
    assert parse_endpoint(f"edge:{tmp_path}") == Endpoint("edge", str(tmp_path))
    snap = tmp_path / "snap.tar"
    snap.write_text("x")
    for bad in ("", "  ", "local:", str(snap)):
        with pytest.raises(ConfigError):
            parse_endpoint(bad)


# --- copies -----------------------------------------------------------------------
def test_edge_to_server_and_back_keeps_everything(edge_home: Path, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "h", embedder="fake")
    edge = EdgeBackend(edge_home / "collections")
    gate = serving_gate("default", "fake-hash-bow", 384)
    report = export_collection(edge, "default", f"local:{tmp_path / 'q'}", settings, verify=gate)
    assert report.points == 6 and report.target == f"local:{tmp_path / 'q'}"
    server = ServerBackend(QdrantClient(path=str(tmp_path / "q")), local=True)
    try:
        assert server.read_manifest("default") == edge.read_manifest("default")
        assert server.point_count("default") == 6
        assert _points(server, "default") == _points(edge, "default")  # payloads + sparse
        some = next(iter(_points(edge, "default")))
        hits = _dense_hits(edge, "default", some)
        assert hits[0].id == some
        assert_same_ranking(_dense_hits(server, "default", some), hits, limit=6)
        # and back, under another name, into a fresh edge home
        back = EdgeBackend(tmp_path / "back" / "collections")
        copy_collection(server, "default", back, "copy", verify=gate)
        assert _points(back, "copy") == _points(edge, "default")
        manifest = back.read_manifest("copy")
        assert manifest is not None and manifest.collection == "copy"
    finally:
        server.close()


def test_import_from_another_edge_home(edge_home: Path, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "mine", embedder="fake")
    mine = EdgeBackend(settings.collections_dir)
    report = import_collection(
        mine, str(edge_home), settings, collection="drugs", source_collection="default"
    )
    assert report.points == 6 and mine.list_collections() == ["drugs"]
    with Sectio(settings) as s:  # the start-up gate passes on the copy
        assert s.collection("drugs").index.count(Where.of(Eq("tenant", "a"))) == 3


def test_arrival_gate_refuses_another_embedder(edge_home: Path, tmp_path: Path) -> None:
    edge = EdgeBackend(edge_home / "collections")
    server = ServerBackend(QdrantClient(":memory:"), local=True)
    with pytest.raises(ManifestMismatch, match="model_id"):
        copy_collection(edge, "default", server, "default", verify=serving_gate("d", "x", 384))
    assert server.list_collections() == [] and server.client.get_collections().collections == []


def test_target_with_another_corpus_needs_replace(edge_home: Path, tmp_path: Path) -> None:
    edge = EdgeBackend(edge_home / "collections")
    server = ServerBackend(QdrantClient(":memory:"), local=True)
    other = make_corpus()
    load(server, other, name="default")
    with pytest.raises(CorpusMismatch):
        copy_collection(edge, "default", server, "default")
    kept = other.manifest.model_copy(update={"collection": "default"})
    assert server.read_manifest("default") == kept  # refused: left as it was
    copy_collection(edge, "default", server, "default", replace=True)
    assert server.read_manifest("default") == edge.read_manifest("default")
    assert server.point_count("default") == 6
    assert len(server.client.get_collections().collections) == 2  # one version + sidecar


def test_source_without_manifest_is_refused(tmp_path: Path) -> None:
    server = ServerBackend(QdrantClient(":memory:"), local=True)
    corpus = make_corpus()
    target = server.load_target("bare", corpus.spec, staged=True)
    target.index.upsert(corpus.points)
    target.commit()  # points, no manifest
    with pytest.raises(ManifestMissing):
        copy_collection(server, "bare", EdgeBackend(tmp_path / "e"), "bare")


def test_quantization_can_change_on_the_way(tmp_path: Path) -> None:
    server = ServerBackend(QdrantClient(":memory:"), local=True)
    corpus = make_corpus()
    load(server, corpus, name="c")
    edge = EdgeBackend(tmp_path / "e")
    copy_collection(server, "c", edge, "c", quantization="int8")
    manifest = edge.read_manifest("c")
    assert manifest is not None and manifest.quantization == "int8"
    assert manifest.differences(corpus.manifest) == ["quantization"]  # bound, like the model
    index = edge.open("c")
    try:
        assert index.spec.quantization == "int8"
        hits = index.search_dense(corpus.dense_of("doc1#warnings#0"), 1)
        assert hits[0].payload["chunk_id"] == "doc1#warnings#0"
    finally:
        index.close()


def test_a_server_collection_is_rebuilt_by_copying_it_onto_itself() -> None:
    """Reshard / requantize: copy into a new version of the same name, switch, drop the old."""
    server = ServerBackend(QdrantClient(":memory:"), local=True)
    corpus = make_corpus()
    load(server, corpus, name="c")
    (old,) = [c.name for c in server.client.get_collections().collections if "__v" in c.name]
    copy_collection(server, "c", server, "c", quantization="int8")
    (new,) = [c.name for c in server.client.get_collections().collections if "__v" in c.name]
    assert new != old and server.point_count("c") == len(corpus.points)
    manifest = server.read_manifest("c")
    assert manifest is not None and manifest.quantization == "int8"


# --- the CLI ----------------------------------------------------------------------
def _cli(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], *args: str) -> int:
    for key in ("SECTIO_QDRANT_URL", "SECTIO_QDRANT_LOCATION", "SECTIO_HOME"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    return main(list(args))


def test_cli_export_and_import(
    edge_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    q = tmp_path / "q"
    assert _cli(monkeypatch, {"SECTIO_HOME": str(edge_home)}, "export", "--to", f"local:{q}",
                "--as", "copy", "--json") == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["points"] == 6 and out["target_collection"] == "copy"
    # a process configured on the local-mode store imports it back into its own edge home
    home2 = tmp_path / "home2"
    assert _cli(monkeypatch, {"SECTIO_HOME": str(home2)}, "import", f"local:{q}",
                "--from-collection", "copy", "--quantization", "int8", "--json") == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["points"] == 6 and out["target_collection"] == "default"
    arrived = EdgeBackend(home2 / "collections")
    assert arrived.point_count("default") == 6
    manifest = arrived.read_manifest("default")
    assert manifest is not None and manifest.quantization == "int8"
    # errors are one line
    code = _cli(monkeypatch, {"SECTIO_HOME": str(home2)}, "import", str(tmp_path / "nowhere"))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "no collection named 'default'" in err[0]
    monkeypatch.setenv("SECTIO_FAKE_DIMENSIONS", "64")
    code = _cli(monkeypatch, {"SECTIO_HOME": str(home2)}, "export", "--to", str(tmp_path / "h3"))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "dimensions 384 != configured 64" in err[0]


# --- snapshots --------------------------------------------------------------------
def test_local_mode_has_no_snapshot_api(tmp_path: Path) -> None:
    server = ServerBackend(QdrantClient(":memory:"), local=True)
    load(server, make_corpus(), name="c")
    with pytest.raises(NotAvailable, match="sectio export"):
        server.snapshot("c", tmp_path / "c.tar")
    assert not (tmp_path / "c.tar").exists()
    with pytest.raises(SnapshotError, match="no manifest"):
        target = server.load_target("bare", make_corpus().spec, staged=True)
        target.commit()
        server.snapshot("bare", tmp_path / "b.tar")


def test_edge_snapshot_restores_onto_the_server_adapter(edge_home: Path, tmp_path: Path) -> None:
    edge = EdgeBackend(edge_home / "collections")
    snap = tmp_path / "edge.tar"
    manifest = edge.snapshot("default", snap)
    assert snapshot_format(snap) is None  # an edge snapshot
    server = ServerBackend(QdrantClient(":memory:"), local=True)
    seen: list[str] = []
    restored = server.restore(snap, "drugs", verify=lambda m: seen.append(m.model_id))
    assert seen == ["fake-hash-bow"]
    assert restored.corpus_sha256 == manifest.corpus_sha256 and restored.collection == "drugs"
    assert server.read_manifest("drugs") == restored
    assert _points(server, "drugs") == _points(edge, "default")
    with pytest.raises(ManifestMismatch):  # the gate refuses before anything is installed
        server.restore(snap, "other", verify=serving_gate("other", "another-model", 384))
    assert server.list_collections() == ["drugs"]


def test_server_snapshot_file_round_trip_and_tamper(tmp_path: Path) -> None:
    corpus = make_corpus()
    work = tmp_path / "work"
    work.mkdir()
    (work / "collection.snapshot").write_bytes(b"qdrant snapshot bytes" * 100)
    record = {"version": None, "shard_keys": ["big"]}
    out = tmp_path / "s.tar"
    write_snapshot_file(out, work / "collection.snapshot", corpus.manifest, record)
    assert snapshot_format(out) == SNAPSHOT_FORMAT
    manifest, rec = read_snapshot_file(out, tmp_path / "x")
    assert manifest == corpus.manifest and rec == record
    # local mode: checksums and the gate pass, then the upload is not available
    server = ServerBackend(QdrantClient(":memory:"), local=True)
    with pytest.raises(NotAvailable, match="server snapshot"):
        server.restore(out, "c")
    # a flipped byte fails its checksum
    bad = tmp_path / "bad.tar"
    with tarfile.open(out) as src, tarfile.open(bad, "w") as dst:
        for member in src.getmembers():
            data = src.extractfile(member)
            assert data is not None
            body = data.read()
            if member.name == "collection.snapshot":
                body = b"X" + body[1:]
            dst.addfile(member, __import__("io").BytesIO(body))
    with pytest.raises(SnapshotError, match="checksum failed for collection.snapshot"):
        read_snapshot_file(bad, tmp_path / "y")
    with pytest.raises(SnapshotError):
        server.restore(bad, "c")
    assert server.list_collections() == []


# --- configuration and sharding ---------------------------------------------------
def test_factory_chooses_one_adapter(tmp_path: Path) -> None:
    assert isinstance(build_backend(Settings(home=tmp_path)), EdgeBackend)
    local = build_backend(Settings(home=tmp_path, qdrant_location=":memory:"))
    assert isinstance(local, ServerBackend) and local.kind == "qdrant-local"
    with pytest.raises(ConfigError, match="only one"):
        build_backend(
            Settings(home=tmp_path, qdrant_url="http://q:6333", qdrant_location=":memory:")
        )
    with pytest.raises(ConfigError, match="needs a Qdrant server"):
        build_backend(
            Settings(home=tmp_path, qdrant_location=":memory:", qdrant_tenant_shards=["big"])
        )
    remote = build_backend(Settings(home=tmp_path, qdrant_url="http://127.0.0.1:1"))
    assert isinstance(remote, ServerBackend) and remote.kind == "qdrant" and not remote.local
    with pytest.raises(IndexError_, match=r"http://127.0.0.1:1"):  # refused: one clear line
        remote.list_collections()


def test_server_collection_params() -> None:
    from qdrant_client import models as m

    from sectio.index.port import IndexSpec
    from sectio.index.server.index import collection_params, payload_indexes

    plain = collection_params(IndexSpec(dimensions=384))
    assert plain["quantization_config"] is None and plain["vectors_config"]["dense"].on_disk is None
    assert plain["sparse_vectors_config"]["bm25"].modifier == m.Modifier.IDF
    assert "sharding_method" not in plain
    q = collection_params(
        IndexSpec(dimensions=384, quantization="int8"),
        sharding=Sharding(("big",)),
        shard_number=2,
        replication_factor=2,
    )
    assert q["quantization_config"].scalar.type == m.ScalarType.INT8
    assert q["vectors_config"]["dense"].on_disk is True  # originals on disk, int8 in RAM
    assert q["sharding_method"] == m.ShardingMethod.CUSTOM
    assert (q["shard_number"], q["replication_factor"]) == (2, 2)
    indexes = dict(payload_indexes())
    assert indexes["tenant"].is_tenant is True
    assert indexes["path"].prefix is True
    assert indexes["text"].phrase_matching is True and indexes["text"].ascii_folding is True
    assert indexes["part_index"].range is True


def test_sharding_routes_tenants() -> None:
    s = Sharding(tenant_keys=("big",))
    assert s.all_keys == ("big", SHARED_SHARD_KEY)
    assert s.key_for("big") == "big" and s.key_for("small") == SHARED_SHARD_KEY
    assert s.key_for(None) == SHARED_SHARD_KEY
    assert s.read_selector(tenant_where("big", Eq("doc_id", "x"))) == "big"
    assert s.read_selector(tenant_where("small")) == SHARED_SHARD_KEY
    assert s.read_selector(Where.of(Eq("doc_id", "x"))) is None
    assert s.read_selector(None) is None


def test_local_mode_refuses_shard_keys() -> None:
    server = ServerBackend(QdrantClient(":memory:"), local=True, tenant_shards=("big",))
    with pytest.raises(NotAvailable, match="not supported"):
        server.load_target("c", make_corpus().spec, staged=True)
    assert server.client.get_collections().collections == []


class _ShardRecordingClient(QdrantClient):
    """Local mode that accepts shard keys and records the selector of every call."""

    def __init__(self) -> None:
        super().__init__(":memory:")
        self.calls: list[tuple[str, Any]] = []
        self.keys: list[Any] = []

    def create_shard_key(self, collection_name: str, shard_key: Any, **kw: Any) -> bool:
        self.keys.append(shard_key)
        return True

    def upsert(self, collection_name: str, points: Any, **kw: Any) -> Any:
        tenants = sorted({p.payload.get("tenant") for p in points})
        self.calls.append(("upsert", (kw.get("shard_key_selector"), tenants)))
        return super().upsert(collection_name, points, **kw)

    def query_points(self, collection_name: str, *args: Any, **kw: Any) -> Any:
        self.calls.append(("query", kw.get("shard_key_selector")))
        return super().query_points(collection_name, *args, **kw)

    def count(self, collection_name: str, *args: Any, **kw: Any) -> Any:
        self.calls.append(("count", kw.get("shard_key_selector")))
        return super().count(collection_name, *args, **kw)


def test_custom_sharding_names_the_shard_key_of_each_write_and_tenant_read() -> None:
    client = _ShardRecordingClient()
    server = ServerBackend(client, local=True, tenant_shards=("t1",))
    corpus = make_corpus()
    load(server, corpus)
    assert client.keys == ["t1", SHARED_SHARD_KEY]
    writes = [c[1] for c in client.calls if c[0] == "upsert" and c[1][1] != [None]]
    assert sorted(writes) == [(SHARED_SHARD_KEY, ["t2"]), ("t1", ["t1"])]
    index = server.open("contract")
    assert index.sharding == Sharding(("t1",))  # read back from the sidecar
    client.calls.clear()
    vec = corpus.dense_of("doc0#warnings#0")
    index.search_dense(vec, 3, tenant_where("t1"))
    index.search_dense(vec, 3, tenant_where("t2"))
    index.search_dense(vec, 3)
    index.count(tenant_where("t1"))
    assert client.calls == [
        ("query", "t1"),
        ("query", SHARED_SHARD_KEY),
        ("query", None),
        ("count", "t1"),
    ]
