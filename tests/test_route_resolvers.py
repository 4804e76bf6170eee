"""Document and section resolvers, text normalization, the policy object (no index needed)."""

from __future__ import annotations

import dataclasses

import pytest

from sectio.contract.profile import CorpusProfile, SectionSpec, load_profile
from sectio.retrieve.policy import EvidencePolicy
from sectio.retrieve.resolve_doc import DocCatalog
from sectio.retrieve.resolve_section import SectionResolver
from sectio.retrieve.routes.overview import is_bare
from sectio.retrieve.text import edit_distance, find_phrase, fold, tokens

EN = SectionResolver(load_profile("en_drug_label"))
VI = SectionResolver(load_profile("vi_drug_monograph"))

DRUGS = [
    {"doc_id": "metformin", "doc_title": "Metformin", "aliases": ["Glucophage"]},
    {"doc_id": "metoprolol", "doc_title": "Metoprolol", "aliases": ["Lopressor", "Toprol-XL"]},
    {"doc_id": "aspirin", "doc_title": "Aspirin", "aliases": ["Bayer", "acetylsalicylic acid"]},
    {"doc_id": "warfarin", "doc_title": "Warfarin", "aliases": ["Coumadin"]},
    {"doc_id": "hydrochlorothiazide", "doc_title": "Hydrochlorothiazide", "aliases": ["HCTZ"]},
    {"doc_id": "paracetamol", "doc_title": "Paracetamol", "aliases": ["Acetaminophen"]},
    {"doc_id": "dg-01", "doc_title": "Dầu gió xanh"},
]
CATALOG = DocCatalog.from_payloads(DRUGS, protected=EN.vocabulary())


# --- text ------------------------------------------------------------------------------
def test_normalization_is_nfc_casefold_and_drops_punctuation() -> None:
    decomposed = "Cho\u0302\u0301ng"  # "Chống" in NFD
    assert tokens(decomposed) == ("chống",)
    assert tokens("Can't take Toprol-XL!") == ("cant", "take", "toprol", "xl")
    assert fold("Đau đầu, CHỐNG chỉ định") == "dau dau chong chi dinh"


def test_phrase_matching_is_on_word_boundaries() -> None:
    assert find_phrase(tokens("contraindications"), tokens("indications")) == []
    assert find_phrase(tokens("a b c b c"), tokens("b c")) == [1, 3]


def test_edit_distance_counts_a_transposition_once_and_caps() -> None:
    assert edit_distance("metforman", "metformin", 1) == 1
    assert edit_distance("amlodpiine", "amlodipine", 2) == 1
    assert edit_distance("abcdef", "uvwxyz", 2) == 3


# --- section resolver ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "key"),
    [
        ("Paracetamol chống chỉ định cho ai?", "chong_chi_dinh"),
        ("chỉ định của paracetamol là gì", "chi_dinh"),
        ("quá liều paracetamol thì sao", "qua_lieu_va_xu_tri"),
        ("liều paracetamol cho người lớn", "lieu_luong_va_cach_dung"),
        ("CHỐNG CHỈ ĐỊNH", "chong_chi_dinh"),
        ("chong chi dinh cua paracetamol", "chong_chi_dinh"),  # no accents: folded pass
        ("xu tri tac dung phu", "huong_dan_cach_xu_tri_adr"),
        ("bà bầu uống được không", "thoi_ky_mang_thai"),
    ],
)
def test_vietnamese_longest_phrase_wins(question: str, key: str) -> None:
    match = VI.resolve(question)
    assert match is not None and match.key == key


@pytest.mark.parametrize(
    ("question", "key"),
    [
        ("contraindications", "contraindications"),
        ("indications", "indications_and_usage"),
        ("what is it used for", "indications_and_usage"),
        ("how much should I take", "dosage_and_administration"),
        ("can I take it with food", "dosage_and_administration"),
        ("can I take it with alcohol", "drug_interactions"),
        ("what are the side effects", "adverse_reactions"),
        ("is it safe during pregnancy", "pregnancy"),
        ("what if I took too much", "overdosage"),
        ("who shouldn't take it", "contraindications"),
    ],
)
def test_english_consumer_phrasings(question: str, key: str) -> None:
    match = EN.resolve(question)
    assert match is not None and match.key == key


def test_no_phrase_returns_none_never_a_guess() -> None:
    assert EN.resolve("tell me something about the weather") is None
    assert VI.resolve("xin chào") is None


def test_document_name_reads_as_it() -> None:
    question = "does Zoloft cause weight gain"
    assert EN.resolve(question) is not None
    match = EN.resolve(question, exclude=[(1, 2)])
    assert match is not None and match.phrase == "does it cause"
    interaction = EN.resolve("can I take Advil with Zoloft", exclude=[(3, 4), (5, 6)])
    assert interaction is not None and interaction.key == "drug_interactions"


