"""The operational store, run against SQLite and against the real PostgreSQL.

Every test takes ``url`` (an empty, migrated database of the parametrized
dialect) or ``empty_url`` (a database never migrated). PostgreSQL runs use a
throwaway database created for this module and dropped after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from sectio.contract.result import Evidence, RetrievalResult, SearchResult
from sectio.ops import (
    InvalidInput,
    OpsStore,
    PurgeReport,
    StoreNotMigrated,
    TraceNotFound,
    apply_retention,
    head_revision,
    retention_loop,
)
from sectio.ops.migrate import HEAD_REVISION, VERSION_TABLE, recorded_revision
from sectio.ops.records import TraceEntry
from sectio.ops.schema import metadata
from sectio.testing import FakeClock, throwaway_database

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
TABLES = ("retrieval_trace", "conversation_turn", "answer_feedback")


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    """One migrated throwaway PostgreSQL database for this module."""
    with throwaway_database() as url:
        store = OpsStore(url)
        store.migrate()
        store.close()
        yield url


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A migrated, empty database."""
    if backend == "sqlite":
        u = f"sqlite:///{tmp_path / 'ops.sqlite3'}"
        OpsStore(u).migrate()
        return u
    u = str(request.getfixturevalue("pg_url"))
    engine = sa.create_engine(u, poolclass=sa.NullPool)
    with engine.begin() as conn:
        conn.exec_driver_sql(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE")
    engine.dispose()
    return u


@pytest.fixture
def empty_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A database nothing has touched."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.sqlite3'}"
        return
    with throwaway_database() as u:
        yield u


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(url: str, clock: FakeClock) -> Iterator[OpsStore]:
    s = OpsStore(url, clock=clock)
    yield s
    s.close()


def ev(doc: str, section: str, part: int, score: float = 0.5, rank: int = 1) -> Evidence:
    return Evidence(
        chunk_id=f"{doc}#{section}#{part}",
        doc_id=doc,
        section_key=section,
        part_index=part,
        text=f"text of {doc} {section} {part}",
        score=score,
        rank=rank,
    )


def answer(query: str = "aspirin warnings", tenant: str = "acme", **kw: Any) -> RetrievalResult:
    data: dict[str, Any] = {
        "query": query,
        "collection": "labels",
        "tenant": tenant,
        "decision": "ANSWERABLE",
        "reason": "section found",
        "route": "section",
        "resolved_doc_id": "aspirin",
        "resolved_section_key": "warnings",
        "evidence": [ev("aspirin", "warnings", 0), ev("aspirin", "warnings", 1, rank=2)],
        "omitted_evidence_ids": ["aspirin#warnings#9"],
        "details": {"query_intent": "section_lookup", "subject_scope": "doc:aspirin"},
        "timings_ms": {"engine": 1.5},
    }
    data.update(kw)
    return RetrievalResult(**data)


def hits(query: str = "stomach bleeding", tenant: str = "acme") -> SearchResult:
    return SearchResult(
        query=query,
        mode="dense",
        collection="labels",
        tenant=tenant,
        top_k_requested=2,
        top_k=2,
        clamped=False,
        hits=[ev("aspirin", "warnings", 0, 0.9, 1), ev("metformin", "warnings", 0, 0.4, 2)],
        timings_ms={"embed": 0.2, "engine": 0.3},
    )


def count(url: str, table: str) -> int:
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    with engine.connect() as conn:
        n = conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()
    engine.dispose()
    return int(n)


# --- migrations ---------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_migrate_from_empty_then_rerun_is_a_noop(empty_url: str) -> None:
    store = OpsStore(empty_url)
    with pytest.raises(StoreNotMigrated, match="sectio migrate"):
        store.list_traces()
    first = store.migrate()
    assert first.from_revision is None
    assert first.to_revision == head_revision()
    assert first.applied == [head_revision()]
    again = store.migrate()
    assert again.from_revision == again.to_revision == head_revision()
    assert again.applied == []
    assert store.revision() == head_revision()
    assert store.list_traces() == []
    store.close()


def test_the_named_head_is_alembics_head(url: str) -> None:
    # The schema check at head reads HEAD_REVISION instead of importing Alembic:
    # a new migration script must update it, or migrated databases would not upgrade.
    assert head_revision() == HEAD_REVISION
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    with engine.connect() as conn:
        assert recorded_revision(conn) == HEAD_REVISION  # the plain read agrees with Alembic
        conn.execute(sa.text(f"UPDATE {VERSION_TABLE} SET version_num = 'older'"))
        assert recorded_revision(conn) == "older"
        conn.rollback()
    engine.dispose()


def test_schema_columns_keys_cascade_indexes(url: str, backend: str) -> None:
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    insp = sa.inspect(engine)
    assert set(TABLES) | {VERSION_TABLE} <= set(insp.get_table_names())
    required = {
        "retrieval_trace": {
            "trace_id", "query_text", "tenant", "subject_scope", "query_intent", "route",
            "decision", "reason", "resolved_doc_id", "resolved_section_key", "citations",
            "omitted_evidence_ids", "timings", "correlation_id", "otel_trace_id", "created_at",
        },
        "conversation_turn": {
            "id", "conversation_id", "tenant", "role", "line", "trace_id", "created_at"
        },
        "answer_feedback": {
            "feedback_id", "trace_id", "conversation_id", "tenant", "rating", "comment",
            "created_at", "updated_at",
        },
    }  # fmt: skip
    for table, cols in required.items():
        assert cols <= {c["name"] for c in insp.get_columns(table)}, table
    assert insp.get_pk_constraint("retrieval_trace")["constrained_columns"] == ["trace_id"]
    assert insp.get_pk_constraint("answer_feedback")["constrained_columns"] == ["feedback_id"]
    assert insp.get_pk_constraint("conversation_turn")["constrained_columns"] == ["id"]
    [fk] = insp.get_foreign_keys("answer_feedback")
    assert fk["referred_table"] == "retrieval_trace"
    assert fk["constrained_columns"] == ["trace_id"]
    assert fk["options"].get("ondelete", "").upper() == "CASCADE"
    uniques = insp.get_unique_constraints("answer_feedback")
    assert any(u["column_names"] == ["trace_id"] for u in uniques)
    checks = {c["name"] for c in insp.get_check_constraints("answer_feedback")}
    assert {"ck_answer_feedback_rating", "ck_answer_feedback_comment_length"} <= checks
    nullable = {c["name"]: c["nullable"] for c in insp.get_columns("conversation_turn")}
    assert nullable["trace_id"] is True

    indexes = {
        t: {i["name"]: i for i in insp.get_indexes(t)}
        for t in ("retrieval_trace", "conversation_turn", "answer_feedback")
    }
    trace_ix = indexes["retrieval_trace"]
    assert trace_ix["ix_retrieval_trace_created_at"]["column_names"] == ["created_at"]
    assert trace_ix["ix_retrieval_trace_correlation_id"]["column_names"] == ["correlation_id"]
    assert trace_ix["ix_retrieval_trace_otel_trace_id"]["column_names"] == ["otel_trace_id"]
    turn_ix = indexes["conversation_turn"]["ix_conversation_turn_conversation_id_id"]
    assert turn_ix["column_names"] == ["conversation_id", "id"]
    fb_ix = indexes["answer_feedback"]["ix_answer_feedback_created_at"]
    assert fb_ix["column_names"] == ["created_at"]
    if backend == "postgres":
        assert trace_ix["ix_retrieval_trace_created_at"]["column_sorting"] == {
            "created_at": ("desc",)
        }
        assert fb_ix["column_sorting"] == {"created_at": ("desc",)}
        for name in ("correlation_id", "otel_trace_id"):
            where = trace_ix[f"ix_retrieval_trace_{name}"]["dialect_options"]["postgresql_where"]
            assert "IS NOT NULL" in str(where)
        types = {c["name"]: type(c["type"]).__name__ for c in insp.get_columns("retrieval_trace")}
        assert types["trace_id"] == "UUID"
        assert types["citations"] == types["timings"] == "JSONB"
    else:
        with engine.connect() as conn:
            sql = conn.exec_driver_sql(
                "SELECT sql FROM sqlite_master WHERE name = 'ix_retrieval_trace_correlation_id'"
            ).scalar_one()
            assert "WHERE correlation_id IS NOT NULL" in sql
    engine.dispose()


def test_migrations_match_the_live_schema(url: str) -> None:
    """The Core tables the store queries are exactly what the migrations built."""
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    with engine.connect() as conn:
        ctx = MigrationContext.configure(
            conn, opts={"compare_type": True, "version_table": VERSION_TABLE}
        )
        diff = compare_metadata(ctx, metadata)
    engine.dispose()
    assert diff == []


def test_unmigrated_database_refuses_unless_auto_migrate(empty_url: str) -> None:
    with pytest.raises(StoreNotMigrated, match="run `sectio migrate`"):
        OpsStore(empty_url).record_trace("ask", answer())
    auto = OpsStore(empty_url, auto_migrate=True)
    assert auto.record_trace("ask", answer())
    assert auto.revision() == head_revision()
    auto.close()


# --- traces -------------------------------------------------------------------------------
def test_trace_of_a_retrieval_result_keeps_what_the_service_resolved(
    store: OpsStore, clock: FakeClock
) -> None:
    result = answer()
    trace_id = store.record_trace(
        "ask", result, correlation_id="req-1", otel_trace_id="0AF7651916CD43DD8448EB211C80319C"
    )
    assert str(uuid.UUID(trace_id)) == trace_id
    assert result.trace_id is None  # the store does not change the result; Sectio.record does
    row = store.get_trace(trace_id)
    assert row is not None
    assert row["tenant"] == "acme" and row["kind"] == "ask"
    assert row["query_text"] == "aspirin warnings"
    assert row["query_intent"] == "section_lookup" and row["subject_scope"] == "doc:aspirin"
    assert (row["route"], row["decision"], row["reason"]) == (
        "section", "ANSWERABLE", "section found",
    )  # fmt: skip
    assert (row["resolved_doc_id"], row["resolved_section_key"]) == ("aspirin", "warnings")
    assert [c["chunk_id"] for c in row["citations"]] == [
        "aspirin#warnings#0",
        "aspirin#warnings#1",
    ]
    assert "text" not in row["citations"][0]
    assert row["omitted_evidence_ids"] == ["aspirin#warnings#9"]
    assert row["timings"] == {"engine": 1.5}
    assert row["correlation_id"] == "req-1"
    assert row["otel_trace_id"] == "0af7651916cd43dd8448eb211c80319c"
    assert row["created_at"] == clock.now
    assert store.get_trace(trace_id, tenant="other") is None


def test_trace_of_a_search_result(store: OpsStore) -> None:
    trace_id = store.record_trace("search", hits(), otel_trace_id="not-a-trace-id")
    row = store.get_trace(trace_id)
    assert row is not None
    assert row["route"] == "search:dense" and row["decision"] is None
    assert [c["doc_id"] for c in row["citations"]] == ["aspirin", "metformin"]
    assert row["omitted_evidence_ids"] == []
    assert row["otel_trace_id"] is None  # header noise is dropped, the trace is kept


def test_traces_of_concurrent_requests_go_in_one_transaction(store: OpsStore, url: str) -> None:
    entries = [TraceEntry("search", hits(query=f"q{i}"), correlation_id=f"r{i}") for i in range(3)]
    entries.append(TraceEntry("ask", answer(query="in c1"), conversation_id="c1"))
    ids = store.record_traces(entries)
    assert len(set(ids)) == 4
    rows = [store.get_trace(t) for t in ids]
    assert [r["correlation_id"] if r else None for r in rows] == ["r0", "r1", "r2", None]
    assert [t.trace_id for t in store.conversation("c1", tenant="acme")] == [ids[3], ids[3]]
    # all or none: a bad entry refuses the batch, and nothing of it is written
    before = count(url, "retrieval_trace")
    with pytest.raises(InvalidInput):
        store.record_traces([TraceEntry("search", hits()), TraceEntry("Bad!", hits())])
    assert count(url, "retrieval_trace") == before
    # fail-open: the good entries of such a batch are still written, one at a time
    got = store.try_record_traces([TraceEntry("search", hits()), TraceEntry("Bad!", hits())])
    assert got[0] is not None and got[1] is None and store.get_trace(got[0]) is not None
    assert count(url, "retrieval_trace") == before + 1
    assert store.stats()["trace_write_failures"] == 1


def test_intent_defaults_to_the_route(store: OpsStore) -> None:
    trace_id = store.record_trace("lookup", answer(route="lookup", details={}))
    row = store.get_trace(trace_id)
    assert row is not None and row["query_intent"] == "lookup"
    assert row["subject_scope"] == "aspirin"


def test_bad_inputs_are_refused(store: OpsStore) -> None:
    with pytest.raises(InvalidInput):
        store.record_trace("Ask!", answer())
    with pytest.raises(InvalidInput):
        store.record_trace("ask", answer(), conversation_id="x" * 129)
    with pytest.raises(InvalidInput):
        store.record_trace("ask", answer(tenant="t" * 129))


def test_list_traces_newest_first_with_rating(store: OpsStore, clock: FakeClock) -> None:
    ids = []
    for i in range(3):
        ids.append(store.record_trace("ask", answer(query=f"q{i}", tenant="acme")))
        clock.advance(seconds=1)
    other = store.record_trace("search", hits(tenant="globex"))
    store.submit_feedback(ids[1], "not_helpful", tenant="acme")
    rows = store.list_traces(10)
    assert [r.trace_id for r in rows] == [other, ids[2], ids[1], ids[0]]
    assert [r.rating for r in rows] == [None, None, "not_helpful", None]
    assert [r.trace_id for r in store.list_traces(2, tenant="acme")] == [ids[2], ids[1]]
    assert rows[1].as_dict()["created_at"].startswith("2026-01-01T12:00:02")


# --- privacy ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("plain", "aspirin warnings"),
        ("hashed", "sha256:" + __import__("hashlib").sha256(b"aspirin warnings").hexdigest()),
        ("none", None),
    ],
)
def test_query_text_policy_applies_to_traces_and_user_lines(
    url: str, policy: Any, expected: str | None
) -> None:
    store = OpsStore(url, trace_query_text=policy)
    trace_id = store.record_trace("ask", answer(), conversation_id="c-privacy")
    row = store.get_trace(trace_id)
    assert row is not None and row["query_text"] == expected
    user, assistant = store.conversation("c-privacy", tenant="acme")
    assert user.role == "user" and user.line == expected
    assert assistant.line == "ANSWERABLE via section: aspirin/warnings (2 chunk(s))"
    store.close()


