"""The operational store's tables (SQLAlchemy Core), one schema for SQLite and PostgreSQL.

The migrations in ``sectio/ops/migrations/versions`` create exactly this
schema; ``tests/test_ops_store.py`` compares the two after migrating. The
column types adapt to the dialect:

* ids are ``uuid`` on PostgreSQL and the canonical 36-character string on
  SQLite (so ``WHERE trace_id = '…'`` works in either shell);
* JSON columns are ``jsonb`` on PostgreSQL and JSON text on SQLite;
* timestamps are ``timestamptz`` on PostgreSQL; on SQLite they are UTC ISO
  strings that sort as time (:class:`UTCDateTime`).

Example:
    >>> sorted(t for t in metadata.tables)
    ['answer_feedback', 'conversation_turn', 'retrieval_trace']
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Dialect

RATINGS = ("helpful", "not_helpful")
ROLES = ("user", "assistant")
COMMENT_MAX = 2000
TENANT_MAX = 128
CONVERSATION_MAX = 128
CORRELATION_MAX = 128

#: uuid on PostgreSQL, the dashed 36-character string elsewhere.
UUIDType = sa.String(36).with_variant(postgresql.UUID(as_uuid=False), "postgresql")
#: jsonb on PostgreSQL, JSON text elsewhere.
JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
#: bigserial on PostgreSQL; SQLite needs INTEGER PRIMARY KEY to autoincrement.
BigIntId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


class UTCDateTime(sa.TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes in, timezone-aware UTC datetimes out, on every dialect."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the operational store; use UTC")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):  # a server default on SQLite ("YYYY-MM-DD HH:MM:SS")
            value = datetime.fromisoformat(value)
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


metadata = sa.MetaData()

retrieval_trace = sa.Table(
    "retrieval_trace",
    metadata,
    sa.Column("trace_id", UUIDType, primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("collection", sa.Text(), nullable=True),
    sa.Column("query_text", sa.Text(), nullable=True),
    sa.Column("tenant", sa.String(TENANT_MAX), nullable=False),
    sa.Column("subject_scope", sa.Text(), nullable=True),
    sa.Column("query_intent", sa.Text(), nullable=True),
    sa.Column("route", sa.Text(), nullable=True),
    sa.Column("decision", sa.String(16), nullable=True),
    sa.Column("reason", sa.Text(), nullable=True),
    sa.Column("resolved_doc_id", sa.Text(), nullable=True),
    sa.Column("resolved_section_key", sa.Text(), nullable=True),
    sa.Column("citations", JSONType, nullable=False),
    sa.Column("omitted_evidence_ids", JSONType, nullable=False),
    sa.Column("timings", JSONType, nullable=False),
    sa.Column("conversation_id", sa.String(CONVERSATION_MAX), nullable=True),
    sa.Column("correlation_id", sa.String(CORRELATION_MAX), nullable=True),
    sa.Column("otel_trace_id", sa.String(32), nullable=True),
    sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    sa.Index(
        "ix_retrieval_trace_correlation_id",
        "correlation_id",
        postgresql_where=sa.text("correlation_id IS NOT NULL"),
        sqlite_where=sa.text("correlation_id IS NOT NULL"),
    ),
    sa.Index(
        "ix_retrieval_trace_otel_trace_id",
        "otel_trace_id",
        postgresql_where=sa.text("otel_trace_id IS NOT NULL"),
        sqlite_where=sa.text("otel_trace_id IS NOT NULL"),
    ),
    sa.Index(
        "ix_retrieval_trace_conversation_id",
        "conversation_id",
        postgresql_where=sa.text("conversation_id IS NOT NULL"),
        sqlite_where=sa.text("conversation_id IS NOT NULL"),
    ),
)

conversation_turn = sa.Table(
    "conversation_turn",
    metadata,
    sa.Column("id", BigIntId, primary_key=True, autoincrement=True),
    sa.Column("conversation_id", sa.String(CONVERSATION_MAX), nullable=False),
    sa.Column("tenant", sa.String(TENANT_MAX), nullable=False),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("line", sa.Text(), nullable=True),
    sa.Column("trace_id", UUIDType, nullable=True),
    sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    sa.CheckConstraint("role IN ('user', 'assistant')", name="ck_conversation_turn_role"),
    sa.Index("ix_conversation_turn_conversation_id_id", "conversation_id", "id"),
    sa.Index("ix_conversation_turn_created_at", "created_at"),
)

answer_feedback = sa.Table(
    "answer_feedback",
    metadata,
    sa.Column("feedback_id", UUIDType, primary_key=True),
    sa.Column("trace_id", UUIDType, nullable=False),
    sa.Column("conversation_id", sa.String(CONVERSATION_MAX), nullable=True),
    sa.Column("tenant", sa.String(TENANT_MAX), nullable=False),
    sa.Column("rating", sa.String(16), nullable=False),
    sa.Column("comment", sa.Text(), nullable=True),
    sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    sa.ForeignKeyConstraint(
        ["trace_id"],
        ["retrieval_trace.trace_id"],
        name="fk_answer_feedback_trace_id",
        ondelete="CASCADE",
    ),
    sa.UniqueConstraint("trace_id", name="uq_answer_feedback_trace_id"),
    sa.CheckConstraint("rating IN ('helpful', 'not_helpful')", name="ck_answer_feedback_rating"),
    sa.CheckConstraint(
        f"comment IS NULL OR length(comment) <= {COMMENT_MAX}",
        name="ck_answer_feedback_comment_length",
    ),
)
sa.Index("ix_retrieval_trace_created_at", retrieval_trace.c.created_at.desc())
sa.Index("ix_answer_feedback_created_at", answer_feedback.c.created_at.desc())