def test_resolve_all_never_offers_a_shorter_overlapping_phrase() -> None:
    found = VI.resolve_all("chống chỉ định")
    assert [m.key for m in found] == ["chong_chi_dinh"]  # "chỉ định" is inside it: no runner-up
    both = EN.resolve_all("can I take it if I have kidney problems")
    assert [m.key for m in both] == ["contraindications", "use_in_specific_populations"]


def test_a_misspelt_routing_word_is_read_as_the_phrase_word_it_is_one_edit_from() -> None:
    def unknown(_word: str) -> bool:
        return False

    # exact and folded passes find nothing: the typo pass reads "contraindicatons"
    found = EN.resolve_all("contraindicatons of metformin", known=unknown)
    assert [(m.key, m.typo) for m in found][:1] == [
        ("contraindications", (("contraindicatons", "contraindications"),))
    ]
    strengths = EN.resolve_all("what are the different strenths of it", known=unknown)
    assert strengths[0].phrase == "different strengths"
    # no typo pass unless the caller says which words are real
    assert EN.resolve_all("contraindicatons of metformin") == []
    # a word the collection (or the model's vocabulary) knows is never corrected
    assert EN.resolve_all("strenths", known=lambda w: w == "strenths") == []
    # nor a word one edit from two phrase words, nor a short one
    assert EN.corrected(("dosege",), unknown) == {"dosege": "dosage"}
    assert EN.corrected(("doze",), unknown) == {}
    # an exact phrase wins: the typo pass only runs when nothing matched
    exact = EN.resolve_all("contraindications and side efects", known=unknown)
    assert [m.typo for m in exact] == [()]


def test_a_stand_in_list_is_tried_in_order() -> None:
    profile = load_profile("en_drug_label")
    spec = profile.section("dosage_forms_and_strengths")
    assert spec is not None
    assert spec.stand_ins == ("how_supplied", "dosage_and_administration")
    storage = profile.section("storage_and_handling")
    assert storage is not None and storage.stand_ins == ("how_supplied",)
    with pytest.raises(ValueError, match="unknown section keys"):
        CorpusProfile(name="x", sections=[SectionSpec(key="a", stand_in=("b", "c"))])


def test_adding_a_phrase_is_a_profile_edit() -> None:
    profile = CorpusProfile(
        name="custom",
        sections=(
            SectionSpec(key="a", phrases=("alpha",)),
            SectionSpec(key="b", phrases=("alpha beta",)),
        ),
    )
    resolver = SectionResolver(profile)
    assert resolver.resolve("alpha beta gamma").key == "b"  # type: ignore[union-attr]
    assert resolver.resolve("alpha gamma").key == "a"  # type: ignore[union-attr]


# --- document resolver ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "doc_id", "how"),
    [
        ("What is metformin used for?", "metformin", "exact"),
        ("who should not take GLUCOPHAGE", "metformin", "exact"),
        ("is Toprol-XL a beta blocker", "metoprolol", "exact"),
        ("toprol xl dose", "metoprolol", "exact"),
        ("acetylsalicylic acid side effects", "aspirin", "exact"),
        ("hctz with alcohol", "hydrochlorothiazide", "exact"),
        ("dau gio xanh dung de lam gi", "dg-01", "folded"),
        ("metforman side effects", "metformin", "fuzzy"),
        ("motoprolol dosage", "metoprolol", "fuzzy"),
        ("hydroclorothiazide caution", "hydrochlorothiazide", "fuzzy"),
    ],
)
def test_document_resolution(question: str, doc_id: str, how: str) -> None:
    res = CATALOG.resolve(question)
    assert res is not None
    assert (res.doc_id, res.how) == (doc_id, how)


def test_short_words_and_common_words_are_never_corrected() -> None:
    assert CATALOG.resolve("what should I do today") is None
    assert CATALOG.resolve("bayar") is None  # 5 letters: too short for a typo
    assert CATALOG.resolve("warnings") is None  # routing vocabulary is protected
    assert CATALOG.resolve("tell me about the weather") is None


def test_longest_overlapping_name_wins() -> None:
    catalog = DocCatalog.from_payloads(
        [
            {"doc_id": "toprol", "doc_title": "Toprol"},
            {"doc_id": "toprol_xl", "doc_title": "Toprol XL"},
        ]
    )
    res = catalog.resolve("toprol xl dose")
    assert res is not None and res.doc_id == "toprol_xl"


