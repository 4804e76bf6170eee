"""Search: modes, clamp, filters, hybrid fusion, scores as cosines, RRF k, BM25 languages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sectio import Sectio, Settings
from sectio.contract.result import ListScore
from sectio.errors import ConfigError, UnknownFilter
from sectio.index.ids import point_id_for
from sectio.retrieve.reads import scoped
from sectio.retrieve.search import MODES, FusionParams, clamp_top_k, lexical_query
from sectio.retrieve.search import search as run_search
from sectio.retrieve.search_filters import FILTER_KEYS, build_where, parse_filter_args
from sectio.testing import FakeEmbedder
from tests.helpers import chunk, write_jsonl

MODES_ALL = list(MODES)


def _cos(a: str, b: str) -> float:
    e = FakeEmbedder()
    return float(np.dot(e.embed_query(a), e.embed_documents([b])[0]))


@pytest.fixture(scope="module")
def filtered_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Chunks that differ in every filterable field; every text mentions 'ibuprofen'.

    Loaded once per module (tests only read it); each test opens its own Sectio.
    """
    tmp_path = tmp_path_factory.mktemp("filtered")
    rows = [
        chunk(
            "d1",
            "dosage",
            0,
            "ibuprofen dose for adults",
            tags=["adult", "oral"],
            metadata={"domain": "pharma", "subdomain": "nsaid"},
            path="docs/guide/dose.md",
            layer="D0",
        ),
        chunk(
            "d1",
            "dosage",
            1,
            "ibuprofen table of doses",
            chunk_kind="block",
            tags=["table"],
            metadata={"domain": "pharma", "subdomain": "nsaid"},
            path="docs/guide/dose.md",
        ),
        chunk(
            "d2",
            "warnings",
            0,
            "ibuprofen and stomach bleeding",
            tags=["oral"],
            metadata={"domain": "pharma", "subdomain": "safety"},
            path="docs/safety/gi.md",
        ),
        chunk(
            "d3",
            "overview",
            0,
            "ibuprofen history and chemistry",
            tags=["history"],
            metadata={"domain": "chemistry", "subdomain": "history"},
            path="notes/history.md",
        ),
    ]
    home = tmp_path / "home"
    with Sectio(Settings(home=home, embedder="fake")) as s:
        s.ingest(write_jsonl(tmp_path / "f.jsonl", rows), collection="f")
    return home


@pytest.fixture
def filtered(filtered_home: Path) -> Iterator[Sectio]:
    s = Sectio(Settings(home=filtered_home, embedder="fake"))
    yield s
    s.close()


# --- top_k clamp ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("requested", "applied", "clamped"),
    [(0, 1, True), (-3, 1, True), (1, 1, False), (50, 50, False), (51, 50, True), (500, 50, True)],
)
def test_clamp_top_k(requested: int, applied: int, clamped: bool) -> None:
    assert clamp_top_k(requested) == (applied, clamped)


@pytest.mark.parametrize("mode", MODES_ALL)
def test_search_reports_requested_and_applied_top_k(filtered: Sectio, mode: str) -> None:
    result = filtered.search("ibuprofen", collection="f", top_k=500, mode=mode, tenant="default")
    assert (result.top_k_requested, result.top_k, result.clamped) == (500, 50, True)
    assert len(result.hits) == 4
    result = filtered.search("ibuprofen", collection="f", top_k=0, mode=mode, tenant="default")
    assert (result.top_k_requested, result.top_k, result.clamped) == (0, 1, True)
    assert len(result.hits) == 1
    result = filtered.search("ibuprofen", collection="f", top_k=3, mode=mode, tenant="default")
    assert (result.top_k, result.clamped) == (3, False)
    assert [h.rank for h in result.hits] == [1, 2, 3]


def test_internal_limit_goes_past_the_clamp(tmp_path: Path, sectio: Sectio) -> None:
    rows = [chunk(f"d{i}", "body", 0, f"common words number {i}") for i in range(70)]
    sectio.ingest(write_jsonl(tmp_path / "many.jsonl", rows), collection="many")
    coll = sectio.collection("many")
    for mode in MODES_ALL:
        result = run_search(
            coll, sectio.embedder, "common words", tenant="default", mode=mode, limit=60
        )
        assert len(result.hits) == 60 and not result.clamped
    # the public facade keeps the clamp
    assert (
        len(sectio.search("common words", collection="many", top_k=60, tenant="default").hits) == 50
    )


def test_unknown_mode_is_a_config_error(filtered: Sectio) -> None:
    with pytest.raises(ConfigError, match="unknown search mode"):
        filtered.search("x", collection="f", mode="semantic", tenant="default")


