"""A one-document tenant with a hand-written profile: the document is implied (issue 33).

The corpus is real: the metformin label of ``shared/data/drug_labels_sample``
(openFDA text, six sections), loaded with the shipped ``en_drug_label``
profile, real Qdrant Edge and the bundled MiniLM model (what is a common word and
what a name is read from its vocabulary).
A question that names a section and no document gets that section of the
only document; one that names what the tenant does not hold (another
medicine's brand, a name its texts never contain) does not; a tenant with two
documents implies none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sectio import Sectio, Settings
from tests.helpers import write_jsonl

LABELS = (
    Path(__file__).resolve().parents[1].parent / "shared/data/drug_labels_sample/drug_labels.json"
)


def _records(drugs: tuple[str, ...], tenant: str) -> list[dict[str, Any]]:
    rows = []
    for item in json.loads(LABELS.read_text(encoding="utf-8")):
        if item["drug"] not in drugs:
            continue
        key = re.sub(r"\W+", "_", item["section"].lower()).strip("_")
        key = {"warnings_and_precautions": "warnings_and_cautions"}.get(key, key)
        rows.append(
            {
                "chunk_id": f"{tenant}:{item['drug']}:{key}:0",
                "doc_id": item["drug"],
                "doc_title": item["drug"].capitalize(),
                "section_key": key,
                "section_title": item["section"],
                "part_index": 0,
                "text": item["text"],
                "tenant": tenant,
            }
        )
    return rows


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sectio]:
    if not LABELS.exists():
        pytest.skip("shared/data/drug_labels_sample is not on this machine")
    tmp = tmp_path_factory.mktemp("implied")
    rows = _records(("metformin",), "solo") + _records(("metformin", "lisinopril"), "pair")
    with Sectio(Settings(home=tmp / "home", embedder="minilm", traces=False)) as sx:
        sx.ingest(write_jsonl(tmp / "labels.jsonl", rows), profile="en_drug_label", collection="l")
        yield sx


@pytest.mark.slow
def test_the_only_document_is_implied_for_a_named_section(labels: Sectio) -> None:
    result = labels.ask("what are the contraindications?", collection="l", tenant="solo")
    assert result.route == "section"
    assert (result.resolved_doc_id, result.resolved_section_key) == (
        "metformin",
        "contraindications",
    )
    assert result.details["doc_resolution"]["how"] == "implied"
    assert result.details["section_resolution"]["via"] == "profile_phrase"
    assert {(e.doc_id, e.section_key) for e in result.evidence} == {
        ("metformin", "contraindications")
    }


@pytest.mark.slow
def test_two_documents_imply_none(labels: Sectio) -> None:
    result = labels.ask("what are the contraindications?", collection="l", tenant="pair")
    assert result.route != "section" or result.resolved_doc_id is None
    assert result.details["doc_resolution"]["how"] != "implied"


@pytest.mark.slow
def test_a_question_about_what_the_tenant_lacks_is_not_implied(labels: Sectio) -> None:
    # another medicine's brand (the bundled brand table reads Zoloft as sertraline)
    zoloft = labels.ask("what is the maximum dose of Zoloft", collection="l", tenant="solo")
    assert zoloft.resolved_doc_id is None and zoloft.decision == "ABSTAIN"
    # a name the tenant's texts never contain
    other = labels.ask("Qwertazine contraindications", collection="l", tenant="solo")
    assert other.details["doc_resolution"]["how"] != "implied"
    assert other.route != "section"


@pytest.mark.slow
def test_no_section_named_no_document_implied(labels: Sectio) -> None:
    result = labels.ask("who makes it?", collection="l", tenant="solo")
    assert result.details["doc_resolution"]["how"] != "implied"
    # a profile phrase is a named section ("is it safe" routes to the warnings)
    safe = labels.ask("is it safe?", collection="l", tenant="solo")
    assert (safe.resolved_doc_id, safe.resolved_section_key) == (
        "metformin",
        "warnings_and_cautions",
    )
