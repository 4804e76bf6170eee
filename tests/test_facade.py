"""What the front doors need from ``Sectio``: serving checks, counters, the store's upkeep."""

from __future__ import annotations

from pathlib import Path

import pytest

from sectio import Sectio, Settings
from sectio.errors import CollectionNotFound, ManifestMismatch
from tests.helpers import write_jsonl
from tests.helpers.api import label_rows


def test_stats_read_counters_without_building_anything(tmp_path: Path) -> None:
    s = Sectio(Settings(home=tmp_path / "home", embedder="fake"))
    assert s.stats() == {
        "tenant_drops": 0,
        "trace_writes": 0,
        "trace_write_failures": 0,
        "trace_writes_skipped": 0,
        "query_embeddings": {"computed": 0, "cached": 0},
    }
    assert s._ops is None and s._embedder is None and s._backend is None  # no I/O, no store
    assert not (tmp_path / "home").exists()
    s.close()


def test_serving_check_detail_counters_and_traces(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder="fake")
    corpus = write_jsonl(tmp_path / "l.jsonl", label_rows("acme") + label_rows("globex"))
    with Sectio(settings) as s:
        s.ingest(corpus, profile="en_drug_label")
        assert s.collection_names() == ["default"] and s.has_collection("default")
        checked = s.check_collection("default")
        assert (checked["name"], checked["count"]) == ("default", 8)
        assert checked["manifest"]["model_id"] == "fake-hash-bow"
        assert "profile" not in checked["manifest"]
        with pytest.raises(CollectionNotFound, match="'nope' does not exist"):
            s.check_collection("nope")
        detail = s.collection_detail("default", tenant="acme")
        assert (detail["count"], detail["tenant_count"]) == (8, 4)
        assert detail["manifest"] == checked["manifest"]
        result = s.search("aspirin", tenant="acme", record=True)
        s.search("aspirin", tenant="acme", record=True)
        stats = s.stats()
        assert (stats["trace_writes"], stats["trace_write_failures"]) == (2, 0)
        assert stats["query_embeddings"] == {"computed": 1, "cached": 1}
        assert result.trace_id is not None
        listed = s.traces(5, tenant="acme")
        assert len(listed) == 2 and result.trace_id in {t.trace_id for t in listed}
        assert s.traces(5, tenant="globex") == []
        assert s.trace(result.trace_id, tenant="globex") is None
        assert s.trace(result.trace_id, tenant="acme")["kind"] == "search"  # type: ignore[index]
        assert s.migrate().applied == []  # the default SQLite migrated itself on first use
        report = s.purge_older_than(0)
        assert report.traces == 2 and s.traces(5) == []
        assert s.apply_retention() is None  # no period set


def test_the_serving_gate_refuses_another_embedder(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder="fake")
    corpus = write_jsonl(tmp_path / "l.jsonl", label_rows("acme"))
    with Sectio(settings) as s:
        s.ingest(corpus, profile="en_drug_label")
        s.check_collection("default")
    other = Settings(home=tmp_path / "home", embedder="fake", fake_dimensions=64)
    with Sectio(other) as s, pytest.raises(ManifestMismatch, match="dimensions"):
        s.check_collection("default")


def test_library_defaults_single_tenant_and_writes_no_traces(tmp_path: Path) -> None:
    """No tenant argument reads the default tenant; nothing is traced unless asked."""
    corpus = write_jsonl(tmp_path / "l.jsonl", label_rows("default") + label_rows("acme"))
    home = tmp_path / "home"
    with Sectio(Settings(home=home, embedder="fake")) as s:
        s.ingest(corpus, profile="en_drug_label")
        hits = s.search("aspirin").hits
        answer = s.ask("what are the contraindications of aspirin")
        assert hits and {h.tenant for h in hits} == {"default"}
        assert answer.decision == "ANSWERABLE" and answer.tenant == "default"
        assert {e.tenant for e in answer.evidence} == {"default"}
        assert s.count() == 4 and s.count(tenant="acme") == 4
        assert hits[0].source_refs[0].source  # typed provenance, not a dict
        assert answer.trace_id is None and s.search("aspirin").trace_id is None
        assert s.stats()["trace_writes"] == 0
        assert s.search("aspirin", record=True).trace_id is not None  # asked: traced
    assert (home / "sectio.sqlite3").exists()
    with Sectio(Settings(home=tmp_path / "other", embedder="fake"), tenant="acme") as s:
        s.ingest(corpus, profile="en_drug_label")
        assert {h.tenant for h in s.search("aspirin").hits} == {"acme"}
        s.ask("aspirin contraindications")
    assert not (tmp_path / "other" / "sectio.sqlite3").exists()  # no store was ever opened
