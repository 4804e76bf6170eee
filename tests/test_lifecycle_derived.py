"""Derived data follows a document write (real Qdrant Edge, fake embedder, Python API).

The writing process's caches are dropped for the collection after every write (the
router with its document-name resolver and learned vocabulary, the fusion and
answerability calibration through a new collection object); BM25 IDF is the
engine's over the points as they are; the docs layers are rows of their page.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sectio import Sectio, Settings
from sectio.retrieve.reads import scroll_all
from tests.helpers import chunk, write_jsonl

A = [
    chunk("aspirin", "warnings", 0, "Aspirin may cause stomach bleeding.", doc_title="Aspirin"),
    chunk("warfarin", "warnings", 0, "Warfarin raises the risk of bleeding.", doc_title="Warfarin"),
]


@pytest.fixture
def s(tmp_path: Path) -> Iterator[Sectio]:
    with Sectio(Settings(home=tmp_path / "home", embedder="fake")) as sectio:
        yield sectio


def lexical_docs(s: Sectio, query: str) -> list[str]:
    return [h.doc_id for h in s.search(query, mode="lexical", top_k=10).hits]


def test_a_new_title_routes_and_a_deleted_one_no_longer_resolves(s: Sectio, tmp_path: Path) -> None:
    s.ingest(write_jsonl(tmp_path / "a.jsonl", A))
    question = "What are the warnings of heparin?"
    assert all(e.doc_id != "heparin" for e in s.ask(question).evidence)
    heparin = chunk(
        "heparin", "warnings", 0, "Heparin can cause thrombocytopenia.", doc_title="Heparin"
    )
    s.upsert(write_jsonl(tmp_path / "h.jsonl", [heparin]))
    routed = s.ask(question)
    assert {e.doc_id for e in routed.evidence} == {"heparin"}
    s.delete(["heparin"])
    assert all(e.doc_id != "heparin" for e in s.ask(question).evidence)


def test_bm25_idf_is_over_the_points_as_they_are(s: Sectio, tmp_path: Path) -> None:
    s.ingest(write_jsonl(tmp_path / "a.jsonl", A))
    assert lexical_docs(s, "thrombocytopenia") == []
    heparin = chunk("heparin", "warnings", 0, "Heparin can cause thrombocytopenia.")
    s.upsert(write_jsonl(tmp_path / "h.jsonl", [heparin]))
    assert lexical_docs(s, "thrombocytopenia") == ["heparin"]
    s.delete(["heparin"])
    assert lexical_docs(s, "thrombocytopenia") == []
    hybrid = s.search("bleeding", mode="hybrid", top_k=10)  # calibration measured again
    assert {h.doc_id for h in hybrid.hits} == {"aspirin", "warfarin"}


def layers(s: Sectio, name: str) -> set[tuple[str, str]]:
    """(doc id, layer) of every point: the D0 prose and the D1-D5 rows of each page."""
    return {
        (p.payload["doc_id"], str(p.payload.get("layer")))
        for p in scroll_all(s.collection(name).index, "default")
    }


def test_docs_layers_follow_a_synced_tree(s: Sectio, tmp_path: Path) -> None:
    """A page gone takes its D1-D5 rows (its links too); a new page brings its own."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "install.md").write_text("# Install\n\nRun pip install. See [usage](usage.md).\n")
    (docs / "usage.md").write_text("# Usage\n\nCall the command line tool.\n")
    s.ingest(docs, collection="d")
    assert ("install.md", "D5") in layers(s, "d")  # its link to usage.md
    (docs / "install.md").unlink()
    (docs / "config.md").write_text("# Configuration\n\nSet the cache folder.\n")
    report = s.sync(docs, collection="d")
    assert (report.added, report.deleted) == (("config.md",), ("install.md",))
    after = layers(s, "d")
    assert not {d for d, _ in after} & {"install.md"}
    assert {("config.md", "D0"), ("config.md", "D1"), ("config.md", "D3")} <= after
    manifest = s.backend.read_manifest("d")
    assert manifest is not None and s.collection("d").index.count() == manifest.chunk_count
    assert set(manifest.tenants["default"]["documents"]) == {"config.md", "usage.md"}


def test_calibrations_are_measured_again_once_writes_add_up(s: Sectio, tmp_path: Path) -> None:
    """A write under 5% of the tenant's points keeps the open collection (and what was
    measured on it); writes adding up past it make it a new object (measured again)."""
    rows = [chunk(f"d{i}", "s", 0, f"text of document {i}.") for i in range(60)]
    s.ingest(write_jsonl(tmp_path / "a.jsonl", rows))
    opened = s.collection("default")
    s.upsert(write_jsonl(tmp_path / "b.jsonl", [chunk("d0", "s", 0, "new text 0.")]))
    assert s.collection("default") is opened and opened.manifest.chunk_count == 60
    s.upsert(write_jsonl(tmp_path / "c.jsonl", [chunk("d1", "s", 0, "new text 1.")]))
    s.upsert(write_jsonl(tmp_path / "d.jsonl", [chunk("d2", "s", 0, "new text 2.")]))
    assert s.collection("default") is not opened  # 3 of 60 points: 5%
    assert lexical_docs(s, "new text 2")[:1] == ["d2"]
