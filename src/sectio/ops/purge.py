"""The SQL of retention and erasure, one connection (one transaction) per call.

:class:`sectio.ops.store.OpsStore` loops over these in short transactions so
that no single statement runs past the statement timeout on a large table.
Feedback is never deleted directly: it goes with its trace (ON DELETE
CASCADE) and is counted first.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from sectio.ops.schema import answer_feedback, conversation_turn, retrieval_trace

BATCH = 1000


def count_feedback(conn: sa.Connection, trace_ids: list[str]) -> int:
    """How many feedback rows point at ``trace_ids``."""
    f = answer_feedback.c
    stmt = sa.select(sa.func.count()).select_from(answer_feedback).where(f.trace_id.in_(trace_ids))
    return int(conn.execute(stmt).scalar_one())


def delete_traces(conn: sa.Connection, trace_ids: list[str]) -> tuple[int, int]:
    """Delete ``trace_ids`` (in slices of :data:`BATCH`); return (traces, feedback) removed."""
    traces = feedback = 0
    t = retrieval_trace.c
    for i in range(0, len(trace_ids), BATCH):
        part = trace_ids[i : i + BATCH]
        feedback += count_feedback(conn, part)
        traces += conn.execute(sa.delete(retrieval_trace).where(t.trace_id.in_(part))).rowcount
    return traces, feedback


def delete_old_traces(conn: sa.Connection, cutoff: datetime, batch: int) -> tuple[int, int]:
    """Delete up to ``batch`` traces created before ``cutoff``; return (traces, feedback)."""
    t = retrieval_trace.c
    ids = list(
        conn.execute(sa.select(t.trace_id).where(t.created_at < cutoff).limit(batch)).scalars()
    )
    return delete_traces(conn, ids) if ids else (0, 0)


def delete_old_turns(conn: sa.Connection, cutoff: datetime, batch: int) -> int:
    """Delete up to ``batch`` turns created before ``cutoff``; return how many."""
    c = conversation_turn.c
    ids = list(conn.execute(sa.select(c.id).where(c.created_at < cutoff).limit(batch)).scalars())
    if not ids:
        return 0
    return int(conn.execute(sa.delete(conversation_turn).where(c.id.in_(ids))).rowcount)


def delete_conversation(
    conn: sa.Connection, conversation_id: str, tenant: str | None
) -> tuple[int, int, int]:
    """Erase a conversation: its turns, the traces they point at or that name it.

    Returns (traces, turns, feedback). ``tenant`` given: only that tenant's rows.
    """
    t, c = retrieval_trace.c, conversation_turn.c
    turn_where = [c.conversation_id == conversation_id]
    trace_where = [t.conversation_id == conversation_id]
    if tenant is not None:
        turn_where.append(c.tenant == tenant)
        trace_where.append(t.tenant == tenant)
    linked = set(
        conn.execute(sa.select(c.trace_id).where(*turn_where, c.trace_id.is_not(None))).scalars()
    )
    named = set(conn.execute(sa.select(t.trace_id).where(*trace_where)).scalars())
    ids = linked | named
    if tenant is not None and linked - named:  # a turn must not erase another tenant's trace
        ids = named | set(
            conn.execute(
                sa.select(t.trace_id).where(t.trace_id.in_(sorted(linked)), t.tenant == tenant)
            ).scalars()
        )
    traces, feedback = delete_traces(conn, sorted(ids))
    turns = int(conn.execute(sa.delete(conversation_turn).where(*turn_where)).rowcount)
    return traces, turns, feedback