# --- conversations ------------------------------------------------------------------------
def test_conversation_turns_are_appended_in_order(store: OpsStore) -> None:
    t1 = store.record_trace("ask", answer(query="first"), conversation_id="c1")
    t2 = store.record_trace(
        "ask",
        answer(query="second", decision="ABSTAIN", reason="nothing", evidence=[]),
        conversation_id="c1",
    )
    store.record_trace("ask", answer(query="elsewhere"), conversation_id="c2")
    extra = store.append_turns("c1", [("user", "thanks")], tenant="acme")
    turns = store.conversation("c1", tenant="acme")
    assert [(t.role, t.line, t.trace_id) for t in turns] == [
        ("user", "first", t1),
        ("assistant", "ANSWERABLE via section: aspirin/warnings (2 chunk(s))", t1),
        ("user", "second", t2),
        ("assistant", "ABSTAIN via section: nothing", t2),
        ("user", "thanks", None),
    ]
    assert turns[-1].id == extra[0] and [t.id for t in turns] == sorted(t.id for t in turns)
    assert store.conversation("c1", tenant="globex") == []
    row = store.get_trace(t1)
    assert row is not None and row["conversation_id"] == "c1"
    with pytest.raises(InvalidInput):
        store.append_turns("c1", [("system", "x")], tenant="acme")


