"""Section route, bounded pooling and overview over real Qdrant Edge (fake embedder)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from sectio import Sectio, Settings
from sectio.contract.profile import PoolingSettings
from sectio.demo import demo_corpus_path
from sectio.retrieve.policy import EvidencePolicy
from sectio.retrieve.pooling import pool_sections
from sectio.retrieve.routes.section import section_evidence
from sectio.retrieve.scope import ReadScope
from tests.helpers import chunk
from tests.helpers.route_corpora import vi_rows, write

POOLING_QUESTION = "Thận trọng gì với người bị loét dạ dày tá tràng khi dùng ibuprofen?"


@pytest.fixture(scope="module")
def sx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sectio]:
    tmp = tmp_path_factory.mktemp("route-section")
    s = Sectio(Settings(home=tmp / "home", embedder="fake", traces=False))
    s.ingest(write(tmp, "vi", vi_rows()), profile="vi_drug_monograph", collection="vi")
    # One long section (330 parts), written in shuffled order.
    long_rows = [
        chunk("longdoc", "lieu_luong_va_cach_dung", i, f"Phần {i} của liều lượng.", doc_title="Dài")
        for i in range(330)
    ]
    random.Random(7).shuffle(long_rows)
    long_rows.append(chunk("longdoc", "chi_dinh", 0, "Chỉ định ngắn.", doc_title="Dài"))
    s.ingest(write(tmp, "long", long_rows), profile="vi_drug_monograph", collection="long")
    yield s
    s.close()


def test_section_route_scrolls_past_one_page_in_part_order(sx: Sectio) -> None:
    coll = sx.collection("long")
    for page_size in (50, 256):
        policy = EvidencePolicy(section_page_size=page_size)
        scope = ReadScope(coll, "default", sx.tenant_guard, policy, sx.embedder)
        ev = section_evidence(scope, "longdoc", "lieu_luong_va_cach_dung")
        assert [e.part_index for e in ev] == list(range(330))
        assert {e.score for e in ev} == {1.0}


def test_ask_section_route_returns_the_whole_section_with_small_pages(sx: Sectio) -> None:
    router = sx.router("long")
    router.policy = router.policy.with_overrides(section_page_size=40)
    result = sx.ask("liều dùng", collection="long", tenant="default", doc_id="longdoc")
    assert result.route == "section"
    assert result.resolved_section_key == "lieu_luong_va_cach_dung"
    assert [e.part_index for e in result.evidence] == list(range(330))
    assert result.omitted_evidence_ids == []  # no evidence limit, no packing on this route
    assert result.decision == "ANSWERABLE"


def test_longest_phrase_routes_contraindications_not_indications(sx: Sectio) -> None:
    result = sx.ask("ibuprofen chống chỉ định cho ai", collection="vi", tenant="default")
    assert (result.route, result.resolved_doc_id, result.resolved_section_key) == (
        "section",
        "ibuprofen",
        "chong_chi_dinh",
    )
    assert [e.section_key for e in result.evidence] == ["chong_chi_dinh"]
    overdose = sx.ask("quá liều paracetamol", collection="vi", tenant="default")
    assert overdose.resolved_section_key == "qua_lieu_va_xu_tri"


def test_pooling_adds_the_matching_section_and_never_the_attractor(sx: Sectio) -> None:
    result = sx.ask(POOLING_QUESTION, collection="vi", tenant="default")
    assert result.route == "section" and result.resolved_section_key == "than_trong"
    main = [e for e in result.evidence if not e.pooled]
    pooled = [e for e in result.evidence if e.pooled]
    assert [e.section_key for e in main] == ["than_trong", "than_trong"]
    assert result.evidence[: len(main)] == main  # pooled evidence comes after the section
    assert {e.section_key for e in pooled} == {"chong_chi_dinh"}
    sections = result.details["pooling"]["sections"]
    assert all(s["matched_terms"] >= 5 for s in sections)  # the seed's count of query terms
    assert "duoc_ly_va_co_che_tac_dung" not in {e.section_key for e in result.evidence}
    assert result.details["pooling"]["sections"][0]["section_key"] == "chong_chi_dinh"


def test_the_attractor_would_match_so_exclusion_is_what_keeps_it_out(sx: Sectio) -> None:
    scope = sx.router("vi").scope("default")
    open_settings = PoolingSettings(
        enabled_sections=("than_trong",), excluded_sections=(), min_matched_terms=5, max_sections=2
    )
    pooled = pool_sections(scope, "ibuprofen", "than_trong", POOLING_QUESTION, open_settings)
    assert "duoc_ly_va_co_che_tac_dung" in {e.section_key for e in pooled.evidence}
    shipped = pool_sections(scope, "ibuprofen", "than_trong", POOLING_QUESTION)
    assert "duoc_ly_va_co_che_tac_dung" not in {e.section_key for e in shipped.evidence}


def test_pooling_is_opt_in_per_section_and_bounded(sx: Sectio) -> None:
    result = sx.ask(
        "liều dùng ibuprofen khi loét dạ dày tá tràng", collection="vi", tenant="default"
    )
    assert result.resolved_section_key == "lieu_luong_va_cach_dung"
    assert not any(e.pooled for e in result.evidence)
    assert result.details["pooling"] == {"enabled": False}
    scope = sx.router("vi").scope("default")
    high = PoolingSettings(enabled_sections=("than_trong",), min_matched_terms=50)
    assert pool_sections(scope, "ibuprofen", "than_trong", POOLING_QUESTION, high).evidence == []
    none = PoolingSettings(enabled_sections=("than_trong",), max_sections=0)
    assert pool_sections(scope, "ibuprofen", "than_trong", POOLING_QUESTION, none).evidence == []


def test_overview_keeps_intro_sections_in_book_order_with_a_marker(sx: Sectio) -> None:
    result = sx.ask("Ibuprofen", collection="vi", tenant="default")
    assert result.route == "overview" and result.resolved_doc_id == "ibuprofen"
    keys = [e.section_key for e in result.evidence]
    assert keys == ["ten_chung_quoc_te", "loai_thuoc", "duoc_ly_va_co_che_tac_dung", "chi_dinh"]
    assert all(e.text.startswith("【Ibuprofen】") for e in result.evidence)
    bare = sx.ask("thuốc brufen là gì", collection="vi", tenant="default")
    assert bare.route == "overview" and bare.resolved_doc_id == "ibuprofen"
    forced = sx.ask("paracetamol liều", collection="vi", tenant="default", turn_type="overview")
    assert forced.route == "overview"
    assert "lieu_luong_va_cach_dung" not in {e.section_key for e in forced.evidence}


def test_overview_marks_only_the_first_chunk_of_each_section(tmp_path: Path) -> None:
    rows = [
        chunk("d", "chi_dinh", 1, "B.", doc_title="Thuốc Đê"),
        chunk("d", "chi_dinh", 0, "A.", doc_title="Thuốc Đê"),
        chunk("d", "than_trong", 0, "Không phải phần giới thiệu.", doc_title="Thuốc Đê"),
    ]
    with Sectio(Settings(home=tmp_path / "h", embedder="fake", traces=False)) as s:
        s.ingest(write(tmp_path, "d", rows), profile="vi_drug_monograph", collection="d")
        result = s.ask("Thuốc Đê", collection="d", tenant="default")
    assert [e.text for e in result.evidence] == ["【Thuốc Đê】 A.", "B."]


def test_a_named_section_the_document_lacks_tries_the_next_one(sx: Sectio) -> None:
    # paracetamol has no pregnancy section: "bà bầu" cannot win; "liều" is the next match.
    result = sx.ask("bà bầu uống paracetamol liều bao nhiêu", collection="vi", tenant="default")
    assert result.resolved_section_key == "lieu_luong_va_cach_dung"
    assert result.details["section_resolution"]["candidates"][0]["section_key"] == (
        "thoi_ky_mang_thai"
    )


def test_a_section_given_by_flag_is_exact_even_when_empty(sx: Sectio) -> None:
    result = sx.ask(
        "anything", collection="vi", tenant="default", doc_id="paracetamol", section_key="tuong_ky"
    )
    assert (result.route, result.decision, result.reason) == ("section", "ABSTAIN", "no_evidence")


def test_old_profiles_spell_the_floor_min_score() -> None:
    assert PoolingSettings.model_validate({"min_score": 4.0}).min_matched_terms == 4


def test_the_pooling_criterion_counts_terms_whatever_the_corpus_size(tmp_path: Path) -> None:
    """A caution question without a condition pools nothing, on 271 chunks or on 10x as many.

    "metformin warnings" matches the metformin label's other sections on two
    terms; its raw BM25 score grows with the corpus (IDF), a count does not.
    """
    demo = [json.loads(line) for line in demo_corpus_path().read_text().splitlines()]
    filler = [
        {
            **row,
            "doc_id": f"{row['doc_id']}-{i}",
            "chunk_id": f"{i}-{row['chunk_id']}",
            "doc_title": f"Copy {i}",
        }
        for i in range(9)
        for row in demo
        if row["doc_id"] != "metformin"
    ]
    settings = PoolingSettings(enabled_sections=("warnings_and_cautions",), min_matched_terms=3)
    seen = []
    with Sectio(Settings(home=tmp_path / "h", embedder="fake", traces=False)) as s:
        for name, rows in (("small", demo), ("large", demo + filler)):
            s.ingest(write(tmp_path, name, rows), profile="en_drug_label", collection=name)
            scope = s.router(name).scope("default")
            caution = pool_sections(
                scope, "metformin", "warnings_and_cautions", "metformin warnings", settings
            )
            condition = pool_sections(
                scope,
                "metformin",
                "warnings_and_cautions",
                "metformin warnings lactic acidosis renal impairment",
                settings,
            )
            seen.append((caution.evidence, sorted(e.chunk_id for e in condition.evidence)))
    assert seen[0][0] == [] and seen[1][0] == []
    assert seen[0][1] and seen[0][1] == seen[1][1]


@pytest.mark.parametrize("flag", ["has_quarantined_content", "requires_visual_check"])
def test_a_flagged_block_in_the_section_is_returned_and_verifies_the_source(
    tmp_path: Path, flag: str
) -> None:
    rows = [
        chunk("d", "chong_chi_dinh", 0, "Không dùng cho người suy gan.", doc_title="Thuốc Đê"),
        chunk(
            "d",
            "chong_chi_dinh",
            1,
            "| bảng | liều |",
            doc_title="Thuốc Đê",
            chunk_kind="block",
            **{flag: True},
        ),
        chunk("d", "chong_chi_dinh", 2, "| bảng sạch |", doc_title="Thuốc Đê", chunk_kind="block"),
        chunk("d", "chi_dinh", 0, "Giảm đau.", doc_title="Thuốc Đê"),
    ]
    with Sectio(Settings(home=tmp_path / "h", embedder="fake", traces=False)) as s:
        s.ingest(write(tmp_path, "d", rows), profile="vi_drug_monograph", collection="d")
        by_phrase = s.ask("Thuốc Đê chống chỉ định", collection="d", tenant="default")
        by_flags = s.ask(
            "x", collection="d", tenant="default", doc_id="d", section_key="chong_chi_dinh"
        )
    for result in (by_phrase, by_flags):
        assert result.route == "section"
        assert [(e.part_index, e.chunk_kind) for e in result.evidence] == [
            (0, "prose"),
            (1, "block"),
        ]
        assert result.decision == "VERIFY_SOURCE"


STAND_IN_PROFILE = """
name = "stand_in_test"
[answerability]
subject = "terms"
[[sections]]
key = "how_supplied"
phrases = ["how supplied"]
[[sections]]
key = "storage_and_handling"
stand_in = "how_supplied"
phrases = ["storage", "room temperature"]
"""


def test_a_section_the_document_lacks_is_answered_by_its_stand_in(tmp_path: Path) -> None:
    profile = tmp_path / "stand_in.toml"
    profile.write_text(STAND_IN_PROFILE)
    rows = [
        chunk("old", "how_supplied", 0, "Bottles of 90. Store at 25 C.", doc_title="Oldlabel"),
        chunk("new", "how_supplied", 0, "Bottles of 30.", doc_title="Newlabel"),
        chunk("new", "storage_and_handling", 0, "Store below 30 C.", doc_title="Newlabel"),
    ]
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as s:
        s.ingest(write(tmp_path, "stand_in", rows), profile=str(profile), collection="labels")
        old = s.ask("oldlabel at room temperature?", collection="labels", tenant="default")
        new = s.ask("oldlabel storage", collection="labels", doc_id="new", tenant="default")
    assert old.route == "section" and old.resolved_section_key == "how_supplied"
    assert [e.chunk_id for e in old.evidence] == ["old#how_supplied#0"]
    assert old.details["section_resolution"]["phrase"] == "room temperature"
    assert new.resolved_section_key == "storage_and_handling"  # a document that has it


def test_a_stand_in_must_name_a_section_of_the_profile() -> None:
    from sectio.contract.profile import CorpusProfile

    with pytest.raises(ValueError, match="unknown section keys"):
        CorpusProfile.model_validate(
            {"name": "x", "sections": [{"key": "a", "stand_in": "nowhere"}]}
        )
