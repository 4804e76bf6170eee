"""A question's BM25 weight shrinks when the dense list reads BM25's first pick as off-topic.

Consumer questions are phrased in the asker's words ("side effects"), the corpus in its
own ("adverse reactions"): BM25's first pick is then a word match in another drug's
label, and fixed weights let it outrank the model's answer. Statements and keyword
queries keep the tuned weights, and so does a collection whose calibration found that
the model cannot read it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sectio import Sectio, Settings
from sectio.demo import demo_corpus_path
from sectio.index.port import ListRank
from sectio.retrieve.fusion import FusionParams, is_question

DENSE = {"a": ListRank(1, 0.70), "b": ListRank(2, 0.69), "c": ListRank(3, 0.60)}


def _trust(params: FusionParams, bm25: dict[str, ListRank]) -> float:
    return params.lexical_trust([DENSE, bm25])[0]


def test_the_share_falls_linearly_with_the_cosine_gap_to_the_floor() -> None:
    q = FusionParams(question=True, trust_span=0.04, trust_floor=0.2)
    assert _trust(q, {"a": ListRank(1, 3.0)}) == 1.0  # BM25 picks dense's first
    assert _trust(q, {"b": ListRank(1, 3.0)}) == pytest.approx(0.75)  # gap 0.01
    assert _trust(q, {"c": ListRank(1, 3.0)}) == pytest.approx(0.2)  # gap 0.10: the floor
    # a pick the dense list does not hold at all counts as its last
    assert q.lexical_trust([DENSE, {"zz": ListRank(1, 3.0)}]) == (0.2, pytest.approx(0.1))


def test_the_pick_is_bm25s_first_after_its_own_variants_are_fused() -> None:
    q = FusionParams(question=True, trust_span=0.04, trust_floor=0.0)
    exact = {"c": ListRank(1, 5.0), "a": ListRank(2, 4.0)}
    folded = {"a": ListRank(1, 5.0), "b": ListRank(2, 4.0)}
    # "a" is first of the two fused (1st and 2nd) over "c" (1st, absent): no gap
    assert q.lexical_trust([DENSE, exact, folded])[0] == 1.0


def test_statements_calibrated_collections_and_the_switch_keep_the_weights() -> None:
    far = {"c": ListRank(1, 3.0)}
    assert _trust(FusionParams(question=False), far) == 1.0
    assert _trust(FusionParams(question=True, dense_scale=0.21), far) == 1.0
    assert _trust(FusionParams(question=True, trust_span=0.0), far) == 1.0
    assert FusionParams(question=True).lexical_trust([DENSE]) == (1.0, None)
    weights, share = FusionParams(question=True, trust_floor=0.1).query_weights(
        {"dense": DENSE, "bm25": far, "bm25_folded": far}
    )
    assert share == 0.1 and weights == pytest.approx([1.0, 0.06, 0.06])


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("What is the dose of metformin", True),
        ("can I take ibuprofen with lisinopril", True),
        ("amlodipine and depression?", True),
        ("metformin lactic acidosis", False),
        ("Vitamin D deficiency is linked to fractures.", False),
        ("", False),
    ],
)
def test_a_question_ends_with_a_mark_or_opens_with_an_asking_word(text: str, asks: bool) -> None:
    assert is_question(text) is asks
    assert FusionParams().for_query(text).question is asks


def _top(home: Path, text: str, **settings: object) -> tuple[str, float]:
    """The first hit (doc#section) of ``text`` on the demo labels and the lexical share kept."""
    with Sectio(Settings(home=home, embedder="minilm", traces=False, **settings)) as s:  # type: ignore[arg-type]
        if not s.has_collection("trust_drugs"):
            s.ingest(demo_corpus_path(), profile="en_drug_label", collection="trust_drugs")
        result = s.search(text, collection="trust_drugs", tenant="default", top_k=3)
    hit = result.hits[0]
    return f"{hit.doc_id}#{hit.section_key}", float(result.details["lexical_trust"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("question", "want"),
    [
        # BM25 ranks ibuprofen's adverse reactions first ("side effects" is in its text)
        (
            "What are the side effects or risks of Hydrochlorothiazide?",
            "hydrochlorothiazide#adverse_reactions",
        ),
        # BM25 ranks atorvastatin's interactions first
        (
            "Who should get Atorvastatin and why is it prescribed ?",
            "atorvastatin#indications_and_usage",
        ),
    ],
)
def test_a_consumer_question_gets_the_models_answer_not_a_word_match(
    minilm_home: Path, question: str, want: str
) -> None:
    top, share = _top(minilm_home, question)
    assert top == want and share < 1.0
    # the same question with the fixed weights: the word match wins
    fixed, kept = _top(minilm_home, question, hybrid_trust_span=0.0)
    assert kept == 1.0 and fixed != want


def test_a_keyword_query_keeps_the_tuned_weights(minilm_home: Path) -> None:
    assert _top(minilm_home, "hydrochlorothiazide side effects risks")[1] == 1.0