# --- feedback -----------------------------------------------------------------------------
def test_feedback_once_per_trace_second_submission_updates(
    store: OpsStore, clock: FakeClock, url: str
) -> None:
    trace_id = store.record_trace("ask", answer(), conversation_id="c9")
    first = store.submit_feedback(trace_id, "helpful", tenant="acme", comment="good")
    assert not first.updated and first.rating == "helpful" and first.comment == "good"
    assert first.tenant == "acme" and first.conversation_id == "c9"
    assert first.created_at == first.updated_at == clock.now
    clock.advance(minutes=5)
    second = store.submit_feedback(trace_id, "not_helpful", tenant="acme")
    assert second.updated
    assert second.feedback_id == first.feedback_id
    assert second.rating == "not_helpful" and second.comment is None
    assert second.created_at == first.created_at
    assert second.updated_at == clock.now > first.updated_at
    assert count(url, "answer_feedback") == 1


def test_feedback_on_unknown_or_foreign_trace_reads_as_unknown(store: OpsStore) -> None:
    trace_id = store.record_trace("ask", answer(tenant="acme"))
    for bad in (str(uuid.uuid4()), "not-a-uuid", ""):
        with pytest.raises(TraceNotFound, match="no trace"):
            store.submit_feedback(bad, "helpful", tenant="acme")
    with pytest.raises(TraceNotFound, match="no trace"):
        store.submit_feedback(trace_id, "helpful", tenant="globex")
    assert store.submit_feedback(trace_id.upper(), "helpful", tenant="acme").trace_id == trace_id