# --- filters ------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["tenant", "doc", "metadata.other", "text"])
def test_unknown_filter_key_is_refused(filtered: Sectio, key: str) -> None:
    with pytest.raises(UnknownFilter, match=f"unknown filter key '{key}'"):
        filtered.search("ibuprofen", collection="f", filters={key: "x"}, tenant="default")


def test_filter_values_must_be_usable() -> None:
    with pytest.raises(UnknownFilter, match="non-empty"):
        build_where({"doc_id": ""})
    with pytest.raises(UnknownFilter, match="non-empty"):
        build_where({"tags": []})
    with pytest.raises(UnknownFilter, match="one prefix"):
        build_where({"path": ["a/", "b/"]})
    with pytest.raises(UnknownFilter, match="not key=value"):
        parse_filter_args(["doc_id"])
    assert parse_filter_args(["tags=a", "tags=b", "doc_id=x=y"]) == {
        "tags": ["a", "b"],
        "doc_id": ["x=y"],
    }


FILTER_CASES: list[tuple[dict[str, Any], set[str]]] = [
    ({"doc_id": "d1"}, {"d1#dosage#0", "d1#dosage#1"}),
    ({"doc_id": ["d2", "d3"]}, {"d2#warnings#0", "d3#overview#0"}),
    ({"section_key": "warnings"}, {"d2#warnings#0"}),
    ({"chunk_kind": "block"}, {"d1#dosage#1"}),
    ({"chunk_kind": "prose"}, {"d1#dosage#0", "d2#warnings#0", "d3#overview#0"}),
    ({"tags": "oral"}, {"d1#dosage#0", "d2#warnings#0"}),
    ({"tags": ["table", "history"]}, {"d1#dosage#1", "d3#overview#0"}),
    ({"metadata.domain": "chemistry"}, {"d3#overview#0"}),
    ({"metadata.subdomain": "nsaid"}, {"d1#dosage#0", "d1#dosage#1"}),
    ({"path": "docs/"}, {"d1#dosage#0", "d1#dosage#1", "d2#warnings#0"}),
    ({"path": "docs/safety"}, {"d2#warnings#0"}),
    ({"doc_id": "d1", "chunk_kind": "prose"}, {"d1#dosage#0"}),
    ({"layer": "D0"}, {"d1#dosage#0"}),
]


def test_every_filter_key_is_covered() -> None:
    covered = {k for case, _ in FILTER_CASES for k in case}
    assert covered == set(FILTER_KEYS)


@pytest.mark.parametrize("mode", MODES_ALL)
@pytest.mark.parametrize(("filters", "expected"), FILTER_CASES)
def test_each_filter_key(
    filtered: Sectio, mode: str, filters: dict[str, Any], expected: set[str]
) -> None:
    result = filtered.search(
        "ibuprofen", collection="f", top_k=10, mode=mode, filters=filters, tenant="default"
    )
    assert {h.chunk_id for h in result.hits} == expected


# --- hybrid fusion and scores ---------------------------------------------------------------
@pytest.fixture
def fusion_sectio(tmp_path: Path) -> Iterator[Sectio]:
    """Small pools and k=1 so the fused list mixes both candidate lists."""
    s = Sectio(
        Settings(
            home=tmp_path / "fh", embedder="fake", rrf_k=1, hybrid_pool_min=3, hybrid_pool_factor=1
        )
    )
    # Dense (bag of words, stopwords count) favours the stopword-heavy chunks;
    # BM25 (English stopwords dropped) sees only "zebra".
    rows = [chunk(f"s{i}", "body", 0, "the of and " * (i + 1) + f"filler{i}") for i in range(5)]
    rows.append(chunk("zebra", "body", 0, "zebra stripes grassland savanna herd migration"))
    rows.append(chunk("zebra2", "body", 0, "a zebra and the plains of africa and more words"))
    s.ingest(write_jsonl(tmp_path / "z.jsonl", rows), collection="z")
    yield s
    s.close()


QUERY = "the of and zebra"


