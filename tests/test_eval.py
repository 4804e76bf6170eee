"""The evaluation harness: metrics on hand-made qrels, levels, de-duplication, inputs."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sectio import Sectio, Settings
from sectio.contract.result import Evidence, RetrievalResult
from sectio.errors import ConfigError, ContractError, NotAvailable
from sectio.eval import evaluate, load_qrels, load_queries
from sectio.eval.harness import dedupe_ranking, item_key, score_rankings
from tests.helpers import chunk, write_jsonl


def test_metrics_on_a_hand_made_run() -> None:
    qrels = {
        "q1": {"a": 1},  # found first
        "q2": {"b": 1, "c": 1},  # one found at rank 2, the other past 10
        "q3": {"z": 1},  # nothing retrieved at all
    }
    rankings = {
        "q1": ["a", "x", "y"],
        "q2": ["x", "b", *[f"n{i}" for i in range(10)], "c"],
        "q3": [],
    }
    mean, per_query = score_rankings(rankings, qrels)
    assert per_query["q1"] == {
        "nDCG@10": 1.0,
        "Recall@10": 1.0,
        "Recall@100": 1.0,
        "MRR@10": 1.0,
        "hit@1": 1.0,
    }
    q2 = per_query["q2"]
    ideal = 1 + 1 / math.log2(3)
    assert q2["nDCG@10"] == pytest.approx((1 / math.log2(3)) / ideal)
    assert (q2["Recall@10"], q2["Recall@100"], q2["MRR@10"], q2["hit@1"]) == (0.5, 1.0, 0.5, 0.0)
    assert set(per_query["q3"].values()) == {0.0}  # counted as zeros, not dropped
    assert mean["MRR@10"] == pytest.approx((1.0 + 0.5 + 0.0) / 3)
    assert mean["Recall@100"] == pytest.approx(2 / 3)
    assert mean["hit@1"] == pytest.approx(1 / 3)


def test_dedupe_first_occurrence_wins() -> None:
    assert dedupe_ranking(["d1", "d2", "d1", "d3", "d2"]) == ["d1", "d2", "d3"]
    ev = Evidence(
        chunk_id="d1#s#2", doc_id="d1", section_key="s", part_index=2, text="t", score=0.0
    )
    assert (item_key(ev, "doc"), item_key(ev, "section"), item_key(ev, "chunk")) == (
        "d1",
        "d1#s",
        "d1#s#2",
    )


def test_load_inputs(tmp_path: Path) -> None:
    q = write_jsonl(
        tmp_path / "q.jsonl", [{"_id": 1, "text": "one"}, {"_id": "2", "text": "two", "split": "x"}]
    )
    assert load_queries(q) == {"1": "one", "2": "two"}
    (tmp_path / "beir.tsv").write_text("query-id\tcorpus-id\tscore\n1\td1\t1\n1\td2\t2\n2\td3\t0\n")
    assert load_qrels(tmp_path / "beir.tsv") == {"1": {"d1": 1, "d2": 2}, "2": {"d3": 0}}
    (tmp_path / "trec.tsv").write_text("1\t0\td1\t1\n")
    assert load_qrels(tmp_path / "trec.tsv") == {"1": {"d1": 1}}
    (tmp_path / "bad.tsv").write_text("1\td1\n")
    with pytest.raises(ContractError, match="bad.tsv:1"):
        load_qrels(tmp_path / "bad.tsv")
    (tmp_path / "badq.jsonl").write_text('{"text": "no id"}\n')
    with pytest.raises(ContractError, match="badq.jsonl:1"):
        load_queries(tmp_path / "badq.jsonl")
    with pytest.raises(ContractError, match="cannot read"):
        load_queries(tmp_path / "missing.jsonl")


@pytest.fixture(scope="module")
def tiny_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three documents, two sections each; every text has its own distinctive words."""
    tmp_path = tmp_path_factory.mktemp("tiny")
    rows = [
        chunk("apple", "taste", 0, "apple taste sweet crunchy"),
        chunk("apple", "taste", 1, "apple taste also tart sometimes"),
        chunk("apple", "growing", 0, "apple orchards grow in temperate climates"),
        chunk("banana", "taste", 0, "banana taste creamy mild"),
        chunk("banana", "growing", 0, "banana plants grow in tropical heat"),
        chunk("cherry", "taste", 0, "cherry taste sour bright"),
    ]
    with Sectio(Settings(home=tmp_path / "home", embedder="fake")) as s:
        s.ingest(write_jsonl(tmp_path / "c.jsonl", rows), collection="tiny")
    return tmp_path / "home"


@pytest.fixture
def tiny(tiny_home: Path) -> Iterator[Sectio]:
    s = Sectio(Settings(home=tiny_home, embedder="fake"))
    yield s
    s.close()


QUERIES = {
    "q1": "sweet crunchy apple taste",
    "q2": "tropical banana plants grow",
    "q3": "sour bright cherry",
    "extra": "not judged",
}