def test_feedback_validation_stores_nothing(store: OpsStore, url: str) -> None:
    trace_id = store.record_trace("ask", answer())
    with pytest.raises(InvalidInput, match="2001 characters"):
        store.submit_feedback(trace_id, "helpful", tenant="acme", comment="x" * 2001)
    with pytest.raises(InvalidInput, match="rating"):
        store.submit_feedback(trace_id, "meh", tenant="acme")
    assert count(url, "answer_feedback") == 0
    ok = store.submit_feedback(trace_id, "helpful", tenant="acme", comment="x" * 2000)
    assert ok.comment is not None and len(ok.comment) == 2000


def test_check_constraints_hold_in_the_database(store: OpsStore, url: str) -> None:
    trace_id = store.record_trace("ask", answer())
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    insert = (
        "INSERT INTO answer_feedback (feedback_id, trace_id, tenant, rating, comment, "
        "created_at, updated_at) VALUES (:f, :t, 'acme', :r, :c, CURRENT_TIMESTAMP, "
        "CURRENT_TIMESTAMP)"
    )
    for rating, comment in (("meh", None), ("helpful", "x" * 2001)):
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
            conn.execute(
                sa.text(insert),
                {"f": str(uuid.uuid4()), "t": trace_id, "r": rating, "c": comment},
            )
    engine.dispose()