def test_hybrid_fuses_dense_and_lexical(fusion_sectio: Sectio) -> None:
    dense = fusion_sectio.search(QUERY, collection="z", top_k=3, mode="dense", tenant="default")
    lexical = fusion_sectio.search(QUERY, collection="z", top_k=3, mode="lexical", tenant="default")
    hybrid = fusion_sectio.search(QUERY, collection="z", top_k=3, mode="hybrid", tenant="default")
    dense_ids = {h.chunk_id for h in dense.hits}
    lexical_ids = {h.chunk_id for h in lexical.hits}
    assert lexical_ids - dense_ids  # BM25 found what dense (pool = 3) did not
    hybrid_ids = {h.chunk_id for h in hybrid.hits}
    assert hybrid_ids & dense_ids and hybrid_ids & (lexical_ids - dense_ids)
    # a lexical-only hit is present and scores 0.0; the dense candidates score their cosine
    lexical_only = [h for h in hybrid.hits if h.chunk_id not in dense_ids]
    assert lexical_only and all(h.score == 0.0 for h in lexical_only)
    assert {h.doc_id for h in lexical_only} <= {"zebra", "zebra2"}
    assert hybrid.details["lexical_only_hits"] == len(lexical_only)
    for hit in hybrid.hits:
        if hit.chunk_id in dense_ids:
            assert hit.score == pytest.approx(_cos(QUERY, hit.text), abs=1e-5)
            assert hit.score > 0
    assert hybrid.details["pool"] == 3
    assert hybrid.details["fused"] == ["dense", "bm25"]


@pytest.mark.parametrize("rrf_k", [1, 3, 60])
def test_hybrid_hits_say_what_ranked_them(fusion_sectio: Sectio, rrf_k: int) -> None:
    """Each hybrid hit names its fused rank and value and its place in each list."""
    params = FusionParams(rrf_k=rrf_k, pool_min=3, pool_factor=1)

    def run(mode: str, top_k: int) -> Any:
        coll, embedder = fusion_sectio.collection("z"), fusion_sectio.embedder
        return run_search(
            coll, embedder, QUERY, tenant="default", top_k=top_k, mode=mode, params=params
        )

    hybrid = run("hybrid", 3)  # pools of 3 out of 7 chunks
    pool = hybrid.details["pool"]
    dense = {h.chunk_id: h for h in run("dense", pool).hits}
    bm25 = {h.chunk_id: h for h in run("lexical", pool).hits}
    k, weights = hybrid.details["rrf_k"], hybrid.details["weights"]
    fusion = [h.scores["fusion"] for h in hybrid.hits if h.scores]
    # the fused ranks are the displayed order, and their values never rise down the list
    assert [f.rank for f in fusion if f] == [h.rank for h in hybrid.hits] == [1, 2, 3]
    values = [f.score for f in fusion if f]
    assert values == sorted(values, reverse=True)
    bm25_only = 0
    for hit in hybrid.hits:
        assert hit.scores is not None and list(hit.scores) == ["fusion", "dense", "bm25"]
        d, b = hit.scores["dense"], hit.scores["bm25"]
        if hit.chunk_id in dense:  # a dense candidate: its dense-mode rank and cosine
            assert d is not None and d.rank == dense[hit.chunk_id].rank
            assert d.score == pytest.approx(_cos(QUERY, hit.text), abs=1e-5) == hit.score
        else:
            assert d is None and hit.score == 0.0
        if hit.chunk_id in bm25:  # a BM25 candidate: its lexical-mode rank and BM25 score
            assert b is not None and b.rank == bm25[hit.chunk_id].rank
            assert b == (bm25[hit.chunk_id].scores or {})["bm25"]
            assert b.score > 0
        else:
            assert b is None
        bm25_only += d is None and b is not None
        # the fused value is the weighted reciprocal rank sum of the places shown, as
        # Qdrant computes it: 1 / (rank / weight + k - 1), rank from 1
        places = [(w, x) for w, x in zip(weights, (d, b), strict=True) if x is not None]
        expected = sum(1 / (x.rank / w + k - 1) for w, x in places)
        assert hit.scores["fusion"] is not None
        assert hit.scores["fusion"].score == pytest.approx(expected, rel=1e-5)
    assert bm25_only == hybrid.details["lexical_only_hits"] > 0


def test_dense_and_lexical_hits_name_their_one_list(filtered: Sectio) -> None:
    opts: dict[str, Any] = {"collection": "f", "tenant": "default"}
    dense = filtered.search("ibuprofen dose", mode="dense", **opts)
    assert dense.hits
    for hit in dense.hits:
        assert hit.scores == {"dense": ListScore(rank=hit.rank or 0, score=hit.score)}
    lexical = filtered.search("ibuprofen dose", mode="lexical", **opts)
    assert lexical.hits
    bm25 = [h.scores["bm25"] for h in lexical.hits if h.scores and list(h.scores) == ["bm25"]]
    assert [x.rank for x in bm25 if x] == [h.rank for h in lexical.hits]
    assert all(x and x.score > 0 for x in bm25) and all(h.score == 0.0 for h in lexical.hits)
    # hybrid with no BM25 term (stopwords only) is the dense list, unfused
    stop = filtered.search("the and of", mode="hybrid", **opts)
    assert all(h.scores and list(h.scores) == ["dense"] for h in stop.hits)


