"""Routed retrieval against plain similarity on the labelled drug-question set (real MiniLM)."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

import pytest

from sectio import Sectio
from sectio.demo import demo_corpus_path

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "drug_questions"


def _load(split: str) -> tuple[dict[str, str], dict[str, set[str]]]:
    qrels: dict[str, set[str]] = defaultdict(set)
    with (DATA / "qrels" / f"{split}.tsv").open() as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            qrels[row["query-id"]].add(row["corpus-id"])
    queries = {}
    for line in (DATA / "queries.jsonl").read_text().splitlines():
        q = json.loads(line)
        if q["_id"] in qrels:
            queries[q["_id"]] = q["text"]
    return queries, dict(qrels)


def test_question_set_is_well_formed() -> None:
    queries, qrels = _load("test")
    dev, _ = _load("dev")
    holdout, _ = _load("holdout")
    assert len(queries) == len(dev) + len(holdout) >= 120
    corpus = {
        f"{r['doc_id']}#{r['section_key']}"
        for r in map(json.loads, demo_corpus_path().read_text().splitlines())
    }
    assert all(rel <= corpus for rel in qrels.values())
    assert len({rel.split("#")[0] for rels in qrels.values() for rel in rels}) == 20


@pytest.mark.slow
def test_routed_beats_similarity_on_section_hit_at_1(minilm_sectio: Sectio) -> None:
    minilm_sectio.ingest(demo_corpus_path(), profile="en_drug_label", collection="routed-bench")
    queries, qrels = _load("test")
    routed = dense = 0
    for qid, text in queries.items():
        result = minilm_sectio.ask(text, collection="routed-bench", tenant="default")
        top = result.evidence[0] if result.evidence else None
        routed += bool(top) and f"{top.doc_id}#{top.section_key}" in qrels[qid]  # type: ignore[union-attr]
        hits = minilm_sectio.search(
            text, collection="routed-bench", tenant="default", top_k=1, mode="dense"
        ).hits
        dense += bool(hits) and f"{hits[0].doc_id}#{hits[0].section_key}" in qrels[qid]
    n = len(queries)
    assert routed / n >= 0.85
    assert routed / n >= dense / n + 0.15


# Clinician- and consumer-style wordings that no profile phrase of en_drug_label
# matches (written for this test; in no question set): the shipped example
# questions route each to its section through the real model.
NO_PHRASE = [
    ("how do i move metformin from the immediate release to the extended release", "dosage"),
    ("what lab tests should be done while on atorvastatin", "warnings_and_cautions"),
    ("has lisinopril been reported to cause pancreatitis", "adverse_reactions"),
    ("can omeprazole lower the amount of clopidogrel in my blood", "drug_interactions"),
    ("would gabapentin be a sensible choice for shingles nerve pain", "indications_and_usage"),
    ("is sertraline a problem for a patient with narrow angle glaucoma", "contraindications"),
    ("since starting metoprolol i feel cold all the time", "adverse_reactions"),
    # routed by the 2026-12-01 examples (free-form before them)
    ("could the new symptoms my mother has be coming from lisinopril", "adverse_reactions"),
    ("is metoprolol a bad choice for someone with emphysema", "contraindications"),
]


@pytest.mark.slow
def test_unphrased_questions_route_through_the_shipped_examples(minilm_sectio: Sectio) -> None:
    minilm_sectio.ingest(demo_corpus_path(), profile="en_drug_label", collection="intent-real")
    for question, want in NO_PHRASE:
        result = minilm_sectio.ask(question, collection="intent-real", tenant="default")
        assert (result.details.get("section_resolution") or {}).get("phrase") is None, question
        assert result.details["intent"]["choice"] == "section", question
        assert result.route == "section" and result.resolved_section_key, question
        assert result.resolved_section_key.startswith(want), question
        assert {e.section_key for e in result.evidence} == {result.resolved_section_key}


# Questions that name no document but say which one they mean in words their
# section does not hold (written for this test; in no question set). Before
# the lead-document step each one led with another drug's section (2026-12-01).
BY_OTHER_WORDS = [
    ("How is the thyroxine dose worked out for an older patient?", "levothyroxine"),
    ("What dose of thyroxine should an adult start on?", "levothyroxine"),
    ("Can the antibiotic interact with the pill for birth control?", "amoxicillin"),
    ("Which drugs interact with the statin?", "atorvastatin"),
    ("what is the usual dose of the statin", "atorvastatin"),
]


@pytest.mark.slow
def test_a_question_naming_no_document_leads_with_the_document_it_means(
    minilm_sectio: Sectio,
) -> None:
    minilm_sectio.ingest(demo_corpus_path(), profile="en_drug_label", collection="lead-doc")
    for question, want in BY_OTHER_WORDS:
        result = minilm_sectio.ask(question, collection="lead-doc", tenant="default")
        section = result.details["section_resolution"]["section_key"]
        assert result.route == "fallback_search" and section, question
        assert result.details["ranking"]["lead_document"] == want, question
        top = result.evidence[0]
        assert (top.doc_id, top.section_key) == (want, section), question
        # the lead document's chunks come first, then the other documents the filter found
        docs = [e.doc_id for e in result.evidence]
        after_lead = docs[docs.index(next(d for d in docs if d != want)) :]
        assert want not in after_lead, question
        assert len(set(docs)) > 1, question
        assert all(e.section_key == section for e in result.evidence), question