# --- retention and erasure ----------------------------------------------------------------
def test_purge_older_than_deletes_exactly_the_old_rows(
    store: OpsStore, clock: FakeClock, url: str
) -> None:
    start = clock.now
    old = store.record_trace("ask", answer(query="old"), conversation_id="c-old")
    store.submit_feedback(old, "helpful", tenant="acme")
    clock.advance(days=5)
    middle = store.record_trace("search", hits())
    store.submit_feedback(middle, "not_helpful", tenant="acme")
    clock.advance(days=4)
    new = store.record_trace("ask", answer(query="new"), conversation_id="c-new")
    clock.advance(days=1)  # now = start + 10 days
    report = store.purge_older_than(7, batch=1)
    assert (report.traces, report.turns, report.feedback) == (1, 2, 1)
    assert report.cutoff == start + timedelta(days=3)
    assert {r.trace_id for r in store.list_traces(10)} == {middle, new}
    assert count(url, "answer_feedback") == 1  # the cascade took the old trace's feedback
    assert count(url, "conversation_turn") == 2
    again = store.purge_older_than(7)
    assert (again.traces, again.turns, again.feedback) == (0, 0, 0)
    everything = store.purge_older_than(0)
    assert (everything.traces, everything.turns, everything.feedback) == (2, 2, 1)
    with pytest.raises(InvalidInput):
        store.purge_older_than(-1)


def test_automatic_retention(url: str, clock: FakeClock) -> None:
    assert OpsStore(url, clock=clock).apply_retention() is None
    store = OpsStore(url, clock=clock, retention_days=30)
    store.record_trace("ask", answer())
    clock.advance(days=31)
    keep = store.record_trace("ask", answer())
    report = store.apply_retention()
    assert report is not None and report.scope == "retention" and report.traces == 1
    assert [r.trace_id for r in store.list_traces()] == [keep]
    store.close()