@pytest.mark.parametrize("mode", ["hybrid", "dense", "lexical"])
def test_evaluate_doc_section_chunk_levels(tiny: Sectio, mode: str) -> None:
    doc_qrels = {"q1": {"apple": 1}, "q2": {"banana": 1}, "q3": {"cherry": 1}}
    report, rows = evaluate(
        tiny, QUERIES, doc_qrels, collection="tiny", mode=mode, level="doc", top_k=100
    )
    assert report.queries == 3 and report.metrics["hit@1"] == 1.0
    assert report.metrics["nDCG@10"] == 1.0
    # doc level: the ranking holds each document once (apple has three chunks)
    assert all(len(r["ranking"]) == len(set(r["ranking"])) for r in rows)
    assert {r["query_id"] for r in rows} == {"q1", "q2", "q3"}

    sec_qrels = {"q1": {"apple#taste": 1}, "q2": {"banana#growing": 1}, "q3": {"cherry#taste": 1}}
    report, rows = evaluate(tiny, QUERIES, sec_qrels, collection="tiny", mode=mode, level="section")
    assert report.metrics["hit@1"] == 1.0
    assert rows[0]["ranking"][0] == "apple#taste"

    chunk_qrels = {
        "q1": {"apple#taste#0": 1},
        "q2": {"banana#growing#0": 1},
        "q3": {"cherry#taste#0": 1},
    }
    report, _ = evaluate(tiny, QUERIES, chunk_qrels, collection="tiny", mode=mode, level="chunk")
    assert report.metrics["hit@1"] == 1.0 and report.level == "chunk"


def test_doc_level_dedupe_changes_the_metric(tiny: Sectio) -> None:
    # q1 ranks several apple chunks first; de-duplicated to documents, banana moves up
    doc_report, doc_rows = evaluate(
        tiny, QUERIES, {"q1": {"banana": 1}}, collection="tiny", mode="lexical", level="doc"
    )
    chunk_report, chunk_rows = evaluate(
        tiny,
        QUERIES,
        {"q1": {"banana#taste#0": 1}},
        collection="tiny",
        mode="lexical",
        level="chunk",
    )
    doc_rank = doc_rows[0]["ranking"].index("banana") + 1
    chunk_rank = chunk_rows[0]["ranking"].index("banana#taste#0") + 1
    assert doc_rows[0]["ranking"][0] == "apple" and chunk_rows[0]["ranking"][0].startswith("apple")
    assert doc_rank < chunk_rank
    assert doc_report.metrics["MRR@10"] == pytest.approx(1 / doc_rank, abs=1e-4)
    assert chunk_report.metrics["MRR@10"] == pytest.approx(1 / chunk_rank, abs=1e-4)


def test_evaluate_refuses_bad_arguments(tiny: Sectio) -> None:
    qrels = {"q1": {"apple": 1}}
    with pytest.raises(ConfigError, match="level"):
        evaluate(tiny, QUERIES, qrels, collection="tiny", level="page")
    with pytest.raises(ConfigError, match="mode"):
        evaluate(tiny, QUERIES, qrels, collection="tiny", mode="bm42")
    with pytest.raises(ConfigError, match="top-k"):
        evaluate(tiny, QUERIES, qrels, collection="tiny", top_k=0)
    with pytest.raises(ContractError, match="not in the queries file"):
        evaluate(tiny, QUERIES, {"q9": {"apple": 1}}, collection="tiny")


class _AskOnly:
    """A stand-in for Sectio exposing only ``ask`` (routed mode needs nothing else)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def ask(self, question: str, *, collection: str, tenant: str, record: bool) -> RetrievalResult:
        self.calls.append(
            {"q": question, "collection": collection, "tenant": tenant, "record": record}
        )
        ev = [
            Evidence(
                chunk_id=f"{d}#s#0",
                doc_id=d,
                section_key="s",
                part_index=0,
                text=d,
                score=1.0,
                source_refs=[{"source": "t"}],
            )
            for d in ("b", "a")
        ]
        return RetrievalResult(
            query=question,
            collection=collection,
            tenant=tenant,
            decision="ANSWERABLE",
            reason="r",
            route="section",
            evidence=ev,
        )


def test_routed_mode_scores_what_ask_returns() -> None:
    fake = _AskOnly()
    report, rows = evaluate(
        fake, {"q": "question"}, {"q": {"a": 1}}, collection="c", tenant="t", mode="routed"
    )
    assert fake.calls == [{"q": "question", "collection": "c", "tenant": "t", "record": False}]
    assert rows[0]["ranking"] == ["b", "a"] and report.metrics["MRR@10"] == 0.5
    assert report.search_details == {"route": "section"}


def test_routed_mode_without_ask_is_not_available() -> None:
    with pytest.raises(NotAvailable, match="routed"):
        evaluate(object(), {"q": "x"}, {"q": {"a": 1}}, collection="c", mode="routed")


def test_per_query_file(tmp_path: Path, tiny: Sectio) -> None:
    from sectio.eval import write_per_query

    _, rows = evaluate(tiny, QUERIES, {"q1": {"apple": 1}}, collection="tiny")
    write_per_query(tmp_path / "pq.jsonl", rows)
    [line] = (tmp_path / "pq.jsonl").read_text().splitlines()
    row = json.loads(line)
    assert row["query_id"] == "q1" and row["relevant"] == ["apple"] and row["nDCG@10"] == 1.0
