"""Tenant isolation in depth: the engine filter, and the Python check behind it.

Two tenants hold byte-identical documents. Every read path returns only the
caller's tenant; and when the engine layer is replaced by a double that drops
the tenant condition (a broken filter), the second check still holds the line.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from sectio import Sectio, Settings
from sectio.index.filters import Eq, Where
from sectio.index.port import DenseVector, SparseVec, StoredPoint, VectorIndex
from sectio.retrieve import reads
from sectio.retrieve.search import MODES
from tests.helpers import chunk, write_jsonl

TEXTS = [
    ("aspirin", "indications", 0, "Aspirin relieves pain and reduces fever."),
    ("aspirin", "indications", 1, "It also lowers the risk of heart attack."),
    ("aspirin", "warnings", 0, "Aspirin may cause stomach bleeding."),
    ("metformin", "indications", 0, "Metformin treats type 2 diabetes."),
]
TENANTS = ("acme", "globex")


def _rows() -> list[dict[str, Any]]:
    rows = []
    for tenant in TENANTS:
        for doc, section, part, text in TEXTS:
            row = chunk(doc, section, part, text, tenant=tenant, doc_title=doc.title())
            row["chunk_id"] = f"{tenant}:{row['chunk_id']}"  # ids are unique per collection
            rows.append(row)
    return rows


@pytest.fixture(scope="module")
def two_tenants_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Loaded once per module; tests only read it, each through its own Sectio."""
    tmp_path = tmp_path_factory.mktemp("tenants")
    home = tmp_path / "home"
    with Sectio(Settings(home=home, embedder="fake")) as s:
        s.ingest(write_jsonl(tmp_path / "t.jsonl", _rows()), collection="t")
    return home


@pytest.fixture
def two_tenants(two_tenants_home: Path) -> Iterator[Sectio]:
    s = Sectio(Settings(home=two_tenants_home, embedder="fake"))
    yield s
    s.close()


class TenantBlindIndex:
    """A broken engine layer: forwards every call but drops the tenant condition."""

    def __init__(self, inner: VectorIndex) -> None:
        self.inner = inner
        self.spec = inner.spec

    @staticmethod
    def _blind(where: Where | None) -> Where | None:
        if where is None:
            return None
        must = tuple(c for c in where.must if not (isinstance(c, Eq) and c.key == "tenant"))
        return Where(must=must, must_not=where.must_not)

    def count(self, where: Where | None = None) -> int:
        return self.inner.count(self._blind(where))

    def scroll(
        self,
        where: Where | None,
        limit: int = 256,
        offset: str | None = None,
        with_vectors: bool = False,
    ) -> tuple[list[StoredPoint], str | None]:
        return self.inner.scroll(self._blind(where), limit, offset)

    def retrieve(self, ids: Sequence[str], with_vectors: bool = False) -> list[StoredPoint]:
        return self.inner.retrieve(ids, with_vectors)

    def search_dense(
        self,
        vector: DenseVector,
        limit: int,
        where: Where | None = None,
        score_threshold: float | None = None,
        with_payload: bool = True,
    ) -> list[StoredPoint]:
        return self.inner.search_dense(
            vector, limit, self._blind(where), score_threshold, with_payload=with_payload
        )

    def search_sparse(
        self,
        name: str,
        vector: SparseVec,
        limit: int,
        where: Where | None = None,
        idf_where: Where | None = None,
        with_payload: bool = True,
    ) -> list[StoredPoint]:
        return self.inner.search_sparse(
            name, vector, limit, self._blind(where), idf_where, with_payload=with_payload
        )

    def search_fused(
        self,
        dense: DenseVector | None,
        sparse: dict[str, SparseVec],
        pool: int,
        limit: int,
        where: Where | None,
        rrf_k: int,
        weights: Sequence[float] | None = None,
        with_vectors: bool = False,
        idf_where: Where | None = None,
    ) -> list[StoredPoint]:
        return self.inner.search_fused(
            dense,
            sparse,
            pool,
            limit,
            self._blind(where),
            rrf_k,
            weights,
            with_vectors,
            idf_where,
        )

    def close(self) -> None:
        self.inner.close()


def _break_engine(sectio: Sectio, name: str) -> TenantBlindIndex:
    coll = sectio.collection(name)
    blind = TenantBlindIndex(coll.index)
    sectio._open[name] = replace(coll, index=blind)  # type: ignore[arg-type]
    return blind