def test_purge_conversation_erases_its_turns_traces_and_feedback(store: OpsStore, url: str) -> None:
    a1 = store.record_trace("ask", answer(query="a1"), conversation_id="conv-a")
    a2 = store.record_trace("ask", answer(query="a2"), conversation_id="conv-a")
    store.submit_feedback(a2, "helpful", tenant="acme")
    loose = store.record_trace("search", hits())  # linked only by a turn
    store.append_turns("conv-a", [("user", "see also")], tenant="acme", trace_id=loose)
    b1 = store.record_trace("ask", answer(query="b1"), conversation_id="conv-b")
    unrelated = store.record_trace("search", hits())
    report = store.purge_conversation("conv-a")
    assert (report.traces, report.turns, report.feedback) == (3, 5, 1)
    assert report.conversation_id == "conv-a"
    remaining = {r.trace_id for r in store.list_traces(10)}
    assert remaining == {b1, unrelated}
    assert a1 not in remaining
    assert store.conversation("conv-a", tenant="acme") == []
    assert len(store.conversation("conv-b", tenant="acme")) == 2
    assert count(url, "answer_feedback") == 0


def test_purge_conversation_for_one_tenant(store: OpsStore) -> None:
    mine = store.record_trace("ask", answer(tenant="acme"), conversation_id="shared")
    theirs = store.record_trace("ask", answer(tenant="globex"), conversation_id="shared")
    report = store.purge_conversation("shared", tenant="globex")
    assert (report.traces, report.turns) == (1, 2)
    assert {r.trace_id for r in store.list_traces()} == {mine}
    assert theirs not in {r.trace_id for r in store.list_traces()}


def test_purge_conversation_never_erases_another_tenants_trace(store: OpsStore) -> None:
    theirs = store.record_trace("ask", answer(tenant="acme"))
    store.append_turns("c-x", [("user", "hi")], tenant="globex", trace_id=theirs)
    report = store.purge_conversation("c-x", tenant="globex")
    assert (report.traces, report.turns) == (0, 1)
    assert store.get_trace(theirs) is not None


def test_retention_loop_purges_until_cancelled(url: str, clock: FakeClock) -> None:
    store = OpsStore(url, clock=clock, retention_days=1)
    store.record_trace("ask", answer())
    clock.advance(days=2)

    async def run() -> None:
        purge = functools.partial(apply_retention, store)
        task = asyncio.create_task(retention_loop(purge, interval_s=0.01, first_delay_s=0))
        for _ in range(300):
            await asyncio.sleep(0.01)
            if not await asyncio.to_thread(store.list_traces):
                break
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(run())
    assert store.list_traces() == []
    store.close()


def test_retention_loop_logs_a_failure_retries_and_stops_without_a_period(
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls: list[int] = []
    report = PurgeReport(scope="retention", traces=1, turns=0, feedback=0)

    def purge() -> PurgeReport | None:
        calls.append(len(calls))
        if len(calls) == 1:
            raise RuntimeError("database gone")
        return report if len(calls) == 2 else None  # then the period is unset: stop

    async def run() -> None:
        await asyncio.wait_for(retention_loop(purge, interval_s=0.01, first_delay_s=0), 5)

    with caplog.at_level(logging.ERROR, logger="sectio.ops.retention"):
        asyncio.run(run())
    assert calls == [0, 1, 2]
    [failure] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert "retention purge failed" in failure.getMessage() and failure.exc_info is not None


# --- concurrency --------------------------------------------------------------------------
def test_eight_threads_writing_traces_and_feedback_lose_nothing(url: str) -> None:
    store = OpsStore(url, pool_size=8, statement_timeout_s=10)
    per_thread = 15
    errors: list[BaseException] = []
    written: list[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(8)

    def work(n: int) -> None:
        try:
            barrier.wait()
            for i in range(per_thread):
                tid = store.record_trace(
                    "ask", answer(query=f"t{n}-{i}", tenant=f"t{n % 2}"), conversation_id=f"c{n}"
                )
                store.submit_feedback(tid, "helpful", tenant=f"t{n % 2}")
                store.submit_feedback(tid, "not_helpful", tenant=f"t{n % 2}", comment=str(i))
                with lock:
                    written.append(tid)
        except BaseException as exc:  # collected and re-raised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    total = 8 * per_thread
    assert len(set(written)) == total
    assert count(url, "retrieval_trace") == total
    assert count(url, "answer_feedback") == total
    assert count(url, "conversation_turn") == 2 * total
    rows = store.list_traces(total + 10)
    assert {r.rating for r in rows} == {"not_helpful"}
    store.close()
