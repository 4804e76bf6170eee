"""A search result's ``details`` is a typed :class:`SearchDetails`: the keys the search set.

Real Qdrant Edge on a temp folder, the fake embedder: each mode serialises the
keys it wrote (in the model's field order), the JSON round-trips through the
response model, a wrong shape fails at the writer, and the OpenAPI schema of
``/v1/search`` documents every key.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from sectio import Sectio, Settings
from sectio.api import create_app
from sectio.contract.diagnostics import FusionReliability, SearchDetails
from sectio.contract.result import SearchResult
from tests.helpers import write_jsonl
from tests.helpers.api import ACME, KEYS, label_rows

FIELDS = list(SearchDetails.model_fields)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = Settings(home=tmp_path / "home", embedder="fake", api_keys=KEYS)
    corpus = write_jsonl(tmp_path / "labels.jsonl", label_rows("acme"))
    with Sectio(settings) as s:
        s.ingest(corpus, profile="en_drug_label")
    return settings


@pytest.fixture
def sectio(settings: Settings) -> Iterator[Sectio]:
    with Sectio(settings) as s:
        yield s


def _in_field_order(keys: list[str]) -> bool:
    return keys == sorted(keys, key=FIELDS.index)


def test_each_mode_serialises_the_keys_it_set(sectio: Sectio) -> None:
    hybrid = sectio.search("aspirin bleeding", tenant="acme", top_k=3)
    dense = sectio.search("aspirin bleeding", tenant="acme", top_k=3, mode="dense")
    lexical = sectio.search("aspirin bleeding", tenant="acme", top_k=3, mode="lexical")
    assert isinstance(hybrid.details, SearchDetails)
    shown = hybrid.model_dump(mode="json")["details"]
    assert {"pool", "rrf_k", "fused", "weights", "lexical_trust", "lexical_only_hits"} <= set(shown)
    assert shown["fused"] == ["dense", "bm25"] and hybrid.details.fused == ["dense", "bm25"]
    assert isinstance(hybrid.details.fusion_calibration, FusionReliability)
    assert shown["fusion_calibration"]["pseudo_queries"] >= 0
    assert lexical.model_dump(mode="json")["details"] == {"lexical_vectors": ["bm25"]}
    assert dense.model_dump(mode="json")["details"] == {}  # a dense search fuses nothing
    for result in (hybrid, dense, lexical):
        data = result.model_dump(mode="json")
        assert _in_field_order(list(data["details"])), data["details"]
        assert SearchResult.model_validate(data).model_dump(mode="json") == data


def test_a_question_without_bm25_tokens_says_so(sectio: Sectio) -> None:
    """All stopwords: hybrid is the dense list, and ``lexical_vectors`` is empty."""
    result = sectio.search("the of and", tenant="acme", top_k=3)
    assert result.details.lexical_vectors == [] and result.details.pool is None
    assert "pool" not in result.details and result.details["lexical_vectors"] == []


def test_details_read_as_a_mapping_and_reject_a_wrong_shape(sectio: Sectio) -> None:
    details = sectio.search("aspirin", tenant="acme", top_k=2).details
    assert details["pool"] == details.pool and details.get("layers") is None
    assert dict(details.items())["rrf_k"] == details.rrf_k
    with pytest.raises(ValidationError):
        details.pool = "wide"  # type: ignore[assignment]
    with pytest.raises(ValidationError):
        SearchDetails.model_validate({"no_such_key": 1})  # every key is declared


def test_openapi_documents_every_details_key(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        spec = client.get("/openapi.json").json()
        hits = client.post("/v1/search", json={"query": "aspirin"}, headers=ACME).json()
    schemas = spec["components"]["schemas"]
    ref = schemas["SearchResult"]["properties"]["details"]["$ref"]
    assert ref.endswith("/SearchDetails")
    documented = schemas["SearchDetails"]["properties"]
    assert list(documented) == FIELDS
    assert set(hits["details"]) <= set(documented) and hits["details"]["fused"]
    assert set(schemas["FusionReliability"]["properties"]) == set(FusionReliability.model_fields)
