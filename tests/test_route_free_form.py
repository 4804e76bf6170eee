"""Free-form and fallback routes: rerank fail-open, packing, parent hydration (fake embedder)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sectio import Sectio, Settings
from sectio.contract.result import Evidence
from sectio.retrieve.hydrate import hydrate_parents
from sectio.retrieve.packing import pack
from sectio.retrieve.pipeline import Router
from sectio.retrieve.reads import TenantGuard
from sectio.retrieve.rerank import HttpReranker, Reranker, rerank_fail_open
from sectio.testing import FakeReranker
from tests.helpers import chunk
from tests.helpers.route_corpora import en_rows, policy_router, write

FREE_FORM = "metformin lactic acidosis carbonic anhydrase"


@pytest.fixture(scope="module")
def sx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sectio]:
    tmp = tmp_path_factory.mktemp("route-free")
    s = Sectio(Settings(home=tmp / "home", embedder="fake", traces=False))
    s.ingest(write(tmp, "en", en_rows()), profile="en_drug_label", collection="en")
    yield s
    s.close()


def _router(sx: Sectio, reranker: Reranker | None = None, **policy: float) -> Router:
    return policy_router(sx, "en", reranker, **policy)


def test_free_form_orders_a_known_documents_chunks_and_packs_them(sx: Sectio) -> None:
    result = sx.ask(FREE_FORM, collection="en", tenant="default")
    assert result.route == "free_form" and result.resolved_doc_id == "metformin"
    assert result.resolved_section_key is None
    assert {e.doc_id for e in result.evidence} == {"metformin"}
    assert 0 < len(result.evidence) <= 6
    assert result.details["rerank"] == {"status": "off", "failed": False}
    assert result.details["packing"]["budget"] == 6000
    assert result.decision == "ANSWERABLE"


def test_the_fallback_search_keeps_evidence_limit_free_form_keeps_rerank_top_k(
    sx: Sectio,
) -> None:
    # seed 000: evidence_limit is the hydrated similarity search's cut (the
    # fallback route here); the free-form route keeps rerank_top_k.
    question = "lactic acidosis bleeding risk"
    for limit in (1, 2):
        result = _router(sx, evidence_limit=limit).ask(question, tenant="default")
        assert result.route == "fallback_search"
        assert result.details["packing"]["top_k"] == limit
        assert (
            len(result.evidence)
            + len(result.details["answerability"].get("withheld_evidence_ids", []))
            == limit
        )
    wide = _router(sx, evidence_limit=1).ask(question, tenant="default", top_k=4)
    assert wide.details["packing"]["top_k"] == 4  # the caller's top_k wins
    free = _router(sx, evidence_limit=1, rerank_top_k=5).ask(FREE_FORM, tenant="default")
    assert free.route == "free_form" and len(free.evidence) == 5


def test_turn_type_free_form_skips_the_section_phrases(sx: Sectio) -> None:
    result = sx.ask(
        "metformin side effects", collection="en", tenant="default", turn_type="free_form"
    )
    assert result.route == "free_form" and result.resolved_doc_id == "metformin"
    assert sx.ask("metformin side effects", collection="en", tenant="default").route == "section"


def test_free_form_marks_the_first_chunk_of_each_section_whatever_the_order(
    sx: Sectio,
) -> None:
    # seed 000: the document's chunks carry 【Name】 at each section's first chunk.
    result = _router(sx, rerank_top_k=50).ask(
        "metformin maximum dose 2550 mg", tenant="default", turn_type="free_form"
    )
    assert result.route == "free_form"
    marked = {(e.section_key, e.part_index) for e in result.evidence if "【" in e.text}
    sections = {e.section_key for e in result.evidence}
    assert marked == {(s, 0) for s in sections}  # part 0 of every section, nothing else
    assert all(e.text.startswith("【Metformin】 ") for e in result.evidence if e.part_index == 0)
    dosage = [e.part_index for e in result.evidence if e.section_key == "dosage_and_administration"]
    assert dosage == [1, 0]  # ranked by relevance, and part 0 is still the one marked


def test_packing_never_cuts_a_chunk_and_lists_what_it_left_out(sx: Sectio) -> None:
    stored = {
        e.chunk_id: ("【Metformin】 " if e.part_index == 0 else "") + e.text
        for e in sx.chunks(collection="en", tenant="default")
    }
    count = sx.embedder.count_tokens
    full = _router(sx).ask(FREE_FORM, tenant="default")
    budget = count(full.evidence[0].text) + 2
    small = _router(sx, max_context_tokens=budget).ask(FREE_FORM, tenant="default")
    assert small.evidence and small.omitted_evidence_ids
    assert all(e.text == stored[e.chunk_id] for e in small.evidence)  # whole chunks
    assert sum(count(e.text) for e in small.evidence) <= budget
    kept = [e.chunk_id for e in small.evidence] + small.omitted_evidence_ids
    assert sorted(kept) == sorted(e.chunk_id for e in full.evidence)


def test_pack_skips_whole_chunks_in_order() -> None:
    ev = [
        Evidence(chunk_id=str(i), doc_id="d", section_key="s", part_index=i, text=t, score=1.0)
        for i, t in enumerate(["a b c", "d e f g h", "i j"])
    ]
    packed = pack(ev, 5, lambda t: len(t.split()))
    assert [e.chunk_id for e in packed.kept] == ["0", "2"]
    assert packed.omitted_ids == ["1"] and packed.tokens == 5
    assert pack(ev, 1, lambda t: len(t.split())).kept == []


def test_rerank_reorders_when_it_works(sx: Sectio) -> None:
    fake = FakeReranker()
    result = _router(sx, fake).ask("metformin flatulence vomiting", tenant="default")
    assert fake.calls == 1
    assert result.details["rerank"]["status"] == "ok"
    assert result.evidence[0].section_key == "adverse_reactions"
    scores = [e.score for e in result.evidence]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize(
    ("reranker", "status"),
    [(FakeReranker(fail=True), "error"), (FakeReranker(delay_s=2.0), "timeout")],
)
def test_rerank_fails_open_to_the_original_order_with_the_budget_kept(
    sx: Sectio, reranker: FakeReranker, status: str
) -> None:
    plain = _router(sx).ask(FREE_FORM, tenant="default")
    failed = _router(sx, reranker, rerank_timeout_s=0.2, max_context_tokens=40).ask(
        FREE_FORM, tenant="default"
    )
    assert failed.details["rerank"]["status"] == status
    assert failed.details["rerank"]["failed"] is True
    assert failed.details["ranking"]["order"] == "hybrid"
    order = [e.chunk_id for e in plain.evidence]
    kept = [e.chunk_id for e in failed.evidence]
    assert kept == [c for c in order if c in kept]  # the original order ...
    assert sorted(kept + failed.omitted_evidence_ids) == sorted(order)  # ... budget applied
    assert failed.omitted_evidence_ids
    assert failed.details["packing"]["budget"] == 40
    assert failed.decision == "ANSWERABLE"


def test_a_reranker_that_cannot_load_fails_open(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "h", embedder="fake", traces=False, rerank="cross_encoder")
    with Sectio(settings) as s:
        s.ingest(write(tmp_path, "en", en_rows()), profile="en_drug_label", collection="en")
        result = s.ask(FREE_FORM, collection="en", tenant="default")
    assert result.route == "free_form" and result.evidence
    assert result.details["rerank"]["status"] == "unavailable"
    assert "SECTIO_RERANK_MODEL_PATH" in result.details["rerank"]["error"]


def test_http_reranker_speaks_the_cohere_shape_and_fails_open() -> None:
    seen: dict[str, object] = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen["auth"] = request.headers.get("authorization")
        seen["body"] = request.read()
        return httpx.Response(
            200,
            json={
                "results": [
                    {"index": 1, "relevance_score": 0.9},
                    {"index": 0, "relevance_score": 0.1},
                ]
            },
        )

    ok = HttpReranker(
        "https://rerank.test/v2/rerank",
        api_key="k",
        model="rerank-v3.5",
        transport=httpx.MockTransport(handler),
    )
    out = rerank_fail_open(ok, "q", ["a", "b"], ["a", "b"])
    assert out.items == ["b", "a"] and out.details["status"] == "ok"
    assert seen["auth"] == "Bearer k" and b"rerank-v3.5" in seen["body"]  # type: ignore[operator]

    broken = HttpReranker(
        "https://rerank.test/v2/rerank",
        transport=httpx.MockTransport(lambda r: httpx.Response(503)),
    )
    out = rerank_fail_open(broken, "q", ["a", "b"], ["a", "b"])
    assert out.items == ["a", "b"] and out.details["status"] == "error"


def test_fallback_search_when_no_document_is_named(sx: Sectio) -> None:
    result = sx.ask("flatulence vomiting", collection="en", tenant="default")
    assert result.route == "fallback_search" and result.resolved_doc_id is None
    assert result.evidence[0].doc_id == "metformin"
    strict = _router(sx, minimum_score=0.999).ask("flatulence vomiting", tenant="default")
    assert strict.evidence == [] and strict.decision == "ABSTAIN"
    assert strict.details["ranking"]["discarded_below_minimum_score"] == 0.999


def test_fallback_search_stays_inside_a_named_section(sx: Sectio) -> None:
    result = _router(sx, minimum_score=0.0).ask(
        "what are the side effects of this pill", tenant="default"
    )
    assert result.route == "fallback_search"
    # "this pill" names no subject: answerability may withhold the hits; what was read counts
    withheld = result.details["answerability"].get("withheld_evidence_ids", [])
    read = [e.chunk_id for e in result.evidence] + withheld
    assert read and {c.split("#")[1] for c in read} == {"adverse_reactions"}
    assert result.details["ranking"]["section_filter"] == "adverse_reactions"


def test_two_documents_and_a_section_read_each_documents_section(sx: Sectio) -> None:
    result = sx.ask("can I take Advil with Coumadin", collection="en", tenant="default")
    assert result.route == "section" and result.resolved_doc_id is None
    assert result.details["documents"] == ["ibuprofen", "warfarin"]
    assert [(e.doc_id, e.section_key) for e in result.evidence] == [
        ("ibuprofen", "drug_interactions"),
        ("warfarin", "drug_interactions"),
    ]


def test_parent_hydration_keeps_the_requested_order(tmp_path: Path) -> None:
    rows = []
    for p in range(12):
        rows.append(chunk("d", "s", p * 10, f"parent {p} full text", doc_title="Dee"))
        rows.append(
            chunk("d", "s", p * 10 + 1, f"child of {p}", doc_title="Dee", parent_id=f"d#s#{p * 10}")
        )
    rows.append(chunk("d", "s", 999, "orphan child", doc_title="Dee", parent_id="d#s#missing"))
    with Sectio(Settings(home=tmp_path / "h", embedder="fake", traces=False)) as s:
        s.ingest(write(tmp_path, "p", rows), collection="p")
        children = {e.chunk_id: e for e in s.chunks(collection="p", tenant="default")}
        order = [11, 3, 7, 0, 9, 1, 5, 10, 2, 8, 4, 6]
        ranked = [children[f"d#s#{p * 10 + 1}"] for p in order]
        ranked.insert(2, children["d#s#30"])  # a parent ranked on its own, after its child
        ranked.append(children["d#s#999"])
        guard = TenantGuard()
        router = Router(s.collection("p"), s.embedder, guard=guard)
        out = hydrate_parents(router.scope("default"), ranked)
        assert [e.chunk_id for e in out.evidence] == [f"d#s#{p * 10}" for p in order] + ["d#s#999"]
        assert out.missing == ["d#s#missing"]
        assert out.evidence[0].model_extra["hydrated_from"] == ["d#s#111"]  # type: ignore[index]
        other = hydrate_parents(router.scope("someone-else"), ranked)
        assert all(
            e.chunk_id.endswith(("1", "9")) for e in other.evidence if e.chunk_id != "d#s#30"
        )
        assert guard.dropped == 0  # the parents are read under the tenant filter