def test_a_brand_with_a_release_form_is_named_by_the_brand_alone() -> None:
    catalog = DocCatalog.from_payloads(
        [
            {"doc_id": "divalproex", "doc_title": "Divalproex", "aliases": ["Depakote ER"]},
            {"doc_id": "pantoprazole", "aliases": ["Protonix Delayed-Release"]},
            {"doc_id": "phenytoin", "doc_title": "Phenytoin", "aliases": ["Dilantin-125"]},
            {"doc_id": "tiotropium", "aliases": ["Spiriva Respimat"]},
        ]
    )
    for question, doc_id in [
        ("Can Depakote raise the serum alanine aminotransferase?", "divalproex"),
        ("depakote er dose", "divalproex"),
        ("What is the generic name of Protonix?", "pantoprazole"),
        ("How do I load a patient with Dilantin?", "phenytoin"),
    ]:
        res = catalog.resolve(question)
        assert res is not None and (res.doc_id, res.how) == (doc_id, "exact"), question
    assert catalog.resolve("is spiriva safe") is None  # a device name is not a release form


def test_a_release_form_head_never_takes_another_documents_name() -> None:
    catalog = DocCatalog.from_payloads(
        [
            {"doc_id": "zeta", "doc_title": "Zeta"},
            {"doc_id": "zeta-xr", "doc_title": "Other", "aliases": ["Zeta XR"]},
        ]
    )
    plain, long = catalog.resolve("zeta dose"), catalog.resolve("zeta xr dose")
    assert plain is not None and plain.doc_id == "zeta"
    assert long is not None and long.doc_id == "zeta-xr"


def test_two_documents_named_is_ambiguous_not_a_guess() -> None:
    res = CATALOG.resolve("can I take aspirin with warfarin")
    assert res is not None and res.doc_id is None
    assert res.candidates == ("aspirin", "warfarin")
    shared = DocCatalog.from_payloads(
        [
            {"doc_id": "a", "doc_title": "Alpha", "aliases": ["Zeta"]},
            {"doc_id": "b", "doc_title": "Beta", "aliases": ["Zeta"]},
        ]
    )
    same = shared.resolve("zeta dose")
    assert same is not None and same.doc_id is None and set(same.candidates) == {"a", "b"}


def test_a_misspelt_second_name_makes_it_ambiguous() -> None:
    res = CATALOG.resolve("coumadn with aspirin")
    assert res is not None and res.doc_id is None
    assert res.candidates == ("warfarin", "aspirin")


def test_catalog_knows_sections_per_document() -> None:
    catalog = DocCatalog.from_payloads(
        [
            {"doc_id": "d", "doc_title": "Dee", "section_key": "s1", "chunk_kind": "prose"},
            {"doc_id": "d", "doc_title": "Dee", "section_key": "s2", "chunk_kind": "block"},
        ]
    )
    assert catalog.sections_of("d") == frozenset({"s1"})
    assert catalog.display_name("d") == "Dee"


def test_bare_name_detection() -> None:
    res = CATALOG.resolve("Tell me about Glucophage")
    assert res is not None and is_bare("Tell me about Glucophage", res.spans)
    res = CATALOG.resolve("glucophage for kids")
    assert res is not None and not is_bare("glucophage for kids", res.spans)
    assert not is_bare("what is it", ())


# --- policy --------------------------------------------------------------------------
#: Every policy number and its default: the seed's table (seed 000), but evidence_limit
#: (6, measured; the seed's 3 is in its own profile), plus sectio's own two.
POLICY_DEFAULTS = {
    "minimum_score": 0.12,
    "candidate_limit": 5,
    "evidence_limit": 6,
    "rerank_top_k": 6,
    "max_context_tokens": 6000,
    "indication_candidate_limit": 8,
    "indication_retrieval_limit": 40,
    "indication_evidence_per_drug": 2,
    "lookup_dense_minimum_score": 0.45,
    "patient_candidate_limit": 2,
    "safety_hits_per_section": 1,
    "safety_sections_per_candidate": 4,
    "section_page_size": 256,
    "rerank_timeout_s": 10.0,
}


def test_policy_defaults_and_profile_overrides() -> None:
    default = dataclasses.asdict(EvidencePolicy())
    assert default == POLICY_DEFAULTS  # all 14, and no other
    assert all(type(default[k]) is type(v) for k, v in POLICY_DEFAULTS.items())
    vi = dataclasses.asdict(EvidencePolicy.from_profile(load_profile("vi_drug_monograph")))
    assert vi == {**POLICY_DEFAULTS, "evidence_limit": 3}  # the seed's corpus, the seed's numbers
    en = EvidencePolicy.from_profile(load_profile("en_drug_label"))
    assert en.minimum_score == 0.25 and isinstance(en.indication_candidate_limit, int)
    assert EvidencePolicy.from_mapping({"no_such_key": 1.0}) == EvidencePolicy()
