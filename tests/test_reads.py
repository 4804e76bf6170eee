"""Tenant-scoped reads: hydration order, complete paging, section order."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from sectio import Sectio, Settings
from sectio.index.filters import Eq, Where, tenant_where
from sectio.index.ids import point_id_for
from sectio.index.port import StoredPoint
from sectio.retrieve import reads
from tests.helpers import chunk, write_jsonl

N = 12


@pytest.fixture(scope="module")
def loaded_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Loaded once per module; each test reads it through its own Sectio."""
    tmp_path = tmp_path_factory.mktemp("reads")
    rows = [chunk("doc", "body", i, f"part number {i} of the body") for i in range(N)]
    rows.reverse()  # written in reverse part order
    rows.append(chunk("other", "body", 0, "another document"))
    with Sectio(Settings(home=tmp_path / "home", embedder="fake")) as s:
        s.ingest(write_jsonl(tmp_path / "r.jsonl", rows), collection="r")
    return tmp_path / "home"


@pytest.fixture
def loaded(loaded_home: Path) -> Iterator[Sectio]:
    s = Sectio(Settings(home=loaded_home, embedder="fake"))
    yield s
    s.close()


def test_in_ranking_order_restores_the_ranking() -> None:
    assert reads.in_ranking_order(["c", "a", "b"], ["a", "b", "c"], key=str) == ["a", "b", "c"]
    # items not in the ranking are dropped; a duplicate keeps its first copy
    pts = [
        StoredPoint("x", {"n": 1}),
        StoredPoint("b", {"n": 2}),
        StoredPoint("a", {"n": 3}),
        StoredPoint("b", {"n": 4}),
    ]
    out = reads.in_ranking_order(pts, ["a", "b"], key=lambda p: p.id)
    assert [(p.id, p.payload["n"]) for p in out] == [("a", 3), ("b", 2)]
    # a ranking that repeats an id places it at its first position
    assert reads.in_ranking_order(["b", "a"], ["a", "b", "a"], key=str) == ["a", "b"]


def test_hydration_keeps_the_order_asked_for(loaded: Sectio) -> None:
    index = loaded.collection("r").index
    chunk_ids = [f"doc#body#{i}" for i in range(N)]
    engine_order = [p.id for p in index.retrieve([point_id_for(c) for c in chunk_ids])]
    orders = [chunk_ids, list(reversed(chunk_ids))]
    shuffled = list(chunk_ids)
    random.Random(7).shuffle(shuffled)
    orders.append(shuffled)
    # the engine's own order differs from at least one asked order: the re-sort matters
    assert any(engine_order != [point_id_for(c) for c in order] for order in orders)
    for order in orders:
        got = reads.retrieve_chunks(index, order, "default")
        assert [p.payload["chunk_id"] for p in got] == order
        assert [e.chunk_id for e in loaded.get(order, collection="r", tenant="default")] == order


def test_hydration_skips_unknown_ids(loaded: Sectio) -> None:
    got = loaded.get(["doc#body#3", "nope", "doc#body#1"], collection="r", tenant="default")
    assert [e.chunk_id for e in got] == ["doc#body#3", "doc#body#1"]
    assert loaded.get([], collection="r", tenant="default") == []


def test_scroll_all_pages_to_the_end(loaded: Sectio) -> None:
    index = loaded.collection("r").index
    for page in (1, 5, 256):
        pts = reads.scroll_all(index, "default", page=page)
        assert len(pts) == N + 1 and len({p.id for p in pts}) == N + 1


def test_section_read_is_complete_and_in_part_order(loaded: Sectio) -> None:
    index = loaded.collection("r").index
    pts = reads.section_chunks(index, "default", "doc", "body")
    assert [p.payload["part_index"] for p in pts] == list(range(N))
    section = loaded.chunks(collection="r", filters={"doc_id": "doc"}, tenant="default")
    assert [e.part_index for e in section] == list(range(N))


def test_count_is_scoped(loaded: Sectio) -> None:
    index = loaded.collection("r").index
    assert reads.count(index, "default") == N + 1
    assert loaded.count(collection="r", filters={"doc_id": "other"}, tenant="default") == 1
    assert reads.count(index, "someone-else") == 0


def test_scoped_adds_the_tenant_once_and_keeps_every_other_condition() -> None:
    doc = Eq("doc_id", "x")
    assert reads.scoped("a", tenant_where("a", doc)).must == (Eq("tenant", "a"), doc)
    assert reads.scoped("a", Where.of(doc)).must == (Eq("tenant", "a"), doc)
    # another tenant's condition is never dropped: the filter then matches nothing
    assert reads.scoped("a", tenant_where("b")).must == (Eq("tenant", "a"), Eq("tenant", "b"))
    assert reads.scoped("a", Where(must_not=(doc,))).must_not == (doc,)
