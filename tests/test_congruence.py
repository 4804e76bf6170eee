"""Congruence: the same queries on Qdrant Edge and on the server adapter give the same answers.

The model is qdrant-client's ``tests/congruence_tests``: one corpus loaded into
both backends, every query run on both, ids and order compared (equal scores may
come in either order; scores must agree too). The server adapter runs on
qdrant-client local mode here.

Known and accepted differences (not tested as equal, documented in docs/deploy.md):
local mode ignores payload indexes, so full-text filters use its default word
tokenizer (no ascii folding, no multilingual tokenizer) where edge and a real
server use the ``text`` index; the corpus here is plain ASCII English, where
the two agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient

from sectio.index.edge.store import EdgeBackend
from sectio.index.filters import Eq, Where, tenant_where
from sectio.index.port import VectorIndex
from sectio.index.server.store import ServerBackend
from sectio.testing.corpus import DIM, Corpus, assert_same_ranking, make_corpus, make_records
from sectio.testing.index_contract import FILTERS, NAME, load, scroll_all

QUERIES = (
    "pain fever",
    "type two diabetes",
    "maximum daily dose tablet",
    "stomach bleeding children",
    "store light degrees",
    "doc3 warnings",
)
WHERES: dict[str, Where | None] = {
    "none": None,
    "tenant": tenant_where("t1"),
    "section": Where.of(Eq("section_key", "warnings")),
    "tenant-not-block": tenant_where("t2").and_not(Eq("chunk_kind", "block")),
}


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return make_corpus(make_records(n_docs=8), seed=5)


@pytest.fixture(scope="module")
def pair(
    corpus: Corpus, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[VectorIndex, VectorIndex]]:
    edge = EdgeBackend(Path(tmp_path_factory.mktemp("congruence")) / "collections")
    server = ServerBackend(QdrantClient(":memory:"), local=True)
    load(edge, corpus)
    load(server, corpus)
    a, b = edge.open(NAME), server.open(NAME)
    yield a, b
    a.close()
    b.close()
    server.close()


def _dense_queries(corpus: Corpus) -> list[list[float]]:
    rng = np.random.default_rng(99)
    own = [corpus.dense_of(c) for c in ("doc0#indications#0", "doc5#dosage#1")]
    return own + [list(map(float, rng.normal(size=DIM))) for _ in range(3)]


@pytest.mark.parametrize("where", sorted(WHERES))
def test_dense(pair: tuple[VectorIndex, VectorIndex], corpus: Corpus, where: str) -> None:
    edge, server = pair
    for vec in _dense_queries(corpus):
        a = edge.search_dense(vec, 10, WHERES[where])
        b = server.search_dense(vec, 10, WHERES[where])
        assert a, "no hits: a useless comparison"
        assert_same_ranking(a, b, limit=10)


@pytest.mark.parametrize("where", sorted(WHERES))
def test_lexical(pair: tuple[VectorIndex, VectorIndex], corpus: Corpus, where: str) -> None:
    edge, server = pair
    compared = 0
    for text in QUERIES:
        q = corpus.query(text)["bm25"]
        a = edge.search_sparse("bm25", q, 10, WHERES[where])
        b = server.search_sparse("bm25", q, 10, WHERES[where])
        assert_same_ranking(a, b, limit=10)
        compared += len(a)
    assert compared > 10


@pytest.mark.parametrize("tenant", ["t1", "t2"])
def test_lexical_per_tenant_idf(
    pair: tuple[VectorIndex, VectorIndex], corpus: Corpus, tenant: str
) -> None:
    edge, server = pair
    where = tenant_where(tenant)
    for text in QUERIES:
        q = corpus.query(text)["bm25"]
        a = edge.search_sparse("bm25", q, 10, where, idf_where=where)
        b = server.search_sparse("bm25", q, 10, where, idf_where=where)
        assert_same_ranking(a, b, limit=10)


@pytest.mark.parametrize("where", sorted(WHERES))
@pytest.mark.parametrize("weights", [None, (2.0, 1.0)])
def test_hybrid(
    pair: tuple[VectorIndex, VectorIndex],
    corpus: Corpus,
    where: str,
    weights: tuple[float, float] | None,
) -> None:
    edge, server = pair
    vectors = _dense_queries(corpus)
    for i, text in enumerate(QUERIES):
        dense = vectors[i % len(vectors)]
        sparse = corpus.query(text)
        w = WHERES[where]
        a = edge.search_fused(dense, sparse, 12, 10, w, rrf_k=60, weights=weights, idf_where=w)
        b = server.search_fused(dense, sparse, 12, 10, w, rrf_k=60, weights=weights, idf_where=w)
        assert a
        assert_same_ranking(a, b, limit=10)


@pytest.mark.parametrize("case", sorted(FILTERS))
def test_filters(pair: tuple[VectorIndex, VectorIndex], case: str) -> None:
    edge, server = pair
    where = FILTERS[case]
    assert edge.count(where) == server.count(where)
    a = {p.id: p.payload for p in scroll_all(edge, where, 9)}
    b = {p.id: p.payload for p in scroll_all(server, where, 9)}
    assert a == b


def test_section_scroll(pair: tuple[VectorIndex, VectorIndex], corpus: Corpus) -> None:
    edge, server = pair
    sections = {
        (p.payload["tenant"], p.payload["doc_id"], p.payload["section_key"]) for p in corpus.points
    }
    for tenant, doc, section in sorted(sections):
        where = tenant_where(tenant, Eq("doc_id", doc), Eq("section_key", section))
        a = sorted(scroll_all(edge, where, 1), key=lambda p: p.payload["part_index"])
        b = sorted(scroll_all(server, where, 1), key=lambda p: p.payload["part_index"])
        assert [p.payload["chunk_id"] for p in a] == [p.payload["chunk_id"] for p in b]
        assert [p.payload["part_index"] for p in a] == list(range(len(a)))
        assert [p.payload for p in a] == [p.payload for p in b]
