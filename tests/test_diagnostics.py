"""Typed stage results: ``details`` is a :class:`Diagnostics` built from each stage's facts.

The serialised form keeps the keys a stage set (nothing more), it reads as a
mapping like the dictionary it replaced, the HTTP answers round-trip through
the declared response models, and every route declares one in OpenAPI.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from sectio import Sectio, Settings
from sectio.api import create_app
from sectio.contract.diagnostics import (
    Diagnostics,
    DocFacts,
    PackingReport,
    RerankStatus,
    Signals,
    Thresholds,
)
from sectio.contract.result import RetrievalResult, SearchResult
from sectio.retrieve.routes.base import Turn
from tests.helpers import write_jsonl
from tests.helpers.api import ACME, KEYS, label_rows


def test_only_the_keys_a_stage_set_are_serialised() -> None:
    facts = DocFacts(doc_id=None, how="none")
    assert facts.model_dump() == {"doc_id": None, "how": "none"}  # None set: kept as null
    facts.ingredients_not_in_collection = ["clarithromycin"]
    assert facts.model_dump()["ingredients_not_in_collection"] == ["clarithromycin"]
    assert "combined_with" not in facts.model_dump()  # never set: absent, not null
    d = Diagnostics(packing=PackingReport(tokens=3, budget=10, omitted=0))
    assert RetrievalResult(
        query="q",
        collection="c",
        tenant="t",
        decision="ABSTAIN",
        reason="r",
        route="x",
        details=d,
    ).model_dump(mode="json")["details"] == {"packing": {"tokens": 3, "budget": 10, "omitted": 0}}


def test_details_read_as_the_mapping_they_were() -> None:
    d = Diagnostics(rerank=RerankStatus(status="off", failed=False))
    assert d["rerank"] == {"status": "off", "failed": False} and d == {"rerank": d["rerank"]}
    assert "rerank" in d and "packing" not in d and d.get("packing", {}) == {}
    assert list(d.keys()) == ["rerank"] and len(d) == 1
    with pytest.raises(KeyError):
        d["packing"]
    assert d.rerank is not None and d.rerank.failed is False  # typed reads


def test_a_stage_writing_a_wrong_shape_fails_loudly() -> None:
    turn = Turn.__new__(Turn)
    turn.details = Diagnostics()
    with pytest.raises(ValidationError):
        turn.details.packing = {"tokens": "many"}  # type: ignore[assignment]
    with pytest.raises(ValidationError):
        Diagnostics.model_validate({"no_such_key": 1})  # every key is declared


def test_a_verdict_signals_only_what_its_rules_measured() -> None:
    s = Signals(route="section", document_named="exact")
    s.rule = "named_document"
    t = Thresholds(min_coverage=0.5)
    assert s.model_dump() == {
        "route": "section",
        "document_named": "exact",
        "rule": "named_document",
    }
    assert t.model_dump() == {"min_coverage": 0.5}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(home=tmp_path / "home", embedder="fake", api_keys=KEYS)
    corpus = write_jsonl(tmp_path / "labels.jsonl", label_rows("acme"))
    with Sectio(settings) as s:
        s.ingest(corpus, profile="en_drug_label")
    with TestClient(create_app(settings)) as c:
        yield c


def test_http_answers_round_trip_through_their_response_models(client: TestClient) -> None:
    auth = ACME
    asks = [
        {"query": "what are the contraindications of aspirin"},
        {"query": "aspirin", "turn_type": "overview"},
        {"query": "tell me about aspirin", "turn_type": "free_form"},
        {"query": "what is zoloft for"},
        {"query": "how much water is in the ocean"},
    ]
    for body in asks:
        data = client.post("/v1/retrieve", json=body, headers=auth).json()
        assert RetrievalResult.model_validate(data).model_dump(mode="json") == data, body
        assert data["details"], body
    found = client.post("/v1/lookup", json={"phrase": "headache"}, headers=auth).json()
    assert RetrievalResult.model_validate(found).model_dump(mode="json") == found
    hits = client.post("/v1/search", json={"query": "aspirin"}, headers=auth).json()
    assert SearchResult.model_validate(hits).model_dump(mode="json") == hits


def test_every_route_declares_its_response_in_openapi(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            ok = op["responses"]["200"]["content"]
            schema = (ok.get("application/json") or {}).get("schema")
            assert schema or "text/plain" in ok, (method, path)
            if schema is not None:
                assert schema.get("$ref"), (method, path, schema)
    schemas = spec["components"]["schemas"]
    details = schemas["Diagnostics"]["properties"]
    for key in ("doc_resolution", "section_resolution", "rerank", "packing", "answerability"):
        assert key in details, key
    assert "signals" in schemas["VerdictReport"]["properties"]