def test_rrf_k_and_pool_are_reported(tmp_path: Path, small_corpus: Path) -> None:
    with Sectio(
        Settings(
            home=tmp_path / "k", embedder="fake", rrf_k=7, hybrid_pool_min=20, hybrid_pool_factor=4
        )
    ) as s:
        s.ingest(small_corpus)
        result = s.search("aspirin fever", top_k=10, tenant="default")
        assert result.mode == "hybrid"
        assert result.details["rrf_k"] == 7
        assert result.details["pool"] == 40
        assert result.details["weights"] == [1.0, 1.2]
        assert s.search("aspirin", top_k=2, tenant="default").details["pool"] == 20


def test_pool_is_a_function_of_top_k() -> None:
    params = FusionParams(pool_factor=5, pool_min=50, pool_max=300)
    assert [params.pool(k) for k in (1, 10, 20, 100)] == [50, 50, 100, 300]
    assert params.pool(400) == 400  # never fewer candidates than hits


def test_dense_scores_are_cosines(filtered: Sectio) -> None:
    result = filtered.search("ibuprofen dose", collection="f", mode="dense", tenant="default")
    assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))
    for hit in result.hits:
        assert hit.score == pytest.approx(_cos("ibuprofen dose", hit.text), abs=1e-5)
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)


def test_hybrid_scores_are_cosines_not_fusion_values(filtered: Sectio) -> None:
    result = filtered.search("ibuprofen dose", collection="f", mode="hybrid", tenant="default")
    for hit in result.hits:
        assert hit.score == pytest.approx(_cos("ibuprofen dose", hit.text), abs=1e-5)


def test_lexical_hits_score_zero_and_rank_by_bm25(tmp_path: Path, sectio: Sectio) -> None:
    rows = [
        chunk("common", "body", 0, "pain pain relief tablets"),
        chunk("rare", "body", 0, "naproxen relief"),
        chunk("none", "body", 0, "unrelated text entirely"),
    ]
    sectio.ingest(write_jsonl(tmp_path / "l.jsonl", rows), collection="l")
    result = sectio.search("naproxen relief", collection="l", mode="lexical", tenant="default")
    assert [h.doc_id for h in result.hits] == ["rare", "common"]  # IDF: naproxen is rarer
    assert all(h.score == 0.0 for h in result.hits)
    # stemming (English): "tablet" matches "tablets"
    stem = sectio.search("tablet", collection="l", mode="lexical", tenant="default")
    assert [h.doc_id for h in stem.hits] == ["common"]
    # a query of stopwords has no BM25 terms: lexical finds nothing, hybrid falls back to dense
    assert sectio.search("the and of", collection="l", mode="lexical", tenant="default").hits == []
    hybrid = sectio.search("the and of", collection="l", mode="hybrid", tenant="default")
    assert hybrid.details["lexical_vectors"] == []


def test_vietnamese_folded_and_exact_are_fused(tmp_path: Path, sectio: Sectio) -> None:
    rows = [
        chunk("exact", "body", 0, "Chống chỉ định với người mẫn cảm"),
        chunk("variant", "body", 0, "Chồng chị đính hôn với người khác"),
        chunk("other", "body", 0, "Liều dùng cho trẻ em"),
    ]
    sectio.ingest(write_jsonl(tmp_path / "vi.jsonl", rows), profile="generic_vi", collection="vi")
    info = sectio.collection("vi").manifest.bm25
    assert info["vectors"] == ["bm25", "bm25_folded"]
    exact = sectio.search("chống chỉ định", collection="vi", mode="lexical", tenant="default")
    assert exact.details["fused"] == ["bm25", "bm25_folded"]
    assert [h.doc_id for h in exact.hits][:2] == ["exact", "variant"]  # exact forms win
    folded = sectio.search("chong chi dinh", collection="vi", mode="lexical", tenant="default")
    assert {h.doc_id for h in folded.hits} == {"exact", "variant"}  # diacritic-insensitive
    # a query without diacritics says nothing about them: only the folded vector is used
    assert folded.details["lexical_vectors"] == ["bm25_folded"]
    unaccented = sectio.search("chong chi dinh", collection="vi", tenant="default")
    assert unaccented.details["fused"] == ["dense", "bm25_folded"]
    assert unaccented.details["weights"] == [1.0, 1.2]
    hybrid = sectio.search("chống chỉ định", collection="vi", mode="hybrid", tenant="default")
    assert hybrid.details["fused"] == ["dense", "bm25", "bm25_folded"]
    assert hybrid.details["weights"] == [1.0, 0.6, 0.6]
    assert hybrid.hits[0].doc_id == "exact"
    # each hit names its place in both BM25 lists (the exact one misses the variant)
    top = exact.hits[0].scores or {}
    assert list(top) == ["fusion", "bm25", "bm25_folded"]
    assert top["bm25"] is not None and top["bm25"].rank == 1
    variant = next(h.scores or {} for h in exact.hits if h.doc_id == "variant")
    assert variant["bm25"] is None and variant["bm25_folded"] is not None
    # folded, the two texts are the same words: they tie, and the engine orders ties its way
    assert top["bm25_folded"] is not None and top["bm25_folded"].rank in (1, 2)
    assert top["bm25_folded"].score == pytest.approx(variant["bm25_folded"].score)
    assert {top["bm25_folded"].rank, variant["bm25_folded"].rank} == {1, 2}
    assert list(hybrid.hits[0].scores or {}) == ["fusion", "dense", "bm25", "bm25_folded"]


