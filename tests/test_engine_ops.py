"""``Sectio.ops``: the operational store's half of the facade is an attribute, not a mixin.

Real SQLite under a temp ``SECTIO_HOME``: the store opens on first use, an
injected store is the one used, and a store that cannot be opened leaves the
previous-subject read fail-open.
"""

from __future__ import annotations

import json
from pathlib import Path

from sectio import Sectio, Settings
from sectio.engine_ops import Operations
from sectio.ops import OpsStore

ROW = {
    "chunk_id": "aspirin#warnings#0",
    "doc_id": "aspirin",
    "section_key": "warnings",
    "part_index": 0,
    "text": "Aspirin may cause bleeding.",
}


def test_the_facade_holds_ops_and_carries_no_store_methods(tmp_path: Path) -> None:
    with Sectio(Settings(home=tmp_path / "home", embedder="fake")) as s:
        assert isinstance(s.ops, Operations)
        for name in ("feedback", "migrate", "traces", "record", "purge_older_than"):
            assert not hasattr(s, name), name
        assert s.ops._store is None  # nothing opened yet: counters read without I/O
        assert s.stats()["trace_writes"] == 0
        report = s.ops.migrate()
        assert s.ops._store is not None and report.to_revision is not None


def test_a_recorded_search_is_read_back_and_rated_through_ops(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    with Sectio(Settings(home=tmp_path / "home", embedder="fake"), write_traces=True) as s:
        s.ingest(corpus)
        s.ops.migrate()
        result = s.search("bleeding")
        assert result.trace_id is not None
        assert [t.trace_id for t in s.ops.traces(5)] == [result.trace_id]
        assert s.ops.feedback(result.trace_id, "helpful").rating == "helpful"
        assert s.ops.trace(result.trace_id, tenant="default")["kind"] == "search"  # type: ignore[index]
        assert s.stats()["trace_writes"] == 1


def test_an_injected_store_is_the_one_used(tmp_path: Path) -> None:
    store = OpsStore(f"sqlite:///{tmp_path / 'own.sqlite3'}")
    store.migrate()
    with Sectio(Settings(home=tmp_path / "home", embedder="fake"), ops=store) as s:
        assert s.ops.store is store
        assert s.ops.traces() == []


def test_a_store_that_cannot_open_leaves_the_previous_subject_unavailable(
    tmp_path: Path,
) -> None:
    settings = Settings(
        home=tmp_path / "home", embedder="fake", database_url="mysql://nobody@127.0.0.1/x"
    )
    with Sectio(settings) as s:
        subject = s.ops.previous_subject("conv-1", "default")
        assert subject.status == "unavailable" and subject.doc_id is None
