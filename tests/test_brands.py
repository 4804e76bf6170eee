"""Brand names read as their ingredients' documents (the bundled FDA brand table)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sectio import Sectio, Settings
from sectio.contract.profile import load_profile
from sectio.errors import ProfileError
from sectio.retrieve.brands import BrandTable, ingredient_key
from sectio.retrieve.resolve_doc import DocCatalog
from sectio.retrieve.resolve_section import SectionResolver
from tests.helpers import chunk, write_jsonl

ROOT = Path(__file__).resolve().parents[1]
TABLE = BrandTable.bundled()
VOCABULARY = SectionResolver(load_profile("en_drug_label")).vocabulary()


def _build_tool() -> Any:
    spec = importlib.util.spec_from_file_location(
        "build_brand_table", ROOT / "tools" / "build_brand_table.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the table ---------------------------------------------------------------------------
def test_the_bundled_table_maps_brands_to_salt_free_ingredients() -> None:
    assert TABLE.ingredients(("paxil",)) == (("paroxetine",),)
    assert TABLE.ingredients(("macrobid",)) == (("nitrofurantoin",),)
    assert TABLE.ingredients(("bactrim",)) == (("sulfamethoxazole", "trimethoprim"),)
    assert TABLE.ingredients(("effexor", "xr")) == (("venlafaxine",),)
    assert TABLE.ingredients(("paroxetine",)) == ()  # a generic name is not a brand
    assert len(TABLE) > 4000
    assert (ROOT / "src/sectio/retrieve/data/brands.tsv.gz").stat().st_size < 1_000_000


def test_the_build_keeps_brands_and_leaves_generic_names_out() -> None:
    rows = [
        ("PAXIL", "PAROXETINE HYDROCHLORIDE"),
        ("PAROXETINE HYDROCHLORIDE", "PAROXETINE HYDROCHLORIDE"),
        ("HEPARIN LOCK FLUSH", "HEPARIN SODIUM"),
        ("EFFEXOR XR", "VENLAFAXINE HYDROCHLORIDE"),
        ("MACROBID", "NITROFURANTOIN; NITROFURANTOIN, MACROCRYSTALLINE"),
    ]
    assert _build_tool().build(rows) == [
        "effexor\tvenlafaxine",
        "effexor xr\tvenlafaxine",
        "macrobid\tnitrofurantoin",
        "paxil\tparoxetine",
    ]


def test_ingredient_keys_ignore_salts_and_order() -> None:
    assert ingredient_key("Trimethoprim and sulfamethoxazole") == ingredient_key(
        "SULFAMETHOXAZOLE; TRIMETHOPRIM"
    )
    assert ingredient_key("formoterol fumarate dihydrate") == ("formoterol",)
    assert ingredient_key("sodium sulfate") == ("sodium sulfate",)


# --- the resolver ------------------------------------------------------------------------
DOCS = [
    {"doc_id": "paroxetine", "doc_title": "Paroxetine", "aliases": ["Pexeva"]},
    {"doc_id": "ibuprofen", "doc_title": "Ibuprofen"},
    {
        "doc_id": "sulfamethoxazole-and-trimethoprim",
        "doc_title": "Sulfamethoxazole and trimethoprim",
    },
    {"doc_id": "nonoxynol-9", "doc_title": "Nonoxynol 9"},
]


def _catalog(**kwargs: Any) -> DocCatalog:
    return DocCatalog.from_payloads(DOCS, VOCABULARY, brand_table=TABLE, **kwargs)


def test_a_brand_no_alias_carries_resolves_to_its_ingredients_document() -> None:
    named = _catalog().resolve("can I take Paxil while pregnant")
    assert named is not None and (named.doc_id, named.how) == ("paroxetine", "brand")
    assert named.facts()["brand"] == {
        "via": "brand_table",
        "brand": "Paxil",
        "ingredients": ["paroxetine"],
        "read_as": "Paxil -> paroxetine",
    }
    # the document's own alias still wins as an exact name
    own = _catalog().resolve("Pexeva dose")
    assert own is not None and (own.doc_id, own.how, own.brand) == ("paroxetine", "exact", None)


def test_a_combination_brand_needs_every_ingredient() -> None:
    bactrim = _catalog().resolve("Bactrim DS side effects")
    assert bactrim is not None and bactrim.doc_id == "sulfamethoxazole-and-trimethoprim"
    # Advil PM is ibuprofen and diphenhydramine: no document holds both, and the
    # longer brand keeps "Advil" alone from answering for it
    assert _catalog().resolve("Advil PM dosage") is None
    advil = _catalog().resolve("Advil dosage")
    assert advil is not None and advil.doc_id == "ibuprofen"


def test_a_brand_whose_ingredient_is_not_held_names_nothing() -> None:
    assert _catalog().resolve("what is the maximum dose of Zoloft") is None
    # and it is a name, not a typo of another one
    assert TABLE.ingredients(("zoloft",)) == (("sertraline",),)


def test_two_brands_of_two_documents_are_ambiguous() -> None:
    named = _catalog().resolve("can I take Paxil with Advil")
    assert named is not None and named.doc_id is None
    assert set(named.candidates) == {"paroxetine", "ibuprofen"}


def test_the_usable_test_keeps_common_words_from_naming_documents() -> None:
    question = "what can I take today for a headache"
    hijacked = _catalog().resolve(question)
    assert hijacked is not None and hijacked.doc_id == "nonoxynol-9"  # "Today" is a brand
    guarded = _catalog(usable_brand=lambda brand: brand != ("today",)).resolve(question)
    assert guarded is None


def test_an_ingredient_of_the_table_is_a_name_not_a_typo() -> None:
    docs = [{"doc_id": "amoxicillin", "doc_title": "Amoxicillin"}]
    # two edits from "amoxicillin": without the table a typo, with it another medicine
    plain = DocCatalog.from_payloads(docs, VOCABULARY).resolve("rash after ampicillin")
    assert plain is not None and (plain.doc_id, plain.how) == ("amoxicillin", "fuzzy")
    table = DocCatalog.from_payloads(docs, VOCABULARY, brand_table=TABLE)
    assert table.resolve("rash after ampicillin") is None
    typo = table.resolve("rash after amoxicilin")  # a real slip still resolves
    assert typo is not None and (typo.doc_id, typo.how) == ("amoxicillin", "fuzzy")


# --- through ask (the bundled model decides what a common word is) ----------------------
TEXTS = [
    (
        "paroxetine",
        "dosage_and_administration",
        "The recommended initial dose of paroxetine is 20 mg per day.",
    ),
    (
        "paroxetine",
        "indications_and_usage",
        "Paroxetine is indicated for major depressive disorder.",
    ),
    (
        "ibuprofen",
        "dosage_and_administration",
        "Ibuprofen 400 mg every 4 to 6 hours as needed for pain.",
    ),
    ("ibuprofen", "indications_and_usage", "Ibuprofen relieves mild to moderate pain and fever."),
    ("nonoxynol-9", "indications_and_usage", "Nonoxynol 9 is a vaginal contraceptive."),
    (
        "amoxicillin",
        "indications_and_usage",
        "Amoxicillin, in combination with clarithromycin and lansoprazole, is indicated for"
        " H. pylori infection.",
    ),
    (
        "amoxicillin",
        "dosage_and_administration",
        "The usual adult dose of amoxicillin is 500 mg every 12 hours.",
    ),
]
TITLES = {
    "paroxetine": "Paroxetine",
    "ibuprofen": "Ibuprofen",
    "nonoxynol-9": "Nonoxynol 9",
    "amoxicillin": "Amoxicillin",
}


def _rows() -> list[dict[str, Any]]:
    rows = []
    for tenant, docs in (("acme", set(TITLES)), ("globex", {"ibuprofen"})):
        for doc, section, text in TEXTS:
            if doc in docs:
                row = chunk(doc, section, 0, text, tenant=tenant, doc_title=TITLES[doc])
                row["chunk_id"] = f"{tenant}:{row['chunk_id']}"
                rows.append(row)
    return rows


@pytest.fixture(scope="module")
def brands_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sectio]:
    tmp = tmp_path_factory.mktemp("brands")
    off = tmp / "no_brands.toml"
    text = (ROOT / "src/sectio/contract/profiles/en_drug_label.toml").read_text()
    off.write_text(text.replace("brand_table = true", "brand_table = false"))
    with Sectio(Settings(home=tmp / "home", embedder="minilm", traces=False)) as s:
        data = write_jsonl(tmp / "labels.jsonl", _rows())
        s.ingest(data, profile="en_drug_label", collection="labels")
        s.ingest(data, profile=off, collection="plain")
        yield s


@pytest.mark.slow
def test_ask_answers_a_brand_from_its_ingredients_label_and_says_so(brands_home: Sectio) -> None:
    result = brands_home.ask(
        "what is the maximum dose of Paxil", collection="labels", tenant="acme"
    )
    assert result.decision == "ANSWERABLE"
    assert {e.doc_id for e in result.evidence} == {"paroxetine"}
    assert result.evidence[0].section_key == "dosage_and_administration"
    resolution = result.details["doc_resolution"]
    assert resolution["how"] == "brand" and resolution["brand"]["read_as"] == "Paxil -> paroxetine"


@pytest.mark.slow
def test_the_brand_stays_in_its_tenant_and_off_corpus_brands_abstain(brands_home: Sectio) -> None:
    # globex holds no paroxetine label: Paxil names nothing there, and ask abstains
    result = brands_home.ask(
        "what is the maximum dose of Paxil", collection="labels", tenant="globex"
    )
    assert (result.decision, result.reason) == ("ABSTAIN", "subject_not_in_corpus")
    assert result.evidence == []
    assert result.details["doc_resolution"]["doc_id"] is None
    named = result.details["answerability"]["brands_not_in_collection"]
    assert named == [
        {"brand": "Paxil", "ingredients": ["paroxetine"], "read_as": "Paxil -> paroxetine"}
    ]
    zoloft = brands_home.ask(
        "what is the maximum dose of Zoloft", collection="labels", tenant="acme"
    )
    assert (zoloft.decision, zoloft.reason) == ("ABSTAIN", "subject_not_in_corpus")
    assert zoloft.details["answerability"]["brands_not_in_collection"][0]["ingredients"] == [
        "sertraline"
    ]


@pytest.mark.slow
def test_a_medicine_the_labels_only_mention_is_another_subject(brands_home: Sectio) -> None:
    # amoxicillin's label mentions clarithromycin; no label is about it
    other = brands_home.ask(
        "What are the side effects of clarithromycin?", collection="labels", tenant="acme"
    )
    assert (other.decision, other.reason) == ("ABSTAIN", "subject_not_in_corpus")
    assert other.details["answerability"]["uncovered"] == ["clarithromycin"]
    assert other.details["doc_resolution"]["ingredients_not_in_collection"] == ["clarithromycin"]
    # a brand combining the named document with what no label holds is another product
    combo = brands_home.ask(
        "Is Augmentin the same as amoxicillin?", collection="labels", tenant="acme"
    )
    assert (combo.decision, combo.reason) == ("ABSTAIN", "subject_not_in_corpus")
    assert combo.details["answerability"]["signals"]["rule"] == "combination_brand"
    assert combo.details["answerability"]["uncovered"] == ["augmentin"]
    own = brands_home.ask("amoxicillin dose for adults", collection="labels", tenant="acme")
    assert own.decision == "ANSWERABLE" and own.evidence[0].doc_id == "amoxicillin"


@pytest.mark.slow
def test_a_combination_named_by_its_ingredients_is_another_product(brands_home: Sectio) -> None:
    # Augmentin written as its ingredients, the acid as the table's salt: not amoxicillin's label
    combo = brands_home.ask(
        "What are the side effects of Amoxicillin and Clavulanic Acid?",
        collection="labels",
        tenant="acme",
    )
    assert (combo.decision, combo.reason) == ("ABSTAIN", "subject_not_in_corpus")
    assert combo.details["answerability"]["signals"]["rule"] == "combination_ingredients"
    assert combo.details["answerability"]["uncovered"] == ["clavulanate"]
    assert combo.evidence == []
    # two medicines that no product of the table combines: a question about both, not a product
    pair = brands_home.ask(
        "Can I take amoxicillin and clarithromycin together?", collection="labels", tenant="acme"
    )
    assert "combined_with" not in pair.details["doc_resolution"]
    assert pair.details["answerability"]["signals"].get("rule") != "combination_ingredients"


@pytest.mark.slow
def test_a_common_word_brand_does_not_hijack_the_question(brands_home: Sectio) -> None:
    # "Today" is a brand of nonoxynol 9 in the FDA table; here it is the adverb
    result = brands_home.ask("what can I take today for pain", collection="labels", tenant="acme")
    resolution = result.details["doc_resolution"]
    assert (resolution["doc_id"], resolution["how"]) == (None, "none")


@pytest.mark.slow
def test_the_profile_switch_turns_the_table_off(brands_home: Sectio) -> None:
    result = brands_home.ask("what is the maximum dose of Paxil", collection="plain", tenant="acme")
    assert result.details["doc_resolution"]["doc_id"] is None
    assert "brands_not_in_collection" not in result.details["doc_resolution"]


def test_a_malformed_table_line_is_a_profile_error() -> None:
    with pytest.raises(ProfileError, match="brand table line 2"):
        BrandTable.parse(["paxil\tparoxetine", "no tab here"])