def test_russian_profile_stems(tmp_path: Path, sectio: Sectio) -> None:
    rows = [
        chunk("a", "body", 0, "Способность сенсорной системы к адаптации"),
        chunk("b", "body", 0, "Лечение гипертонии у пожилых пациентов"),
    ]
    sectio.ingest(write_jsonl(tmp_path / "ru.jsonl", rows), profile="generic_ru", collection="ru")
    assert sectio.collection("ru").manifest.bm25["language"] == "russian"
    result = sectio.search("адаптация системы", collection="ru", mode="lexical", tenant="default")
    assert [h.doc_id for h in result.hits] == ["a"]


@pytest.mark.parametrize("top_k", [1, 3, 7])
def test_hybrid_ranks_as_the_engines_own_fusion(fusion_sectio: Sectio, top_k: int) -> None:
    """Fused here from the lists, the ranking is Qdrant's weighted RRF of the same lists."""
    coll = fusion_sectio.collection("z")
    params = FusionParams.from_settings(fusion_sectio.settings)
    # (a query sharing no word with any chunk is left out: every cosine is 0, the
    # dense order is a tie, and the engine breaks ties as it likes)
    for query in (QUERY, "zebra", "filler3 savanna", "zebra the filler1"):
        for filters in (None, {"doc_id": ["zebra", "s1", "s2"]}):
            ours = run_search(
                coll,
                fusion_sectio.embedder,
                query,
                tenant="default",
                top_k=top_k,
                filters=filters,
                params=params,
            )
            where = scoped("default", build_where(filters))
            qvec = fusion_sectio.embedder.embed_query(query)
            sparse = lexical_query(coll, query)
            weights = params.weights(sparse_names=tuple(sparse))
            pool = params.pool(ours.top_k)
            engine = coll.index.search_fused(
                qvec, sparse, pool, ours.top_k, where, params.rrf_k, weights=weights
            )
            fusion = [(h.scores or {})["fusion"] for h in ours.hits]
            values = [round(f.score, 5) if f else None for f in fusion]
            theirs = [round(p.score or 0.0, 5) for p in engine]
            # the same fusion values, place by place (which of two int8-tied cosines the
            # engine ranks first is its own choice, so points may trade places)
            assert values == theirs
            assert values == sorted(values, reverse=True)


def test_tied_cosines_rank_the_same_on_every_call(tmp_path: Path) -> None:
    """Equal scores (here: the same text in six documents) are ranked by point id, every call."""
    with Sectio(Settings(home=tmp_path / "t", embedder="fake")) as s:
        rows = [chunk(f"d{i}", "body", 0, "zebra grazing on the savanna") for i in range(6)]
        rows.append(chunk("other", "body", 0, "zebra stripes"))
        s.ingest(write_jsonl(tmp_path / "t.jsonl", rows), collection="t")
        runs = {
            mode: {
                tuple(
                    h.chunk_id
                    for h in s.search(
                        "zebra savanna", collection="t", mode=mode, tenant="default", top_k=5
                    ).hits
                )
                for _ in range(8)
            }
            for mode in ("hybrid", "dense", "lexical")
        }
    for mode, orders in runs.items():
        assert len(orders) == 1, mode  # one order across eight calls
        (order,) = orders
        tied = [c for c in order if c != "other#body#0"]
        assert tied == sorted(tied, key=point_id_for), mode


def _rounded(scores: dict[str, ListScore | None] | None) -> dict[str, Any]:
    return {
        name: None if x is None else (x.rank, round(x.score, 6))
        for name, x in (scores or {}).items()
    }