# --- the engine filter ----------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tenant", TENANTS)
def test_search_returns_only_the_callers_tenant(
    two_tenants: Sectio, mode: str, tenant: str
) -> None:
    result = two_tenants.search(
        "aspirin pain fever", collection="t", top_k=50, mode=mode, tenant=tenant
    )
    assert result.hits
    assert {h.tenant for h in result.hits} == {tenant}
    assert all(h.chunk_id.startswith(f"{tenant}:") for h in result.hits)
    # byte-identical documents: each tenant sees one copy, never both
    assert len({h.text for h in result.hits}) == len(result.hits)
    assert two_tenants.tenant_guard.dropped == 0


def test_unknown_tenant_sees_nothing(two_tenants: Sectio) -> None:
    for mode in MODES:
        assert two_tenants.search("aspirin", collection="t", mode=mode, tenant="initech").hits == []
    assert two_tenants.count(collection="t", tenant="initech") == 0
    assert two_tenants.chunks(collection="t", tenant="initech") == []


def test_count_scroll_and_retrieve_are_tenant_scoped(two_tenants: Sectio) -> None:
    for tenant in TENANTS:
        assert two_tenants.count(collection="t", tenant=tenant) == len(TEXTS)
        assert two_tenants.count(collection="t", filters={"doc_id": "aspirin"}, tenant=tenant) == 3
        every = two_tenants.chunks(collection="t", tenant=tenant)
        assert len(every) == len(TEXTS) and {e.tenant for e in every} == {tenant}
        section = two_tenants.chunks(
            collection="t",
            filters={"doc_id": "aspirin", "section_key": "indications"},
            tenant=tenant,
        )
        assert [e.part_index for e in section] == [0, 1] and {e.tenant for e in section} == {tenant}
        own = f"{tenant}:aspirin#warnings#0"
        other = f"{'globex' if tenant == 'acme' else 'acme'}:aspirin#warnings#0"
        assert [
            e.chunk_id for e in two_tenants.get([own, other], collection="t", tenant=tenant)
        ] == [own]
    assert two_tenants.tenant_guard.dropped == 0  # the engine filter did its job everywhere


def test_reads_module_paths_are_tenant_scoped(two_tenants: Sectio) -> None:
    index = two_tenants.collection("t").index
    guard = reads.TenantGuard()
    pts = reads.scroll_all(index, "acme", guard=guard, page=2)
    assert len(pts) == len(TEXTS) and {p.payload["tenant"] for p in pts} == {"acme"}
    sec = reads.section_chunks(index, "globex", "aspirin", "indications", guard=guard)
    assert [p.payload["part_index"] for p in sec] == [0, 1]
    assert {p.payload["tenant"] for p in sec} == {"globex"}
    assert guard.dropped == 0


# --- a broken engine filter is caught by the second check -------------------------------------
def test_the_double_really_leaks(two_tenants: Sectio) -> None:
    blind = _break_engine(two_tenants, "t")
    leaked = blind.scroll(Where.of(Eq("tenant", "acme")), limit=100)[0]
    assert {p.payload["tenant"] for p in leaked} == set(TENANTS)


@pytest.mark.parametrize("mode", MODES)
def test_broken_engine_filter_is_caught_on_search(two_tenants: Sectio, mode: str) -> None:
    _break_engine(two_tenants, "t")
    result = two_tenants.search(
        "aspirin pain fever", collection="t", top_k=50, mode=mode, tenant="acme"
    )
    assert result.hits and {h.tenant for h in result.hits} == {"acme"}
    assert two_tenants.tenant_guard.dropped > 0


def test_broken_engine_filter_is_caught_on_scroll_and_retrieve(
    two_tenants: Sectio, caplog: pytest.LogCaptureFixture
) -> None:
    _break_engine(two_tenants, "t")
    every = two_tenants.chunks(collection="t", tenant="globex")
    assert len(every) == len(TEXTS) and {e.tenant for e in every} == {"globex"}
    dropped_by_scroll = two_tenants.tenant_guard.dropped
    assert dropped_by_scroll == len(TEXTS)
    got = two_tenants.get(["acme:aspirin#warnings#0"], collection="t", tenant="globex")
    assert got == []
    assert two_tenants.tenant_guard.dropped == dropped_by_scroll + 1
    assert any("tenant check" in r.message and r.levelname == "ERROR" for r in caplog.records)


def test_guard_counts_what_it_drops() -> None:
    guard = reads.TenantGuard()
    pts = [
        StoredPoint("1", {"tenant": "a"}),
        StoredPoint("2", {"tenant": "b"}),
        StoredPoint("3", {}),
    ]
    assert [p.id for p in guard.keep(pts, "a")] == ["1"]
    assert [p.id for p in guard.keep(pts, "default")] == ["3"]  # no tenant field = "default"
    assert (guard.dropped, guard.checked) == (4, 6)
