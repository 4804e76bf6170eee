"""Facet assessment: separate searches per facet, real anchors, absence is insufficient."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sectio import Sectio, Settings
from sectio.errors import ConfigError
from sectio.retrieve.facets import FOUND, INSUFFICIENT, Assessment
from sectio.retrieve.pipeline import Router
from tests.helpers import chunk
from tests.helpers.route_corpora import en_rows, vi_rows, write

IX = "drug_interactions"


@pytest.fixture(scope="module")
def sx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sectio]:
    tmp = tmp_path_factory.mktemp("facets")
    rows = [
        *en_rows(),
        chunk(
            "warfarin",
            "pregnancy",
            0,
            "Warfarin can cause fetal harm.",
            doc_title="Warfarin",
            has_quarantined_content=True,
        ),
        chunk(
            "warfarin", "pregnancy", 1, "Part two of the pregnancy section.", doc_title="Warfarin"
        ),
        chunk("ibuprofen", "drug_interactions", 1, "Secret.", doc_title="Ibuprofen", tenant="other")
        | {"chunk_id": "other#ibu#x"},
        chunk(
            "warfarin",
            "warnings_and_cautions",
            0,
            "Monitor liver function; bleeding problems are the main risk.",
            doc_title="Warfarin",
        ),
    ]
    s = Sectio(Settings(home=tmp / "home", embedder="fake", traces=False))
    s.ingest(write(tmp, "f", rows), profile="en_drug_label", collection="f")
    s.ingest(write(tmp, "vi", vi_rows()), profile="vi_drug_monograph", collection="vi")
    yield s
    s.close()


def _facet(result: Assessment, doc_id: str, facet: str):  # type: ignore[no-untyped-def]
    cand = next(c for c in result.candidates if c.doc_id == doc_id)
    return next(f for f in cand.facets if f.facet == facet)


def test_interaction_needs_that_medicine_named_in_the_interaction_section(sx: Sectio) -> None:
    result = sx.assess(
        ["ibuprofen", "metformin"], {"interaction": ["warfarin"]}, collection="f", tenant="default"
    )
    ibu = _facet(result, "ibuprofen", "interaction")
    assert ibu.status == FOUND and ibu.matched_terms == ["warfarin"]
    assert {e.section_key for e in ibu.evidence} == {"drug_interactions"}
    met = _facet(result, "metformin", "interaction")
    assert met.status == INSUFFICIENT and met.evidence == []  # not "safe": no evidence


def test_a_generic_word_is_not_an_anchor(sx: Sectio) -> None:
    generic = sx.assess(
        ["metformin"], {"warnings": ["renal function"]}, collection="f", tenant="default"
    )
    assert _facet(generic, "metformin", "warnings").status == INSUFFICIENT
    real = sx.assess(
        ["metformin"], {"warnings": ["renal impairment"]}, collection="f", tenant="default"
    )
    finding = _facet(real, "metformin", "warnings")
    assert finding.status == FOUND
    # one hit per section, only the facet's own sections
    assert sorted(e.section_key for e in finding.evidence) == [
        "contraindications",
        "warnings_and_cautions",
    ]


@pytest.mark.parametrize(
    ("collection", "doc", "generic", "real"),
    [
        ("f", "warfarin", ["function"], "liver function"),
        ("f", "warfarin", ["problems", "risk"], "bleeding problems"),
        ("vi", "ibuprofen", ["suy"], "suy thận"),
    ],
)
def test_a_lone_generic_term_from_the_caller_is_no_anchor(
    sx: Sectio, collection: str, doc: str, generic: list[str], real: str
) -> None:
    # seed 000: a real clinical anchor, not overlap on generic words. Each generic
    # term occurs in the facet's section as a whole word; the profile's
    # [anchors] generic list keeps it from anchoring.
    alone = sx.assess([doc], {"warnings": generic}, collection=collection, tenant="default")
    finding = _facet(alone, doc, "warnings")
    assert finding.status == INSUFFICIENT and finding.evidence == []
    assert finding.ignored_terms == generic
    mixed = sx.assess(
        [doc], {"warnings": [*generic, real]}, collection=collection, tenant="default"
    )
    finding = _facet(mixed, doc, "warnings")
    assert finding.status == FOUND and finding.matched_terms == [real]
    assert finding.ignored_terms == generic


def test_facets_search_only_their_own_sections(sx: Sectio) -> None:
    # "renal impairment" is in metformin's warnings and contraindications, not its interactions.
    result = sx.assess(
        ["metformin"],
        {"interaction": ["renal impairment"], "dosage": ["2550 mg"]},
        collection="f",
        tenant="default",
    )
    assert _facet(result, "metformin", "interaction").status == INSUFFICIENT
    dosage = _facet(result, "metformin", "dosage")
    assert dosage.status == FOUND
    assert {e.section_key for e in dosage.evidence} == {"dosage_and_administration"}


def test_direct_facet_is_the_whole_section_and_goes_through_decide(sx: Sectio) -> None:
    result = sx.assess(
        ["warfarin", "metformin"], {"pregnancy": True}, collection="f", tenant="default"
    )
    war = _facet(result, "warfarin", "pregnancy")
    assert war.status == FOUND and [e.part_index for e in war.evidence] == [0, 1]
    cand = next(c for c in result.candidates if c.doc_id == "warfarin")
    assert (cand.decision, cand.reason) == ("VERIFY_SOURCE", "visual_verification_required")
    met = next(c for c in result.candidates if c.doc_id == "metformin")
    assert met.facets[0].status == INSUFFICIENT
    assert (met.decision, met.reason) == ("ABSTAIN", "no_evidence")


def test_candidates_are_capped_and_never_created(sx: Sectio) -> None:
    result = sx.assess(
        ["metformin", "ibuprofen", "warfarin"],
        {"interaction": ["warfarin"]},
        collection="f",
        tenant="default",
    )
    assert [c.doc_id for c in result.candidates] == ["metformin", "ibuprofen"]
    assert result.skipped_candidates == ["warfarin"]


@pytest.mark.parametrize(
    ("limit", "kept"),
    [
        (4, ["contraindications", "warnings_and_cautions", "dosage_and_administration", IX]),
        (3, ["contraindications", "warnings_and_cautions", "dosage_and_administration"]),
        (1, ["contraindications"]),
    ],
)
def test_sections_per_candidate_are_capped_in_facet_order(
    sx: Sectio, limit: int, kept: list[str]
) -> None:
    # Four sections of metformin hold an anchor: the cap keeps the first `limit`.
    context = {
        "warnings": ["renal impairment"],
        "dosage": ["2550 mg"],
        "interaction": ["carbonic anhydrase"],
    }
    base = sx.router("f")
    router = Router(
        base.collection,
        sx.embedder,
        policy=base.policy.with_overrides(safety_sections_per_candidate=limit),
    )
    cand = router.assess(["metformin"], context, tenant="default").candidates[0]
    assert [e.section_key for f in cand.facets for e in f.evidence] == kept
    emptied = [f.facet for f in cand.facets if f.status == INSUFFICIENT]
    assert emptied == [f for f, n in (("dosage", 3), ("interaction", 4)) if n > limit]
    assert all(f.matched_terms == [] for f in cand.facets if f.facet in emptied)


def test_unknown_facet_is_refused(sx: Sectio) -> None:
    with pytest.raises(ConfigError, match="unknown facet"):
        sx.assess(["metformin"], {"astrology": ["x"]}, collection="f", tenant="default")


def test_assessment_is_tenant_scoped(sx: Sectio) -> None:
    result = sx.assess(["ibuprofen"], {"interaction": ["secret"]}, collection="f", tenant="default")
    assert _facet(result, "ibuprofen", "interaction").status == INSUFFICIENT
    theirs = sx.assess(["ibuprofen"], {"interaction": ["secret"]}, collection="f", tenant="other")
    assert _facet(theirs, "ibuprofen", "interaction").status == FOUND
