"""Every search writes a trace; a dead, hung, locked or unmigrated store never breaks retrieval.

Retrieval is the real ``Sectio.search`` (fake embedder, real Qdrant Edge on
tmp_path). Each broken store must cost at most its bounded timeout; the trace
id is then None, and the failure is logged and counted.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from sectio import Sectio, Settings
from sectio.index.edge.readonly import copy_tree
from sectio.ops import OpsStore, TraceNotFound
from sectio.testing import closed_port, silent_server, throwaway_database
from tests.helpers import chunk, write_jsonl

CONNECT_BOUND_S = 2.0  # the default connect timeout; libpq's floor is 2 s


def make_sectio(home: Path, corpus: None, **settings: Any) -> Sectio:
    """A Sectio over ``home`` (which already holds the ingested corpus), writing traces."""
    del corpus
    return Sectio(Settings(home=home, embedder="fake", **settings), write_traces=True)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ingested collection per module; each test gets its own copy (ingest is slow)."""
    root = tmp_path_factory.mktemp("ops-seed")
    corpus = write_jsonl(
        root / "corpus.jsonl",
        [
            chunk("aspirin", "warnings", 0, "Aspirin may cause stomach bleeding."),
            chunk("aspirin", "indications", 0, "Aspirin relieves pain and reduces fever."),
            chunk("metformin", "indications", 0, "Metformin treats type 2 diabetes."),
        ],
    )
    with Sectio(Settings(home=root / "home", embedder="fake", traces=False)) as s:
        s.ingest(corpus)
    return root / "home"


@pytest.fixture
def home(tmp_path: Path, seeded: Path) -> Path:
    copy_tree(seeded, tmp_path / "home")
    return tmp_path / "home"


@pytest.fixture
def small_corpus() -> None:
    """Shadows the shared fixture: the corpus is already in ``home``."""


def timed_search(s: Sectio) -> tuple[float, Any]:
    t0 = time.monotonic()
    result = s.search("stomach bleeding", tenant="default", top_k=2)
    return time.monotonic() - t0, result


def test_search_writes_a_trace_in_the_default_sqlite(home: Path, small_corpus: None) -> None:
    s = make_sectio(home, small_corpus)
    result = s.search("stomach bleeding", tenant="default", top_k=2)
    assert result.hits and result.trace_id is not None
    assert (home / "sectio.sqlite3").is_file()  # auto-migrated, under SECTIO_HOME
    row = s.ops.store.get_trace(result.trace_id, tenant="default")
    assert row is not None and row["kind"] == "search" and row["query_text"] == "stomach bleeding"
    assert [c["chunk_id"] for c in row["citations"]] == [h.chunk_id for h in result.hits]
    assert s.ops.store.stats() == {
        "trace_writes": 1,
        "trace_write_failures": 0,
        "trace_writes_skipped": 0,
    }
    again = s.search("stomach bleeding", tenant="default", top_k=2)
    assert again.trace_id not in (None, result.trace_id)
    s.close()


def test_record_sets_and_returns_the_trace_id_with_conversation_turns(
    home: Path, small_corpus: None
) -> None:
    s = make_sectio(home, small_corpus)
    result = s.search("metformin", tenant="default", top_k=1)
    trace_id = s.ops.record("ask", result, conversation_id="conv-1", correlation_id="r-9")
    assert trace_id is not None and result.trace_id == trace_id
    turns = s.ops.store.conversation("conv-1", tenant="default")
    assert [t.role for t in turns] == ["user", "assistant"]
    assert all(t.trace_id == trace_id for t in turns)
    assert s.ops.feedback(trace_id, "helpful", tenant="default").rating == "helpful"
    with pytest.raises(TraceNotFound):
        s.ops.feedback(trace_id, "helpful", tenant="someone-else")
    s.close()


def test_traces_can_be_turned_off(home: Path, small_corpus: None) -> None:
    s = make_sectio(home, small_corpus, traces=False)
    assert s.search("aspirin", tenant="default").trace_id is None
    assert not (home / "sectio.sqlite3").exists()
    s.close()


