"""The operational store: retrieval traces, conversation turns, answer feedback.

SQLite under ``$SECTIO_HOME`` by default, PostgreSQL in production; one
schema, one Alembic migration history (shipped in ``migrations/``); fail-open
trace writes; retention and erasure.

Example:
    >>> from sectio.ops import OpsStore
    >>> OpsStore("sqlite:////tmp/sectio-doc/ops.sqlite3").dialect
    'sqlite'
"""

from sectio.ops.errors import (
    InvalidInput,
    StoreError,
    StoreNotMigrated,
    StoreUnavailable,
    TraceNotFound,
)
from sectio.ops.migrate import MigrationReport, head_revision
from sectio.ops.records import (
    ConversationTurn,
    Feedback,
    PurgeReport,
    TraceSummary,
    Turn,
    summarize,
)
from sectio.ops.retention import apply_retention, retention_loop
from sectio.ops.store import OpsStore, utc_now

__all__ = [
    "ConversationTurn",
    "Feedback",
    "InvalidInput",
    "MigrationReport",
    "OpsStore",
    "PurgeReport",
    "StoreError",
    "StoreNotMigrated",
    "StoreUnavailable",
    "TraceNotFound",
    "TraceSummary",
    "Turn",
    "apply_retention",
    "head_revision",
    "retention_loop",
    "summarize",
    "utc_now",
]
