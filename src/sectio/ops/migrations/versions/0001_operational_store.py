"""Operational store: retrieval traces, conversation turns, answer feedback.

Revision ID: 0001_operational_store
Revises:
Create Date: 2026-05-09
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001_operational_store"
down_revision = None
branch_labels = None
depends_on = None

# Frozen copies of the types (a migration never imports the live schema).
UUID = sa.String(36).with_variant(postgresql.UUID(as_uuid=False), "postgresql")
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
BIGID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "retrieval_trace",
        sa.Column("trace_id", UUID, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("collection", sa.Text(), nullable=True),
        sa.Column("query_text", sa.Text(), nullable=True),
        sa.Column("tenant", sa.String(128), nullable=False),
        sa.Column("subject_scope", sa.Text(), nullable=True),
        sa.Column("query_intent", sa.Text(), nullable=True),
        sa.Column("route", sa.Text(), nullable=True),
        sa.Column("decision", sa.String(16), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("resolved_doc_id", sa.Text(), nullable=True),
        sa.Column("resolved_section_key", sa.Text(), nullable=True),
        sa.Column("citations", JSON, nullable=False),
        sa.Column("omitted_evidence_ids", JSON, nullable=False),
        sa.Column("timings", JSON, nullable=False),
        sa.Column("conversation_id", sa.String(128), nullable=True),
        sa.Column("correlation_id", sa.String(128), nullable=True),
        sa.Column("otel_trace_id", sa.String(32), nullable=True),
        sa.Column("created_at", TS, nullable=False, server_default=sa.func.now()),
    )
    op.create_index(
        "ix_retrieval_trace_created_at", "retrieval_trace", [sa.column("created_at").desc()]
    )
    for column in ("correlation_id", "otel_trace_id", "conversation_id"):
        where = sa.text(f"{column} IS NOT NULL")
        op.create_index(
            f"ix_retrieval_trace_{column}",
            "retrieval_trace",
            [column],
            postgresql_where=where,
            sqlite_where=where,
        )

    op.create_table(
        "conversation_turn",
        sa.Column("id", BIGID, primary_key=True, autoincrement=True),
        sa.Column("conversation_id", sa.String(128), nullable=False),
        sa.Column("tenant", sa.String(128), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("line", sa.Text(), nullable=True),
        sa.Column("trace_id", UUID, nullable=True),
        sa.Column("created_at", TS, nullable=False, server_default=sa.func.now()),
        sa.CheckConstraint("role IN ('user', 'assistant')", name="ck_conversation_turn_role"),
    )
    op.create_index(
        "ix_conversation_turn_conversation_id_id", "conversation_turn", ["conversation_id", "id"]
    )
    op.create_index("ix_conversation_turn_created_at", "conversation_turn", ["created_at"])

    op.create_table(
        "answer_feedback",
        sa.Column("feedback_id", UUID, primary_key=True),
        sa.Column("trace_id", UUID, nullable=False),
        sa.Column("conversation_id", sa.String(128), nullable=True),
        sa.Column("tenant", sa.String(128), nullable=False),
        sa.Column("rating", sa.String(16), nullable=False),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("created_at", TS, nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", TS, nullable=False, server_default=sa.func.now()),
        sa.ForeignKeyConstraint(
            ["trace_id"],
            ["retrieval_trace.trace_id"],
            name="fk_answer_feedback_trace_id",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("trace_id", name="uq_answer_feedback_trace_id"),
        sa.CheckConstraint(
            "rating IN ('helpful', 'not_helpful')", name="ck_answer_feedback_rating"
        ),
        sa.CheckConstraint(
            "comment IS NULL OR length(comment) <= 2000",
            name="ck_answer_feedback_comment_length",
        ),
    )
    op.create_index(
        "ix_answer_feedback_created_at", "answer_feedback", [sa.column("created_at").desc()]
    )


def downgrade() -> None:
    op.drop_table("answer_feedback")
    op.drop_table("conversation_turn")
    op.drop_table("retrieval_trace")