def test_closed_port_fails_open(
    home: Path, small_corpus: None, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"postgresql+psycopg://postgres@127.0.0.1:{closed_port()}/sectio"
    s = make_sectio(home, small_corpus, database_url=url)
    with caplog.at_level(logging.WARNING, logger="sectio.ops"):
        elapsed, result = timed_search(s)
    assert result.hits and result.trace_id is None
    assert elapsed < CONNECT_BOUND_S + 1.5
    assert s.ops.store.trace_write_failures == 1
    assert any("trace not written" in r.getMessage() for r in caplog.records)
    # while marked down, later requests skip the store at once (and are still counted)
    elapsed, result = timed_search(s)
    assert result.trace_id is None and elapsed < 1.0
    assert s.ops.store.stats() == {
        "trace_writes": 0,
        "trace_write_failures": 2,
        "trace_writes_skipped": 1,
    }
    s.close()


def test_a_server_that_never_answers_fails_open_within_the_connect_timeout(
    home: Path, small_corpus: None
) -> None:
    with silent_server() as port:
        url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/sectio"
        s = make_sectio(home, small_corpus, database_url=url, db_retry_after_s=0)
        elapsed, result = timed_search(s)
        assert result.hits and result.trace_id is None
        assert elapsed < CONNECT_BOUND_S + 1.5
        assert s.ops.store.trace_write_failures == 1 and s.ops.store.trace_writes_skipped == 0
        s.close()


def test_unreadable_url_fails_open(home: Path, small_corpus: None) -> None:
    s = make_sectio(home, small_corpus, database_url="mysql://nobody@127.0.0.1/x")
    result = s.search("aspirin", tenant="default")
    assert result.hits and result.trace_id is None
    s.close()


def test_explicit_sqlite_url_is_not_migrated_silently(
    home: Path, small_corpus: None, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'prod.sqlite3'}"
    s = make_sectio(home, small_corpus, database_url=url)
    assert s.search("aspirin", tenant="default").trace_id is None
    assert s.ops.store.trace_write_failures == 1
    s.close()
    s = make_sectio(home, small_corpus, database_url=url, auto_migrate=True)
    assert s.search("aspirin", tenant="default").trace_id is not None
    s.close()


def test_a_locked_sqlite_store_fails_open_after_its_busy_timeout(
    home: Path, small_corpus: None
) -> None:
    s = make_sectio(home, small_corpus, db_statement_timeout_s=0.3)
    assert s.search("aspirin", tenant="default").trace_id is not None
    holder = sqlite3.connect(home / "sectio.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    try:
        elapsed, result = timed_search(s)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.hits and result.trace_id is None
    assert elapsed < 2.0
    assert s.ops.store.trace_write_failures == 1
    s.close()


@pytest.fixture
def pg_url() -> Iterator[str]:
    with throwaway_database() as url:
        yield url


@pytest.mark.postgres
def test_unmigrated_postgres_fails_open_and_is_never_migrated_silently(
    home: Path, small_corpus: None, pg_url: str
) -> None:
    s = make_sectio(home, small_corpus, database_url=pg_url)
    result = s.search("aspirin", tenant="default")
    assert result.hits and result.trace_id is None
    assert s.ops.store.trace_write_failures == 1
    assert s.ops.store.revision() is None  # nothing created behind the operator's back
    s.ops.store.migrate()
    s.ops.store.retry_after_s = 0
    s.ops.store._down_until = 0  # as if the retry delay had passed
    assert s.search("aspirin", tenant="default").trace_id is not None
    s.close()


@pytest.mark.postgres
def test_a_locked_postgres_table_fails_open_after_the_statement_timeout(
    home: Path, small_corpus: None, pg_url: str
) -> None:
    OpsStore(pg_url).migrate()
    s = make_sectio(home, small_corpus, database_url=pg_url, db_statement_timeout_s=0.5)
    assert s.search("aspirin", tenant="default").trace_id is not None
    locker = sa.create_engine(pg_url, poolclass=sa.NullPool)
    with locker.connect() as conn:
        tx = conn.begin()
        conn.exec_driver_sql("LOCK TABLE retrieval_trace IN ACCESS EXCLUSIVE MODE")
        try:
            elapsed, result = timed_search(s)
        finally:
            tx.rollback()
    locker.dispose()
    assert result.hits and result.trace_id is None
    assert elapsed < 2.0
    assert s.ops.store.trace_write_failures == 1
    s.close()
