"""Routed retrieval's second tenant check is the router's TenantGuard: drops are counted.

The engine layer is replaced by a double that drops the tenant condition from
every filter (a broken engine filter). Two tenants hold the same documents, so
each routed read then returns the other tenant's copy too; the router's guard
must drop it, and count it (``guard.dropped`` is what /metrics exports).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from sectio import Sectio, Settings
from sectio.index.filters import Eq, Where
from sectio.index.port import StoredPoint, VectorIndex
from sectio.retrieve.pipeline import Router
from sectio.retrieve.reads import TenantGuard
from tests.helpers.route_corpora import en_rows, write

LOOKUP_SECTION = "indications_and_usage"


def rows() -> list[dict[str, Any]]:
    """en_rows for tenants "a" and "b"; chunk ids are unique per collection."""
    out = []
    for tenant in ("a", "b"):
        for row in en_rows(tenant):
            row["chunk_id"] = f"{tenant}:{row['chunk_id']}"
            out.append(row)
    return out


class TenantBlindIndex:
    """A broken engine layer: forwards every call, minus the tenant condition."""

    def __init__(self, inner: VectorIndex) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)  # spec, count, retrieve, close, ...

    @staticmethod
    def _blind(where: Where | None) -> Where | None:
        if where is None:
            return None
        must = tuple(c for c in where.must if not (isinstance(c, Eq) and c.key == "tenant"))
        return Where(must=must, must_not=where.must_not)

    def scroll(self, where: Where | None, *args: Any, **kw: Any) -> Any:
        return self.inner.scroll(self._blind(where), *args, **kw)

    def search_dense(
        self, vector: Any, limit: int, where: Where | None = None, *a: Any, **kw: Any
    ) -> Any:
        return self.inner.search_dense(vector, limit, self._blind(where), *a, **kw)

    def search_sparse(
        self, name: str, vector: Any, limit: int, where: Where | None = None, *a: Any, **kw: Any
    ) -> list[StoredPoint]:
        return self.inner.search_sparse(name, vector, limit, self._blind(where), *a, **kw)

    def search_fused(
        self,
        dense: Any,
        sparse: Any,
        pool: int,
        limit: int,
        where: Where | None,
        *a: Any,
        **kw: Any,
    ) -> list[StoredPoint]:
        return self.inner.search_fused(dense, sparse, pool, limit, self._blind(where), *a, **kw)


@pytest.fixture(scope="module")
def sx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sectio]:
    tmp = tmp_path_factory.mktemp("route-guard")
    s = Sectio(Settings(home=tmp / "home", embedder="fake", traces=False))
    s.ingest(write(tmp, "g", rows()), profile="en_drug_label", collection="g")
    yield s
    s.close()


def router(sx: Sectio, guard: TenantGuard, *, broken: bool) -> Router:
    coll = sx.collection("g")
    if broken:
        coll = replace(coll, index=TenantBlindIndex(coll.index))  # type: ignore[arg-type]
    return Router(coll, sx.embedder, guard=guard)


def test_the_double_really_leaks(sx: Sectio) -> None:
    blind = TenantBlindIndex(sx.collection("g").index)
    points, _ = blind.scroll(Where.of(Eq("tenant", "a")), limit=1000)
    assert {p.payload["tenant"] for p in points} == {"a", "b"}


def test_a_working_engine_filter_leaves_the_guard_at_zero(sx: Sectio) -> None:
    guard = TenantGuard()
    r = router(sx, guard, broken=False)
    assert r.ask("metformin contraindications", tenant="a").evidence
    assert r.lookup("type 2 diabetes", tenant="a").evidence
    assert (guard.dropped, guard.checked > 0) == (0, True)


def test_section_route_drops_and_counts_the_foreign_point(
    sx: Sectio, caplog: pytest.LogCaptureFixture
) -> None:
    guard = TenantGuard()
    r = router(sx, guard, broken=True)
    r.resolver.catalog(
        r.scope("a")
    )  # the catalog read drops tenant b's points too; counted before the route
    before = guard.dropped
    assert before == len(en_rows("b"))
    with caplog.at_level(logging.ERROR, logger="sectio.retrieve.reads"):
        result = r.ask("metformin contraindications", tenant="a")
    assert (result.route, result.resolved_doc_id) == ("section", "metformin")
    assert [e.chunk_id for e in result.evidence] == ["a:metformin#contraindications#0"]
    assert {e.tenant for e in result.evidence} == {"a"}
    assert guard.dropped == before + 1  # tenant b's copy of the same section
    assert any("tenant check (section)" in rec.message for rec in caplog.records)


def test_lookup_drops_and_counts_the_foreign_points(
    sx: Sectio, caplog: pytest.LogCaptureFixture
) -> None:
    guard = TenantGuard()
    r = router(sx, guard, broken=True)
    r.resolver.catalog(r.scope("a"))  # the corpus view's read drops b's points too: count first
    before = guard.dropped
    assert before == len(en_rows("b"))
    with caplog.at_level(logging.ERROR, logger="sectio.retrieve.reads"):
        result = r.lookup("type 2 diabetes", tenant="a")
    assert [d["doc_id"] for d in result.details["documents"]] == ["metformin"]
    assert {e.chunk_id for e in result.evidence} == {"a:metformin#indications_and_usage#0"}
    foreign = [
        row
        for row in en_rows("b")
        if row["section_key"] == LOOKUP_SECTION and row.get("chunk_kind", "prose") == "prose"
    ]
    assert foreign and guard.dropped == before + len(foreign)  # b's lookup section, scrolled
    assert any("tenant check (lookup)" in rec.message for rec in caplog.records)


def test_assess_drops_and_counts_the_foreign_point(sx: Sectio) -> None:
    guard = TenantGuard()
    r = router(sx, guard, broken=True)
    result = r.assess(["metformin"], {"interaction": ["carbonic anhydrase"]}, tenant="a")
    evidence = result.candidates[0].facets[0].evidence
    assert evidence and {e.tenant for e in evidence} == {"a"}
    assert guard.dropped > 0


def test_fallback_lead_document_is_read_inside_the_tenant(sx: Sectio) -> None:
    guard = TenantGuard()
    r = router(sx, guard, broken=True)
    r.resolver.catalog(r.scope("a"))
    before = guard.dropped
    result = r.ask("what is the usual starting dose for adults", tenant="a")
    assert result.route == "fallback_search"
    assert result.details["section_resolution"]["section_key"] == "dosage_and_administration"
    assert result.details["ranking"]["lead_document"]
    assert result.evidence and {e.tenant for e in result.evidence} == {"a"}
    assert all(e.chunk_id.startswith("a:") for e in result.evidence)
    assert result.evidence[0].doc_id == result.details["ranking"]["lead_document"]
    assert guard.dropped > before  # tenant b's copies came back from the broken engine
