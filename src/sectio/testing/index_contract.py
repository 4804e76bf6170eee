"""The contract every index backend passes (the VectorIndex, LoadTarget and IndexBackend ports).

For people who write their own backend: subclass :class:`IndexContract` in a test
module and give it one class-scoped fixture, ``make_backend``, returning a callable
that builds a fresh, empty backend in a given folder. Needs pytest (not a
dependency of sectio itself); call ``pytest.register_assert_rewrite("sectio.testing")``
in your ``conftest.py`` for detailed assertion messages.

Example (a test module)::

    import pytest
    from sectio.index.edge.store import EdgeBackend
    from sectio.testing.index_contract import IndexContract

    class TestEdgeContract(IndexContract):
        @pytest.fixture(scope="class")
        @classmethod
        def make_backend(cls):
            return lambda folder: EdgeBackend(folder / "collections")
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sectio.errors import CollectionNotFound
from sectio.index.filters import (
    AnyOf,
    Eq,
    HasIds,
    Phrase,
    Prefix,
    Range,
    TextAny,
    Where,
    tenant_where,
)
from sectio.index.ids import point_id_for
from sectio.index.port import IndexBackend, Journaled, PointData, VectorIndex
from sectio.ingest import journal
from sectio.testing.corpus import Corpus, make_corpus, make_records, oracle, subset

NAME = "contract"


def load(backend: IndexBackend, corpus: Corpus, name: str = NAME, staged: bool = True) -> None:
    """Load ``corpus`` the way the loader does: manifest first, points, count, commit."""
    target = backend.load_target(name, corpus.spec, staged=staged)
    try:
        target.write_manifest(corpus.manifest.model_copy(update={"collection": name}))
        target.index.upsert(corpus.points)
        assert target.index.count() == len(corpus.points)
        target.index.optimize()
        target.commit()
    except BaseException:
        target.abort()
        raise


def scroll_all(index: VectorIndex, where: Where | None, page: int, **kw: Any) -> list[Any]:
    """Every point under ``where``, page by page; asserts no page repeats a point."""
    out: list[Any] = []
    offset = None
    for _ in range(1000):
        points, offset = index.scroll(where, limit=page, offset=offset, **kw)
        assert len(points) <= page
        out.extend(points)
        if offset is None:
            break
    ids = [p.id for p in out]
    assert len(ids) == len(set(ids)), "a point came back twice"
    return out


#: One filter per condition type, plus combinations and exclusions (oracle-checked).
FILTERS: dict[str, Where] = {
    "eq-keyword": Where.of(Eq("doc_id", "doc1")),
    "eq-int": Where.of(Eq("part_index", 1)),
    "eq-array": Where.of(Eq("tags", "even")),
    "eq-nested": Where.of(Eq("metadata.domain", "devices")),
    "eq-flag": Where.of(Eq("_sectio.requires_visual_check", 1)),
    "anyof-str": Where.of(AnyOf("section_key", ("warnings", "dosage"))),
    "anyof-int": Where.of(AnyOf("part_index", (0, 2))),
    "prefix-path": Where.of(Prefix("path", "docs/guide/")),
    "prefix-path-doc": Where.of(Prefix("path", "docs/ref/doc3/")),
    "phrase": Where.of(Phrase("text", "maximum daily dose")),
    "phrase-miss": Where.of(Phrase("text", "daily maximum dose")),
    "text-any": Where.of(TextAny("text", "fever bleeding")),
    "range": Where.of(Range("metadata.rank", gte=3, lte=9)),
    "range-open": Where.of(Range("part_index", gte=2)),
    "has-ids": Where.of(HasIds((point_id_for("doc0#warnings#0"), point_id_for("doc3#dosage#1")))),
    "must-not": Where.of(Eq("tenant", "t1")).and_not(Eq("section_key", "warnings")),
    "tenant+section": tenant_where("t2", Eq("section_key", "dosage")),
    "nothing": Where.of(Eq("doc_id", "no-such-doc")),
}


def _close(backend: IndexBackend) -> None:
    close = getattr(backend, "close", None)
    if callable(close):
        close()


class IndexContract:
    """Reusable tests; a subclass provides one fixture, ``make_backend``.

    ``make_backend`` (class scope) returns a callable that builds a fresh, empty
    backend in a given folder. Read-only tests share one loaded collection per
    class (``index``); tests that write get a fresh ``backend`` each.
    """

    @pytest.fixture(scope="class")
    @classmethod
    def make_backend(cls) -> Callable[[Path], IndexBackend]:  # pragma: no cover - overridden
        raise NotImplementedError

    @pytest.fixture
    def backend(
        self, make_backend: Callable[[Path], IndexBackend], tmp_path: Path
    ) -> Iterator[IndexBackend]:
        backend = make_backend(tmp_path)
        yield backend
        _close(backend)

    @pytest.fixture(scope="class")
    @classmethod
    def corpus(cls) -> Corpus:
        return make_corpus()

    @pytest.fixture(scope="class")
    @classmethod
    def loaded(
        cls,
        make_backend: Callable[[Path], IndexBackend],
        corpus: Corpus,
        tmp_path_factory: pytest.TempPathFactory,
    ) -> Iterator[IndexBackend]:
        """One backend holding the corpus, shared by the read-only tests of a class."""
        backend = make_backend(tmp_path_factory.mktemp("loaded"))
        load(backend, corpus)
        yield backend
        _close(backend)

    @pytest.fixture
    def index(self, loaded: IndexBackend) -> Iterator[VectorIndex]:
        idx = loaded.open(NAME)
        yield idx
        idx.close()

    # --- the store --------------------------------------------------------------
    def test_empty_store(self, backend: IndexBackend) -> None:
        assert backend.list_collections() == []
        assert not backend.exists(NAME)
        assert backend.read_manifest(NAME) is None
        assert backend.point_count(NAME) == 0
        with pytest.raises(CollectionNotFound):
            backend.open(NAME)
        with pytest.raises(CollectionNotFound):
            backend.drop(NAME)

    def test_staged_load_is_invisible_until_commit(
        self, backend: IndexBackend, corpus: Corpus
    ) -> None:
        target = backend.load_target(NAME, corpus.spec, staged=True)
        assert target.staged
        target.write_manifest(corpus.manifest)
        target.index.upsert(corpus.points)
        assert not backend.exists(NAME)
        assert backend.list_collections() == []
        target.commit()
        assert backend.exists(NAME)
        assert backend.list_collections() == [NAME]
        assert backend.point_count(NAME) == len(corpus.points)

    def test_manifest_lives_beside_the_data(self, backend: IndexBackend, corpus: Corpus) -> None:
        load(backend, corpus)
        manifest = backend.read_manifest(NAME)
        assert manifest == corpus.manifest
        # the manifest is never a point: the count gate needs no footnote
        assert backend.point_count(NAME) == corpus.manifest.chunk_count
        idx = backend.open(NAME)
        try:
            assert idx.count() == corpus.manifest.chunk_count
            assert idx.spec.dimensions == corpus.spec.dimensions
            assert idx.spec.sparse_names == corpus.spec.sparse_names
        finally:
            idx.close()

    def test_abort_of_a_first_load_leaves_nothing(
        self, backend: IndexBackend, corpus: Corpus
    ) -> None:
        target = backend.load_target(NAME, corpus.spec, staged=True)
        target.write_manifest(corpus.manifest)
        target.index.upsert(corpus.points[:5])
        target.abort()
        assert not backend.exists(NAME)
        assert backend.list_collections() == []
        assert backend.read_manifest(NAME) is None

    def test_replace_switches_whole_and_abort_keeps_the_old(
        self, backend: IndexBackend, corpus: Corpus
    ) -> None:
        load(backend, corpus)
        new = make_corpus(make_records(n_docs=2), seed=11)
        # a staged replacement is built beside; readers see the old corpus meanwhile
        target = backend.load_target(NAME, new.spec, staged=True)
        target.write_manifest(new.manifest)
        target.index.upsert(new.points)
        assert backend.read_manifest(NAME) == corpus.manifest
        assert backend.point_count(NAME) == len(corpus.points)
        target.abort()
        assert backend.read_manifest(NAME) == corpus.manifest
        assert backend.point_count(NAME) == len(corpus.points)
        assert backend.list_collections() == [NAME]
        # the same replacement committed: manifest and data switch together
        load(backend, new)
        assert backend.read_manifest(NAME) == new.manifest
        assert backend.point_count(NAME) == len(new.points)
        assert backend.list_collections() == [NAME]

    def test_an_open_index_keeps_answering_across_a_replace(
        self, backend: IndexBackend, corpus: Corpus
    ) -> None:
        """A reader opened before another writer's replace still answers (old or new data)."""
        load(backend, corpus)
        reader = backend.open(NAME)
        try:
            new = make_corpus(make_records(n_docs=2), seed=11)
            load(backend, new)
            count = reader.count()
            assert count in (len(corpus.points), len(new.points))
            hits = reader.search_dense(corpus.dense_of("doc0#warnings#0"), 3)
            assert len(hits) == 3
        finally:
            reader.close()

    def test_in_place_load_writes_the_live_collection(
        self, backend: IndexBackend, corpus: Corpus
    ) -> None:
        load(backend, corpus)
        target = backend.load_target(NAME, corpus.spec, staged=False)
        assert not target.staged
        updated = corpus.manifest.model_copy(update={"source": "again"})
        target.write_manifest(updated)
        target.index.upsert(corpus.points[:3])  # idempotent by id
        target.commit()
        assert backend.point_count(NAME) == len(corpus.points)
        found = backend.read_manifest(NAME)
        assert found is not None and found.source == "again"

    def test_drop(self, backend: IndexBackend, corpus: Corpus) -> None:
        load(backend, corpus)
        load(backend, corpus, name="other")
        backend.drop(NAME)
        assert not backend.exists(NAME)
        assert backend.read_manifest(NAME) is None
        assert backend.list_collections() == ["other"]

    # --- writes and reads -------------------------------------------------------
    def test_upsert_is_idempotent(self, backend: IndexBackend, corpus: Corpus) -> None:
        load(backend, corpus)
        index = backend.open(NAME)
        try:
            index.upsert(corpus.points[:10])
            assert index.count() == len(corpus.points)
        finally:
            index.close()

    def test_retrieve_returns_whole_payloads(self, index: VectorIndex, corpus: Corpus) -> None:
        wanted = [corpus.points[0].id, corpus.points[5].id, "00000000-0000-5000-8000-0000000000ff"]
        got = {p.id: p for p in index.retrieve(wanted)}
        assert set(got) == set(wanted[:2])
        for pid in wanted[:2]:
            assert got[pid].payload == corpus.payloads[pid]  # no whitelist, no engine fields
            assert got[pid].score is None
            assert got[pid].dense is None
        assert index.retrieve([]) == []

    def test_retrieve_with_vectors(self, index: VectorIndex, corpus: Corpus) -> None:
        p = corpus.points[3]
        (got,) = index.retrieve([p.id], with_vectors=True)
        assert got.dense is not None and len(got.dense) == corpus.spec.dimensions

    def test_scroll_pages_cover_everything_once(self, index: VectorIndex, corpus: Corpus) -> None:
        for page in (1, 7, 256):
            points = scroll_all(index, None, page)
            assert {p.id for p in points} == set(corpus.payloads)

    def test_scroll_with_filter_and_vectors(self, index: VectorIndex, corpus: Corpus) -> None:
        where = tenant_where("t1")
        points = scroll_all(index, where, 4, with_vectors=True)
        assert {p.id for p in points} == oracle(corpus, where)
        by_id = {p.id: p for p in corpus.points}
        for p in points:
            assert p.dense is not None and len(p.dense) == corpus.spec.dimensions
            assert p.sparse is not None
            want = by_id[p.id].sparse["bm25"]
            assert sorted(p.sparse["bm25"].indices) == sorted(want.indices)

    def test_section_scroll_is_complete(self, index: VectorIndex, corpus: Corpus) -> None:
        where = Where.of(Eq("doc_id", "doc1"), Eq("section_key", "warnings"))
        points = scroll_all(index, where, 1)
        parts = sorted(p.payload["part_index"] for p in points)
        assert parts == list(range(len(parts))) and len(parts) >= 2

    @pytest.mark.parametrize("case", sorted(FILTERS))
    def test_filters_count_and_scroll(self, index: VectorIndex, corpus: Corpus, case: str) -> None:
        where = FILTERS[case]
        expected = oracle(corpus, where)
        assert index.count(where) == len(expected)
        assert {p.id for p in scroll_all(index, where, 16)} == expected
        if case not in ("nothing", "phrase-miss"):
            assert expected, f"filter {case} matches nothing: a useless test"

    def test_tenant_filter_on_every_search(self, index: VectorIndex, corpus: Corpus) -> None:
        where = tenant_where("t2")
        allowed = oracle(corpus, where)
        q = corpus.query("pain fever dose")
        dense = corpus.dense_of("doc0#indications#0")  # a t1 point's own vector
        assert {h.id for h in index.search_dense(dense, 50, where)} <= allowed
        assert {h.id for h in index.search_sparse("bm25", q["bm25"], 50, where)} <= allowed
        fused = index.search_fused(dense, q, 50, 50, where, rrf_k=60)
        assert fused and {h.id for h in fused} <= allowed

    # --- searches ---------------------------------------------------------------
    def test_search_dense(self, index: VectorIndex, corpus: Corpus) -> None:
        me = point_id_for("doc2#dosage#1")
        hits = index.search_dense(corpus.dense_of("doc2#dosage#1"), 5)
        assert len(hits) == 5
        assert hits[0].id == me and hits[0].score == pytest.approx(1.0, abs=1e-4)
        scores = [h.score or 0.0 for h in hits]
        assert scores == sorted(scores, reverse=True)
        assert hits[0].payload == corpus.payloads[me]
        high = index.search_dense(corpus.dense_of("doc2#dosage#1"), 5, score_threshold=0.99)
        assert [h.id for h in high] == [me]

    def test_search_dense_without_payload(self, index: VectorIndex, corpus: Corpus) -> None:
        hits = index.search_dense(corpus.dense_of("doc2#dosage#1"), 3, with_payload=False)
        assert len(hits) == 3 and hits[0].id == point_id_for("doc2#dosage#1")
        assert all(h.payload == {} for h in hits)

    def test_search_dense_filtered(self, index: VectorIndex, corpus: Corpus) -> None:
        where = Where.of(Eq("section_key", "warnings"))
        hits = index.search_dense(corpus.dense_of("doc2#dosage#1"), 100, where)
        assert {h.id for h in hits} == oracle(corpus, where)

    def test_search_sparse(self, index: VectorIndex, corpus: Corpus) -> None:
        q = corpus.query("lactic acidosis")
        hits = index.search_sparse("bm25", q["bm25"], 10)
        assert hits
        assert all("acidosis" in h.payload["text"] for h in hits)
        scores = [h.score or 0.0 for h in hits]
        assert scores == sorted(scores, reverse=True) and scores[-1] > 0
        with_word = {pid for pid, p in corpus.payloads.items() if "acidosis" in p["text"]}
        assert {h.id for h in index.search_sparse("bm25", q["bm25"], 100)} == with_word

    def test_search_sparse_without_payload(self, index: VectorIndex, corpus: Corpus) -> None:
        q = corpus.query("lactic acidosis")["bm25"]
        full = index.search_sparse("bm25", q, 10)
        bare = index.search_sparse("bm25", q, 10, with_payload=False)
        assert [(h.id, h.score) for h in bare] == [(h.id, h.score) for h in full]
        assert bare and all(h.payload == {} for h in bare)

    def test_search_fused(self, index: VectorIndex, corpus: Corpus) -> None:
        q = corpus.query("stomach bleeding")
        dense = corpus.dense_of("doc1#warnings#0")
        pool = 6
        fused = index.search_fused(dense, q, pool, 8, None, rrf_k=60)
        d = {h.id for h in index.search_dense(dense, pool)}
        s = {h.id for h in index.search_sparse("bm25", q["bm25"], pool)}
        assert 0 < len(fused) <= 8
        assert {h.id for h in fused} <= d | s
        scores = [h.score or 0.0 for h in fused]
        assert scores == sorted(scores, reverse=True)
        # k is honoured: RRF gives 1/(k + rank) per list, rank from 0 (k=60: at most 1/60)
        assert fused[0].score is not None and fused[0].score <= 2 / 60 + 1e-6
        assert fused[0].id in d & s or fused[0].score <= 1 / 60 + 1e-6
        (first,) = index.search_fused(dense, {}, pool, 1, None, rrf_k=60)
        assert first.score == pytest.approx(1 / 60, rel=1e-4)
        only_dense = index.search_fused(dense, {}, pool, 3, None, rrf_k=60)
        assert [h.id for h in only_dense] == [h.id for h in index.search_dense(dense, 3)]
        assert index.search_fused(None, {}, pool, 3, None, rrf_k=60) == []

    def test_search_fused_with_vectors(self, index: VectorIndex, corpus: Corpus) -> None:
        q = corpus.query("tablet water")
        hits = index.search_fused(corpus.dense_of("doc0#dosage#0"), q, 5, 3, None, 60, None, True)
        assert hits and all(
            h.dense is not None and len(h.dense) == corpus.spec.dimensions for h in hits
        )

    def test_per_tenant_idf(self, backend: IndexBackend) -> None:
        """A tenant's BM25 ranking does not move when another tenant's documents arrive."""
        t1 = [
            _row("a1", "t1", "alpha common common"),
            _row("a2", "t1", "beta common common"),
            _row("a3", "t1", "alpha delta"),
            _row("a4", "t1", "gamma delta delta"),
        ]
        t2 = [_row(f"b{i}", "t2", f"beta filler{i} filler") for i in range(12)]
        mixed = make_corpus(t1 + t2, seed=3)
        alone = subset(mixed, "t1")
        q = alone.query("alpha beta")["bm25"]
        tenant = tenant_where("t1")
        load(backend, alone, name="alone")
        load(backend, mixed, name="mixed")
        a, m = backend.open("alone"), backend.open("mixed")
        try:
            ref = a.search_sparse("bm25", q, 10, tenant)
            scoped = m.search_sparse("bm25", q, 10, tenant, idf_where=tenant)
            skewed = m.search_sparse("bm25", q, 10, tenant)
            ids = lambda hits: [h.payload["chunk_id"] for h in hits]  # noqa: E731
            assert ids(ref)[0] == "a2"  # beta is rare inside t1
            assert ids(scoped) == ids(ref)
            assert [h.score for h in scoped] == pytest.approx([h.score for h in ref], rel=1e-4)
            # both adapters compute a tenant-scoped list's IDF over that tenant alone
            # (index/qdrant/requests.tenant_idf): t2's many "beta" documents move nothing
            assert ids(skewed) == ids(ref)
            dense = mixed.dense_of("a4")
            ref_f = a.search_fused(dense, {"bm25": q}, 10, 10, tenant, 60, idf_where=tenant)
            scoped_f = m.search_fused(dense, {"bm25": q}, 10, 10, tenant, 60, idf_where=tenant)
            assert ids(scoped_f) == ids(ref_f)
        finally:
            a.close()
            m.close()

    # --- document writes in place (sectio.ingest.lifecycle) ---------------------------
    def test_delete_removes_points_by_id(self, backend: IndexBackend, corpus: Corpus) -> None:
        load(backend, corpus)
        index = backend.open(NAME)
        try:
            gone = [corpus.points[0].id, corpus.points[1].id]
            index.delete([*gone, "00000000-0000-5000-8000-0000000000ff"])  # unknown: ignored
            index.delete([])
            assert index.count() == len(corpus.points) - 2
            assert index.retrieve(gone) == []
            index.delete(gone)  # idempotent
            assert index.count() == len(corpus.points) - 2
        finally:
            index.close()

    def test_journal_and_live_manifest(self, backend: IndexBackend, corpus: Corpus) -> None:
        if not isinstance(backend, Journaled):
            pytest.skip("this backend does not write documents in place")
        with pytest.raises(CollectionNotFound):
            backend.write_journal(NAME, {"kind": "x"})
        load(backend, corpus)
        assert backend.read_journal(NAME) is None
        entry = {"kind": "add_tenant", "tenants": ["acme"], "nested": {"a": [1, 2.5]}}
        backend.write_journal(NAME, entry)
        assert backend.read_journal(NAME) == entry
        changed = corpus.manifest.model_copy(update={"collection": NAME, "source": "edited"})
        backend.write_live_manifest(NAME, changed)
        assert backend.read_manifest(NAME) == changed
        assert backend.point_count(NAME) == len(corpus.points)
        backend.write_journal(NAME, None)
        assert backend.read_journal(NAME) is None
        backend.write_journal(NAME, None)  # clearing nothing is fine

    def test_journal_replay_makes_documents_new(
        self, backend: IndexBackend, corpus: Corpus
    ) -> None:
        """A document write killed after its journal entry: replaying it (what the next
        write or ``gc`` does) leaves the points and the manifest of the new version."""
        if not isinstance(backend, Journaled):
            pytest.skip("this backend does not write documents in place")
        load(backend, corpus)
        old = corpus.points[0]
        new = PointData(old.id, old.dense, old.sparse, {**old.payload, "text": "rewritten"})
        gone = corpus.points[1].id
        after = corpus.manifest.model_copy(
            update={"collection": NAME, "chunk_count": len(corpus.points) - 1}
        )
        backend.write_journal(NAME, journal.documents_entry("default", [new], [gone], after))
        index = backend.open(NAME)
        try:
            index.upsert([new])  # the crash came after the upsert, before the removal
        finally:
            index.close()
        assert journal.settle(backend, NAME) == "finished"
        assert backend.read_journal(NAME) is None
        assert backend.read_manifest(NAME) == after
        index = backend.open(NAME)
        try:
            assert index.count() == len(corpus.points) - 1
            assert index.retrieve([gone]) == []
            (got,) = index.retrieve([old.id])
            assert got.payload["text"] == "rewritten"
        finally:
            index.close()
        assert journal.settle(backend, NAME) is None  # nothing pending: nothing done


def _row(cid: str, tenant: str, text: str) -> dict[str, Any]:
    return {
        "chunk_id": cid,
        "doc_id": cid,
        "section_key": "body",
        "part_index": 0,
        "text": text,
        "tenant": tenant,
    }


__all__ = ["FILTERS", "NAME", "IndexContract", "PointData", "load", "scroll_all"]
