"""Reverse lookup (phrase -> documents): keyword stage, dense fallback, grouping, caps."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from click.testing import CliRunner

from sectio import Sectio, Settings
from sectio.cli.base import cli
from sectio.retrieve.pipeline import Router
from sectio.retrieve.rerank import Reranker
from sectio.retrieve.routes.lookup import keyword_score
from sectio.testing import FakeReranker
from tests.helpers import chunk
from tests.helpers.route_corpora import policy_router, vi_rows, write

IND = "indications_and_usage"


def lookup_rows() -> list[dict[str, Any]]:
    rows = [
        # "many" mentions hypertension five times, always late in long chunks ...
        *(
            chunk(
                "many",
                IND,
                i,
                "This long label paragraph discusses several unrelated matters at length "
                "before it finally says it is indicated for the treatment of hypertension.",
                doc_title="Manyol",
            )
            for i in range(5)
        ),
        # ... "early" once, first and short: the max score wins, not the count.
        chunk("early", IND, 0, "Hypertension, to lower blood pressure.", doc_title="Earlyol"),
        chunk(
            "metformin",
            IND,
            0,
            "Metformin is indicated to improve glycemic control in type 2 diabetes mellitus.",
            doc_title="Metformin",
        ),
        chunk("angi", IND, 0, "Indicated for the treatment of anginal attacks.", doc_title="Angi"),
        chunk(
            "painol", IND, 0, "Indicated for the treatment of painful joints.", doc_title="Painol"
        ),
        # Mentioned outside the lookup section: never a lookup hit.
        chunk(
            "early", "adverse_reactions", 0, "Type 2 diabetes was reported.", doc_title="Earlyol"
        ),
        chunk("hidden", IND, 0, "Hypertension.", doc_title="Hidden", tenant="other")
        | {"chunk_id": "other#hidden#0"},
    ]
    # Ten documents that all treat gout: the answer is capped at 8 x 2.
    for d in range(10):
        for p in range(3):
            rows.append(
                chunk(f"gout{d}", IND, p, f"Indicated for the treatment of gout, part {p}.")
            )
    return rows


@pytest.fixture(scope="module")
def sx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sectio]:
    tmp = tmp_path_factory.mktemp("lookup")
    s = Sectio(Settings(home=tmp / "home", embedder="fake", traces=False))
    s.ingest(write(tmp, "l", lookup_rows()), profile="en_drug_label", collection="l")
    s.ingest(write(tmp, "vi", vi_rows()), profile="vi_drug_monograph", collection="vi")
    yield s
    s.close()


def test_keyword_lookup_groups_by_document_with_the_max_score(sx: Sectio) -> None:
    result = sx.lookup("hypertension", collection="l", tenant="default")
    assert result.route == "lookup" and result.details["stage"] == "keyword"
    docs = [d["doc_id"] for d in result.details["documents"]]
    assert docs == ["early", "many"]  # five weak mentions do not beat one strong one
    assert result.details["documents"][1]["matched_chunks"] == 5
    assert [e.doc_id for e in result.evidence] == ["early", "many", "many"]  # 2 per document
    assert result.evidence[0].score == pytest.approx(keyword_score(0, 5))
    assert result.decision == "ANSWERABLE"


class LongestFirst:
    """A deterministic reranker for these tests: the longer the text, the higher."""

    name = "longest"

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        return [float(len(d)) for d in documents]


def _router(sx: Sectio, reranker: Reranker | None = None, **policy: float) -> Router:
    return policy_router(sx, "l", reranker, **policy)


def test_the_chunk_pool_limits_the_keyword_stage_too(sx: Sectio) -> None:
    # seed 000: a ranked pool of indication_retrieval_limit chunks before grouping.
    result = _router(sx, indication_retrieval_limit=3).lookup("hypertension", tenant="default")
    assert result.details["stage"] == "keyword"
    assert result.details["matched_chunks"] == 6
    assert result.details["chunk_pool"] == {"limit": 3, "kept": 3}
    documents = result.details["documents"]
    assert [d["doc_id"] for d in documents] == ["early", "many"]  # the best chunk first
    assert documents[1]["matched_chunks"] == 2  # 5 matched, 2 in the pool
    gout = _router(sx, indication_retrieval_limit=4).lookup("gout", tenant="default")
    assert [d["doc_id"] for d in gout.details["documents"]] == ["gout0", "gout1"]


def test_a_reranker_reorders_the_document_groups(sx: Sectio) -> None:
    result = _router(sx, LongestFirst()).lookup("hypertension", tenant="default")
    assert result.details["rerank"]["status"] == "ok"
    assert result.details["rerank"]["failed"] is False
    documents = result.details["documents"]
    assert [d["doc_id"] for d in documents] == ["many", "early"]  # the longer best chunk
    assert documents[0]["rerank_score"] > documents[1]["rerank_score"]
    assert documents[0]["score"] < documents[1]["score"]  # the keyword scores are kept
    assert [e.doc_id for e in result.evidence] == ["many", "many", "early"]


@pytest.mark.parametrize(
    ("reranker", "status"),
    [(FakeReranker(fail=True), "error"), (FakeReranker(delay_s=2.0), "timeout")],
)
def test_group_rerank_fails_open_to_the_max_score_order(
    sx: Sectio, reranker: FakeReranker, status: str
) -> None:
    result = _router(sx, reranker, rerank_timeout_s=0.2).lookup("hypertension", tenant="default")
    assert result.details["rerank"]["status"] == status
    assert result.details["rerank"]["failed"] is True
    assert [d["doc_id"] for d in result.details["documents"]] == ["early", "many"]
    assert "rerank_score" not in result.details["documents"][0]
    assert result.decision == "ANSWERABLE"
    off = sx.lookup("hypertension", collection="l", tenant="default")
    assert off.details["rerank"] == {"status": "off", "failed": False}


def test_score_rewards_early_concise_mentions() -> None:
    assert keyword_score(0, 0) == 3.0
    assert keyword_score(0, 10) > keyword_score(5, 10) > keyword_score(5, 200)


def test_lookup_caps_documents_and_chunks(sx: Sectio) -> None:
    result = sx.lookup("gout", collection="l", tenant="default")
    assert len(result.details["documents"]) == 8
    assert len(result.evidence) == 16


def test_phrase_must_match_contiguously_on_word_boundaries(sx: Sectio) -> None:
    strict = Router(
        sx.collection("l"),
        sx.embedder,
        policy=sx.router("l").policy.with_overrides(lookup_dense_minimum_score=2.0),
    )
    assert strict.lookup("angina", tenant="default").evidence == []  # not inside "anginal"
    assert strict.lookup("pain", tenant="default").evidence == []  # not inside "painful"
    assert strict.lookup("diabetes type 2", tenant="default").evidence == []  # not a token subset
    found = strict.lookup("Type-2 Diabetes", tenant="default")
    assert [e.doc_id for e in found.evidence] == ["metformin"]


def test_no_substring_match_after_diacritic_stripping(sx: Sectio) -> None:
    # "ho" (cough) must not match "hô" nor be found inside other words once accents are gone.
    result = sx.lookup("ho", collection="vi", tenant="default")
    assert result.details["stage"] in ("dense", "none") and result.evidence == []
    assert sx.lookup("hạ sốt", collection="vi", tenant="default").details["stage"] == "keyword"
    assert {e.doc_id for e in sx.lookup("hạ sốt", collection="vi", tenant="default").evidence} == {
        "ibuprofen",
        "paracetamol",
    }


def test_a_nonsense_phrase_of_filler_words_finds_nothing(sx: Sectio) -> None:
    # "indicated for the treatment of" occurs word for word in many chunks, and is all filler.
    result = sx.lookup("indicated for the treatment of", collection="l", tenant="default")
    assert result.evidence == [] and result.decision == "ABSTAIN"
    assert result.details["why"] == "no_content_terms"
    assert sx.lookup("of the and with", collection="l", tenant="default").evidence == []


def test_dense_fallback_only_when_keywords_miss_and_above_the_floor(sx: Sectio) -> None:
    base = sx.router("l").policy
    loose = Router(
        sx.collection("l"), sx.embedder, policy=base.with_overrides(lookup_dense_minimum_score=0.3)
    )
    result = loose.lookup("glycemic diabetes control", tenant="default")
    assert result.details["stage"] == "dense"
    assert result.evidence[0].doc_id == "metformin"
    assert {e.section_key for e in result.evidence} == {IND}
    strict = Router(
        sx.collection("l"), sx.embedder, policy=base.with_overrides(lookup_dense_minimum_score=0.99)
    )
    weak = strict.lookup("glycemic diabetes control", tenant="default")
    assert weak.evidence == [] and weak.details["dense_discarded"] > 0


def test_lookup_is_tenant_scoped(sx: Sectio) -> None:
    mine = sx.lookup("hypertension", collection="l", tenant="default")
    assert "hidden" not in {e.doc_id for e in mine.evidence}
    theirs = sx.lookup("hypertension", collection="l", tenant="other")
    assert [e.doc_id for e in theirs.evidence] == ["hidden"]
    assert sx.lookup("gout", collection="l", tenant="other").evidence == []


def test_cli_lookup_json(sx: Sectio, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECTIO_HOME", str(sx.settings.home))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    monkeypatch.setenv("SECTIO_TRACES", "false")
    sx.release("l")  # one process owns a shard: let the CLI open it
    out = CliRunner().invoke(cli, ["lookup", "hypertension", "--collection", "l", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["route"] == "lookup" and data["decision"] == "ANSWERABLE"
    assert [d["doc_id"] for d in data["details"]["documents"]] == ["early", "many"]
    human = CliRunner().invoke(cli, ["lookup", "hypertension", "--collection", "l"])
    assert human.exit_code == 0 and "early" in human.output
