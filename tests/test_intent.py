"""Section intent: example questions route a named document's question when no phrase does.

The fake embedder is a hashed bag of words, so closeness here is shared
words: enough to test the rules (phrase first, examples next, a weak reading
falls to free-form, two close sections both whole, tenant scope) without a
model. Quality on real questions is measured in benchmarks/ (README table).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sectio import Sectio, Settings
from sectio.retrieve.intent import IntentClassifier
from tests.helpers.route_corpora import en_rows, vi_rows, write

PROFILE = """
name = "intent_test"
[answerability]
subject = "terms"
[intent]
k = 1
min_score = 0.5
margin = 0.05
[[sections]]
key = "indications_and_usage"
phrases = ["used for"]
examples = ["what is it prescribed for"]
[[sections]]
key = "dosage_and_administration"
phrases = ["dose"]
examples = ["pills a day"]
[[sections]]
key = "contraindications"
examples = ["who must never take it"]
[[sections]]
key = "warnings_and_cautions"
[[sections]]
key = "adverse_reactions"
phrases = ["side effects"]
examples = [EXAMPLE]
"""


def _sectio(tmp_path: Path, example: str, tenants: tuple[str, ...] = ("default",)) -> Sectio:
    profile = tmp_path / f"intent-{abs(hash(example))}.toml"
    profile.write_text(PROFILE.replace("EXAMPLE", f'"{example}"'))
    s = Sectio(Settings(home=tmp_path / f"h-{abs(hash(example))}", embedder="fake"))
    rows = [row for tenant in tenants for row in en_rows(tenant)]
    if len(tenants) > 1:  # chunk ids must differ between tenants' copies
        rows = [{**r, "chunk_id": f"{r['tenant']}:{r['chunk_id']}"} for r in rows]
    s.ingest(write(tmp_path, "en", rows), profile=str(profile), collection="en")
    return s


@pytest.fixture
def sx(tmp_path: Path) -> Sectio:
    return _sectio(tmp_path, "upset my tummy")


def _sections(result: object) -> list[str]:
    return [e.section_key for e in result.evidence]  # type: ignore[attr-defined]


def test_a_phrase_wins_over_the_examples(sx: Sectio) -> None:
    result = sx.ask("metformin side effects pills a day", collection="en")
    assert result.route == "section" and result.resolved_section_key == "adverse_reactions"
    assert result.details["section_resolution"]["how"] != "none"
    assert "intent" not in result.details


def test_a_paraphrase_routes_through_the_examples(sx: Sectio) -> None:
    result = sx.ask("does metformin upset my tummy", collection="en")
    assert (result.route, result.resolved_section_key) == ("section", "adverse_reactions")
    assert _sections(result) == ["adverse_reactions"]
    intent = result.details["intent"]
    assert intent["choice"] == "section" and intent["chosen"] == ["adverse_reactions"]
    assert intent["ranked"][0]["score"] >= intent["min_score"]


def test_a_weak_reading_falls_to_free_form_and_says_so(sx: Sectio) -> None:
    result = sx.ask("metformin glycemic control renal", collection="en")
    assert result.route == "free_form"
    assert result.details["intent"]["choice"] == "free_form"
    assert result.details["intent"]["chosen"] == []


def test_adding_an_example_changes_routing_without_code(tmp_path: Path) -> None:
    question = "metformin makes me feel queasy"
    before = _sectio(tmp_path, "upset my tummy").ask(question, collection="en")
    after = _sectio(tmp_path, "makes me feel queasy").ask(question, collection="en")
    assert before.route == "free_form"
    assert (after.route, after.resolved_section_key) == ("section", "adverse_reactions")


def test_a_two_intent_question_returns_both_sections_whole(sx: Sectio) -> None:
    result = sx.ask("metformin upset my tummy pills a day", collection="en")
    assert result.details["intent"]["choice"] == "sections"
    chosen = result.details["intent"]["chosen"]
    assert set(chosen) == {"adverse_reactions", "dosage_and_administration"}
    assert result.route == "section"
    # each section whole, one after the other, parts in order
    assert [(e.section_key, e.part_index) for e in result.evidence] == [
        (key, part)
        for key in chosen
        for part in ((0, 1) if key == "dosage_and_administration" else (0,))
    ]
    assert [e.rank for e in result.evidence] == list(range(1, len(result.evidence) + 1))


def test_intent_reads_only_the_callers_tenant(tmp_path: Path) -> None:
    s = _sectio(tmp_path, "upset my tummy", tenants=("a", "b"))
    for tenant in ("a", "b"):
        result = s.ask("does metformin upset my tummy", collection="en", tenant=tenant)
        assert result.details["intent"]["chosen"] == ["adverse_reactions"]
        assert result.evidence and {e.tenant for e in result.evidence} == {tenant}


def _weighted(tmp_path: Path, weight: float, extra: str = "") -> Sectio:
    """The test profile with ``[intent] rank_weight`` (and ``extra`` intent keys)."""
    text = PROFILE.replace("EXAMPLE", '"upset my tummy"')
    text = text.replace("[intent]\n", f"[intent]\nrank_weight = {weight}\n{extra}")
    profile = tmp_path / f"weighted-{weight}.toml"
    profile.write_text(text)
    s = Sectio(Settings(home=tmp_path / f"w-{weight}", embedder="fake"))
    s.ingest(write(tmp_path, "en", en_rows()), profile=str(profile), collection="en")
    return s


# "renal impairment" is in the contraindications and warnings chunks; "tummy" only
# in an adverse-reactions example. The reading is weak (free-form), not empty.
WEAK = "metformin renal impairment tummy"


def test_free_form_ranks_the_section_the_examples_point_to_first(tmp_path: Path) -> None:
    plain = _weighted(tmp_path, 0.0).ask(WEAK, collection="en")
    weighted = _weighted(tmp_path, 20.0).ask(WEAK, collection="en")
    for result in (plain, weighted):
        assert result.route == "free_form"
        assert result.details["intent"]["choice"] == "free_form"
        assert result.details["intent"]["ranked"][0]["section_key"] == "adverse_reactions"
    assert plain.evidence[0].section_key in {"contraindications", "warnings_and_cautions"}
    assert "intent_weight" not in plain.details["ranking"]
    assert weighted.evidence[0].section_key == "adverse_reactions"
    assert weighted.details["ranking"]["intent_weight"] == 20.0
    # the same chunks either way, only their order differs; scores stay cosines
    assert sorted(e.chunk_id for e in plain.evidence) == sorted(
        e.chunk_id for e in weighted.evidence
    )
    assert weighted.evidence[0].score == next(
        e.score for e in plain.evidence if e.chunk_id == weighted.evidence[0].chunk_id
    )


def test_a_callers_free_form_turn_is_ranked_by_intent_not_routed_by_it(sx: Sectio) -> None:
    result = sx.ask("does metformin upset my tummy", collection="en", turn_type="free_form")
    assert result.route == "free_form"
    assert result.details["intent"]["chosen"] == ["adverse_reactions"]
    assert result.evidence[0].section_key == "adverse_reactions"


def test_two_phrases_joined_by_and_return_both_sections_whole(sx: Sectio) -> None:
    result = sx.ask("metformin side effects and dose", collection="en")
    assert (result.route, result.resolved_section_key) == ("section", "adverse_reactions")
    assert result.details["sections"] == ["adverse_reactions", "dosage_and_administration"]
    assert result.details["section_resolution"]["also"]["section_key"] == (
        "dosage_and_administration"
    )
    assert [(e.section_key, e.part_index) for e in result.evidence] == [
        ("adverse_reactions", 0),
        ("dosage_and_administration", 0),
        ("dosage_and_administration", 1),
    ]
    assert [e.rank for e in result.evidence] == [1, 2, 3]
    assert "intent" not in result.details  # phrases decided


def test_two_phrases_without_a_joiner_name_one_section(sx: Sectio) -> None:
    result = sx.ask("metformin side effects dose", collection="en")
    assert {e.section_key for e in result.evidence} == {"adverse_reactions"}
    assert "sections" not in result.details


def test_no_joiners_in_the_profile_means_the_longest_phrase_alone(tmp_path: Path) -> None:
    s = _weighted(tmp_path, 0.5, extra="joiners = []\n")
    result = s.ask("metformin side effects and dose", collection="en")
    assert {e.section_key for e in result.evidence} == {"adverse_reactions"}


def test_two_documents_and_two_sections_each_whole(sx: Sectio) -> None:
    result = sx.ask("metformin and ibuprofen used for and dose", collection="en")
    assert result.details["sections"] == ["indications_and_usage", "dosage_and_administration"]
    assert [(e.section_key, e.doc_id, e.part_index) for e in result.evidence] == [
        ("indications_and_usage", "metformin", 0),
        ("indications_and_usage", "ibuprofen", 0),
        ("dosage_and_administration", "metformin", 0),
        ("dosage_and_administration", "metformin", 1),
        ("dosage_and_administration", "ibuprofen", 0),
    ]


def test_two_sections_come_from_the_callers_tenant_only(tmp_path: Path) -> None:
    s = _sectio(tmp_path, "upset my tummy", tenants=("a", "b"))
    for tenant in ("a", "b"):
        result = s.ask("metformin side effects and dose", collection="en", tenant=tenant)
        assert result.details["sections"] == ["adverse_reactions", "dosage_and_administration"]
        assert {e.tenant for e in result.evidence} == {tenant}


def test_vietnamese_joiners_name_two_sections(tmp_path: Path) -> None:
    s = Sectio(Settings(home=tmp_path / "vi", embedder="fake"))
    s.ingest(write(tmp_path, "vi", vi_rows()), profile="vi_drug_monograph", collection="vi")
    result = s.ask("paracetamol chỉ định và chống chỉ định", collection="vi")
    assert result.details["sections"] == ["chong_chi_dinh", "chi_dinh"]
    assert [e.section_key for e in result.evidence] == ["chong_chi_dinh", "chi_dinh"]
    alone = s.ask("paracetamol chống chỉ định", collection="vi")
    assert [e.section_key for e in alone.evidence] == ["chong_chi_dinh"]


def _with_storage(tmp_path: Path, stand_in: str, extra: str = "") -> Sectio:
    """The test profile plus a ``storage_and_handling`` section no document has (and
    ``extra`` sections)."""
    text = PROFILE.replace("EXAMPLE", '"upset my tummy"') + (
        '[[sections]]\nkey = "storage_and_handling"\n'
        f"{stand_in}"
        'examples = ["keep it in the fridge"]\n'
        'phrases = ["stored"]\n'
        f"{extra}"
    )
    name = f"stand-in-{abs(hash(stand_in))}" if stand_in else "no-stand-in"
    profile = tmp_path / f"{name}.toml"
    profile.write_text(text)
    s = Sectio(Settings(home=tmp_path / name, embedder="fake"))
    s.ingest(write(tmp_path, "en", en_rows()), profile=str(profile), collection="en")
    return s


def test_an_absent_sections_examples_route_to_its_stand_in(tmp_path: Path) -> None:
    question = "can i keep metformin in the fridge"
    lent = _with_storage(tmp_path, 'stand_in = "warnings_and_cautions"\n').ask(
        question, collection="en"
    )
    assert (lent.route, lent.resolved_section_key) == ("section", "warnings_and_cautions")
    assert lent.details["intent"]["chosen"] == ["warnings_and_cautions"]
    alone = _with_storage(tmp_path, "").ask(question, collection="en")
    assert alone.details["intent"]["chosen"] != ["warnings_and_cautions"]
    assert "storage_and_handling" not in [
        r["section_key"] for r in alone.details["intent"]["ranked"]
    ]


def test_a_stand_in_scores_its_own_and_the_absent_sections_examples() -> None:
    c = IntentClassifier(("a", "b", "s"), np.eye(3, dtype=np.float32), k=1, stand_ins={"s": "b"})
    query = np.array([0.0, 0.0, 1.0], dtype=np.float32)
    assert c.rank(query, {"a", "b"}) == [("b", 1.0), ("a", 0.0)]
    # a document with the section itself keeps it apart
    assert c.rank(query, {"a", "b", "s"}) == [("s", 1.0), ("a", 0.0), ("b", 0.0)]
    # a stand-in the document lacks lends nothing
    assert c.rank(query, {"a"}) == [("a", 0.0)]


def test_two_documents_without_a_phrase_get_the_examples_section_of_each(sx: Sectio) -> None:
    result = sx.ask("who must never take metformin or warfarin", collection="en")
    assert result.route == "section" and result.details["intent"]["choice"] == "section"
    assert result.details["documents"] == ["metformin", "warfarin"]
    assert [(e.section_key, e.doc_id) for e in result.evidence] == [
        ("contraindications", "metformin"),
        ("contraindications", "warfarin"),
    ]
    whole = sx.ask("metformin or ibuprofen pills a day", collection="en")
    assert [(e.doc_id, e.part_index) for e in whole.evidence] == [
        ("metformin", 0),
        ("metformin", 1),
        ("ibuprofen", 0),
    ]
    assert {e.section_key for e in whole.evidence} == {"dosage_and_administration"}


def test_two_documents_read_by_the_examples_skip_one_without_the_section(sx: Sectio) -> None:
    result = sx.ask("who must never take metformin or ibuprofen", collection="en")
    assert result.details["documents"] == ["metformin", "ibuprofen"]
    assert [(e.section_key, e.doc_id) for e in result.evidence] == [
        ("contraindications", "metformin")
    ]


def test_two_documents_and_a_weak_reading_keep_the_fallback_search(sx: Sectio) -> None:
    result = sx.ask("metformin or warfarin glycemic control renal", collection="en")
    assert result.route == "fallback_search"
    assert result.details["intent"]["choice"] == "free_form"
    assert "documents" not in result.details


def test_two_documents_read_by_the_examples_stay_in_the_callers_tenant(tmp_path: Path) -> None:
    s = _sectio(tmp_path, "upset my tummy", tenants=("a", "b"))
    for tenant in ("a", "b"):
        result = s.ask("who must never take metformin or warfarin", collection="en", tenant=tenant)
        assert result.details["documents"] == ["metformin", "warfarin"]
        assert len(result.evidence) == 2 and {e.tenant for e in result.evidence} == {tenant}


def test_stand_ins_in_order_the_first_the_document_has_scores_the_examples() -> None:
    vectors = np.eye(4, dtype=np.float32)
    c = IntentClassifier(("a", "b", "x", "s"), vectors, k=1, stand_ins={"s": ("x", "b")})
    query = np.array([0.0, 0.0, 0.0, 1.0], dtype=np.float32)
    assert c.rank(query, {"a", "b"})[0] == ("b", 1.0)  # x absent: the next stand-in
    assert c.rank(query, {"a", "b", "x"})[0] == ("x", 1.0)  # x first when present


def test_a_phrase_of_an_absent_section_goes_to_the_first_stand_in_present(
    tmp_path: Path,
) -> None:
    lent = _with_storage(
        tmp_path,
        'stand_in = ["how_supplied", "warnings_and_cautions"]\n',
        extra='[[sections]]\nkey = "how_supplied"\n',
    ).ask("how should metformin be stored", collection="en")
    assert lent.resolved_section_key == "warnings_and_cautions"  # no document has how_supplied
    assert lent.details["section_resolution"]["phrase"] == "stored"


@pytest.mark.slow
def test_a_misspelt_phrase_word_routes_and_says_how_it_was_read(tmp_path: Path) -> None:
    # the real model's vocabulary says which words are common (never corrected);
    # the fake embedder counts every word as one token, so every word is common there
    profile = tmp_path / "typo.toml"
    profile.write_text(PROFILE.replace("EXAMPLE", '"upset my tummy"'))
    sx = Sectio(Settings(home=tmp_path / "home", embedder="minilm", traces=False))
    sx.ingest(write(tmp_path, "en", en_rows()), profile=str(profile), collection="en")
    result = sx.ask("metformin side efects", collection="en")
    assert (result.route, result.resolved_section_key) == ("section", "adverse_reactions")
    typo = result.details["section_resolution"]["typo"]
    assert typo == [{"word": "efects", "read_as": "effects"}]
    # a word of the collection is never read as another ("tablets" is in the labels)
    assert "typo" not in sx.ask("metformin tablets", collection="en").details["section_resolution"]
