"""The operational store: retrieval traces, conversation turns, answer feedback.

One :class:`OpsStore` per process owns one pooled engine (SQLite by default,
PostgreSQL in production; see :mod:`sectio.ops.db`). It is thread-safe.

Two ways to write a trace:

* :meth:`OpsStore.record_trace` raises on any failure (tests, tools);
* :meth:`OpsStore.try_record_trace` is the **fail-open** path retrieval uses:
  any failure is logged, counted in :attr:`OpsStore.trace_write_failures`,
  and answered with ``None``. After a connection failure, writes are skipped
  (and counted) for ``retry_after_s`` seconds, so a dead database costs one
  bounded wait, not one per request.

Reads that retrieval needs (a conversation's previous subject,
:meth:`OpsStore.try_previous_subject`) are fail-open too, under the same
back-off: a store marked down is not asked, and the question is read as a
first turn. With :attr:`OpsStore.background_probe` (the server sets it), the
first call after the back-off does not try the database itself: it starts one
probe on a thread of its own and is skipped, so no request waits on a database
that has not come back; the probe's success lifts the back-off.

Example:
    >>> store = OpsStore("sqlite:////tmp/doc/ops.sqlite3", auto_migrate=True)  # doctest: +SKIP
    >>> tid = store.record_trace("search", result)  # doctest: +SKIP
    >>> store.submit_feedback(tid, "helpful", tenant=result.tenant).rating  # doctest: +SKIP
    'helpful'
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql, sqlite

from sectio.ops import migrate as migrations
from sectio.ops import purge
from sectio.ops.db import build_engine, database_url, is_default_sqlite, parse_url, redact
from sectio.ops.errors import (
    InvalidInput,
    StoreError,
    StoreNotMigrated,
    StoreUnavailable,
    TraceNotFound,
)
from sectio.ops.privacy import POLICIES, QueryTextPolicy, keep_text
from sectio.ops.records import (
    AnyResult,
    Feedback,
    PreviousSubject,
    PurgeReport,
    TraceEntry,
    TraceSummary,
    Turn,
    canonical_uuid,
    check_conversation_id,
    check_storable,
    check_tenant,
    summarize,
    trace_values,
)
from sectio.ops.schema import (
    COMMENT_MAX,
    RATINGS,
    ROLES,
    answer_feedback,
    conversation_turn,
    retrieval_trace,
)
from sectio.settings import Settings

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]

#: The longest period a purge or a retention setting may name (100 years): further
#: back than that is before any trace, and past year 1 is not a date at all.
MAX_RETENTION_DAYS = 36_500


def utc_now() -> datetime:
    """The default clock: now, in UTC."""
    return datetime.now(UTC)


class OpsStore:
    """Traces, turns and feedback in one SQL database, with migrations and retention.

    Args:
        url: a SQLAlchemy URL (``sqlite:///…`` or ``postgresql+psycopg://…``).
        auto_migrate: migrate to head on first use instead of refusing an
            unmigrated database.
        trace_query_text: ``plain`` | ``hashed`` | ``none`` (see :mod:`sectio.ops.privacy`).
        connect_timeout_s: bound on connecting (PostgreSQL; whole seconds, >= 2).
        statement_timeout_s: bound on one statement (PostgreSQL) or on waiting
            for the write lock (SQLite ``busy_timeout``).
        retry_after_s: after a failed connection, skip fail-open writes this long.
        retention_days: the automatic retention period (None: keep everything).
        clock: returns the current time, timezone-aware (injectable for tests).

    Example:
        >>> s = OpsStore("sqlite:////tmp/sectio-doc/ops.sqlite3", auto_migrate=True)
        >>> s.dialect
        'sqlite'
    """

    def __init__(
        self,
        url: str,
        *,
        auto_migrate: bool = False,
        trace_query_text: QueryTextPolicy = "plain",
        connect_timeout_s: float = 2.0,
        statement_timeout_s: float = 2.0,
        pool_size: int = 5,
        max_overflow: int = 5,
        retry_after_s: float = 5.0,
        retention_days: float | None = None,
        clock: Clock = utc_now,
    ) -> None:
        if trace_query_text not in POLICIES:
            raise InvalidInput(f"trace_query_text must be one of {', '.join(POLICIES)}")
        self.url = redact(url)
        self.dialect = parse_url(url).get_backend_name()
        self.auto_migrate = auto_migrate
        self.trace_query_text: QueryTextPolicy = trace_query_text
        self.retry_after_s = retry_after_s
        self.retention_days = retention_days
        self.clock = clock
        self._raw_url = url
        self.connect_timeout_s = connect_timeout_s
        self.statement_timeout_s = statement_timeout_s
        self._pool = (pool_size, max_overflow)
        self._engine: sa.Engine | None = None
        self._lock = threading.Lock()
        self._ready_lock = threading.Lock()
        self._ready = False
        self._down_until = 0.0
        self._probing = False
        #: After the back-off, probe the database on a thread of its own instead of
        #: trying the next call (which is skipped meanwhile). The server sets it.
        self.background_probe = False
        #: traces written by the fail-open path
        self.trace_writes = 0
        #: traces the fail-open path could not write (each one logged); /metrics exports it
        self.trace_write_failures = 0
        #: of those, the ones skipped without trying while the database was down
        self.trace_writes_skipped = 0

    @classmethod
    def from_settings(cls, settings: Settings, *, clock: Clock = utc_now) -> OpsStore:
        """The store ``settings`` describe. ``SECTIO_AUTO_MIGRATE`` unset means: migrate
        on first use only for the default SQLite file, never for a configured URL."""
        auto = settings.auto_migrate
        if auto is None:
            auto = is_default_sqlite(settings)
        return cls(
            database_url(settings),
            auto_migrate=auto,
            trace_query_text=settings.trace_query_text,
            connect_timeout_s=settings.db_connect_timeout_s,
            statement_timeout_s=settings.db_statement_timeout_s,
            pool_size=settings.db_pool_size,
            max_overflow=settings.db_max_overflow,
            retry_after_s=settings.db_retry_after_s,
            retention_days=settings.retention_days,
            clock=clock,
        )

    # --- plumbing -------------------------------------------------------------------
    @property
    def engine(self) -> sa.Engine:
        """The pooled engine (built on first use; building connects to nothing)."""
        if self._engine is None:
            with self._lock:
                if self._engine is None:
                    self._engine = build_engine(
                        self._raw_url,
                        connect_timeout_s=self.connect_timeout_s,
                        statement_timeout_s=self.statement_timeout_s,
                        pool_size=self._pool[0],
                        max_overflow=self._pool[1],
                    )
        return self._engine

    def close(self) -> None:
        """Dispose of the pool (the store can be used again; it reconnects)."""
        with self._lock:
            if self._engine is not None:
                self._engine.dispose()
                self._engine = None
            self._ready = False

    def __enter__(self) -> OpsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _now(self) -> datetime:
        now = self.clock()
        return now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)

    @contextmanager
    def _tx(self) -> Iterator[sa.Connection]:
        """One transaction; database errors come out as :class:`StoreError` subclasses."""
        try:
            with self.engine.begin() as conn:
                yield conn
        except sa_exc.SQLAlchemyError as exc:
            raise self._translate(exc) from exc

    def _translate(self, exc: sa_exc.SQLAlchemyError) -> StoreError:
        orig = getattr(exc, "orig", None) or exc
        detail = " ".join(str(orig).split())[:300]
        low = detail.lower()
        if "no such table" in low or ("relation" in low and "does not exist" in low):
            return StoreNotMigrated(
                f"operational store {self.url} is not migrated ({detail}); run `sectio migrate`"
            )
        if isinstance(exc, sa_exc.IntegrityError):
            return InvalidInput(f"operational store refused the row: {detail}")
        if isinstance(exc, sa_exc.OperationalError | sa_exc.InterfaceError | sa_exc.TimeoutError):
            return StoreUnavailable(f"operational store {self.url} unavailable: {detail}")
        return StoreError(f"operational store {self.url}: {detail}")

    # --- migrations -----------------------------------------------------------------
    def migrate(self) -> migrations.MigrationReport:
        """Bring the schema to head (idempotent) and return what was applied.

        Raises:
            StoreUnavailable: the database cannot be reached.
        """
        try:
            report = migrations.upgrade(self.engine, url=self.url)
        except sa_exc.SQLAlchemyError as exc:
            raise self._translate(exc) from exc
        self._ready = True
        return report

    def revision(self) -> str | None:
        """The schema revision the database records (None: never migrated)."""
        with self._tx() as conn:
            return migrations.current_revision(conn)

    def ensure_ready(self) -> None:
        """Check (once) that the schema is at head; migrate if ``auto_migrate``.

        Raises:
            StoreNotMigrated: behind head without ``auto_migrate``, or ahead of this sectio.
            StoreUnavailable: the database cannot be reached.
        """
        if self._ready:
            return
        with self._ready_lock:
            if not self._ready:
                self._check_schema()

    def _check_schema(self) -> None:
        with self._tx() as conn:
            if migrations.recorded_revision(conn) == migrations.HEAD_REVISION:
                self._ready = True  # at head: Alembic was never imported
                return
        current = self.revision()
        head = migrations.head_revision()
        if current == head:
            self._ready = True
            return
        if current is not None and current not in migrations.known_revisions():
            raise StoreNotMigrated(
                f"operational store {self.url} is at revision {current}, which this sectio "
                f"does not know (newest here: {head}); upgrade sectio"
            )
        if not self.auto_migrate:
            raise StoreNotMigrated(
                f"operational store {self.url} is not migrated (at {current or 'no revision'}, "
                f"needs {head}); run `sectio migrate`"
            )
        report = self.migrate()
        log.info("migrated operational store %s: %s", self.url, ", ".join(report.applied))

    # --- traces ---------------------------------------------------------------------
    def record_trace(
        self,
        kind: str,
        result: AnyResult,
        *,
        conversation_id: str | None = None,
        correlation_id: str | None = None,
        otel_trace_id: str | None = None,
        append_turns: bool = True,
    ) -> str:
        """Write the trace of ``result`` and return its new id (``result`` is not changed).

        The tenant, query, intent, scope, route and decision are taken from
        ``result``: the values retrieval resolved, never a caller's claim.
        With a ``conversation_id`` (and ``append_turns``), the user's line and
        a summary of the answer are appended to that conversation in the same
        transaction, both pointing at the trace.

        Raises:
            StoreError: any failure (see :meth:`try_record_trace` for fail-open).
        """
        entry = TraceEntry(kind, result, conversation_id, correlation_id, otel_trace_id)
        return self.record_traces([entry], append_turns=append_turns)[0]

    def record_traces(
        self, entries: Sequence[TraceEntry], *, append_turns: bool = True
    ) -> list[str]:
        """:meth:`record_trace` for several results in one transaction (ids in input order).

        The server writes the traces of concurrent requests together: one
        commit for all. All or none are written.

        Raises:
            StoreError: any failure; nothing was written.
        """
        now = self._now()
        ids = [str(uuid.uuid4()) for _ in entries]
        rows = [
            trace_values(
                e.kind,
                e.result,
                trace_id=trace_id,
                created_at=now,
                policy=self.trace_query_text,
                conversation_id=e.conversation_id,
                correlation_id=e.correlation_id,
                otel_trace_id=e.otel_trace_id,
            )
            for e, trace_id in zip(entries, ids, strict=True)
        ]
        turns = [
            self._turn_row(e.conversation_id, e.result.tenant, role, text, trace_id, now)
            for e, trace_id in zip(entries, ids, strict=True)
            if e.conversation_id is not None and append_turns
            for role, text in (("user", e.result.query), ("assistant", summarize(e.result)))
        ]
        if not rows:
            return []
        self.ensure_ready()
        with self._tx() as conn:
            conn.execute(retrieval_trace.insert(), rows)  # one cached statement for every row
            if turns:
                conn.execute(conversation_turn.insert(), turns)
        return ids

    def try_record_trace(
        self,
        kind: str,
        result: AnyResult,
        *,
        conversation_id: str | None = None,
        correlation_id: str | None = None,
        otel_trace_id: str | None = None,
    ) -> str | None:
        """:meth:`record_trace`, fail-open: any failure is logged and counted; returns None."""
        entry = TraceEntry(kind, result, conversation_id, correlation_id, otel_trace_id)
        return self.try_record_traces([entry])[0]

    def try_record_traces(self, entries: Sequence[TraceEntry]) -> list[str | None]:
        """:meth:`record_traces`, fail-open: on any failure, logged and counted, all None."""
        failed: list[str | None] = [None] * len(entries)
        if not self.may_try():
            self._count(failed=True, skipped=True, n=len(entries))
            log.debug("trace not written: operational store %s marked down", self.url)
            return failed
        try:
            ids = self.record_traces(entries)
        except (StoreUnavailable, StoreNotMigrated) as exc:
            self.mark_down()
            self._count(failed=True, n=len(entries))
            log.warning("trace not written (retrying in %.0fs): %s", self.retry_after_s, exc)
            return failed
        except Exception as exc:  # fail-open: a trace must never break retrieval
            if len(entries) > 1:  # one bad entry must not cost the others their trace
                return [self.try_record_traces([e])[0] for e in entries]
            self._count(failed=True, n=len(entries))
            log.warning(
                "trace not written: %s: %s",
                type(exc).__name__,
                exc,
                exc_info=not isinstance(exc, StoreError),
            )
            return failed
        self._count(failed=False, n=len(entries))
        return list(ids)

    # --- back-off ---------------------------------------------------------------
    def is_down(self) -> bool:
        """Whether fail-open calls skip the database now (a failure within
        ``retry_after_s``, or a background probe still out)."""
        return time.monotonic() < self._down_until or self._probing

    def mark_down(self) -> None:
        """Skip fail-open calls for ``retry_after_s`` from now (a call failed or timed out)."""
        self._down_until = time.monotonic() + self.retry_after_s

    def may_try(self) -> bool:
        """Whether a fail-open call may use the database now.

        False while marked down. Once the back-off is over: True, unless
        :attr:`background_probe`; then the first caller starts the probe
        (:meth:`probe`, on a thread of its own) and every caller is told False
        until it succeeds.
        """
        if time.monotonic() < self._down_until:
            return False
        if self._down_until == 0.0 or not self.background_probe:
            return True
        with self._lock:
            if self._probing:
                return False
            self._probing = True
        threading.Thread(
            target=self._probe_then_clear, name="sectio-ops-probe", daemon=True
        ).start()
        return False

    def _probe_then_clear(self) -> None:
        try:
            self.probe()
        finally:
            self._probing = False

    def probe(self) -> bool:
        """Read each table once (bounded by the store's timeouts): True lifts the back-off,
        False renews it. A lock held on a table fails the probe as it would a call."""
        try:
            self.ensure_ready()
            with self._tx() as conn:
                for table in (retrieval_trace, conversation_turn):
                    conn.execute(sa.select(sa.literal(1)).select_from(table).limit(1)).all()
        except Exception as exc:  # any failure: still down
            self.mark_down()
            log.info("operational store %s still unavailable: %s", self.url, exc)
            return False
        self._down_until = 0.0
        log.info("operational store %s is back", self.url)
        return True

    def _count(self, *, failed: bool, skipped: bool = False, n: int = 1) -> None:
        with self._lock:
            if failed:
                self.trace_write_failures += n
                if skipped:
                    self.trace_writes_skipped += n
            else:
                self.trace_writes += n

    def stats(self) -> dict[str, int]:
        """The counters /metrics exports."""
        return {
            "trace_writes": self.trace_writes,
            "trace_write_failures": self.trace_write_failures,
            "trace_writes_skipped": self.trace_writes_skipped,
        }

    def get_trace(self, trace_id: str, *, tenant: str | None = None) -> dict[str, Any] | None:
        """The stored trace row (``tenant`` given: only that tenant's), or None."""
        tid = canonical_uuid(trace_id)
        if tid is None:
            return None
        self.ensure_ready()
        stmt = sa.select(retrieval_trace).where(retrieval_trace.c.trace_id == tid)
        if tenant is not None:
            stmt = stmt.where(retrieval_trace.c.tenant == tenant)
        with self._tx() as conn:
            row = conn.execute(stmt).mappings().first()
        return dict(row) if row else None

    def list_traces(self, limit: int = 20, *, tenant: str | None = None) -> list[TraceSummary]:
        """The newest traces first, with their feedback rating (``tenant``: only that one's)."""
        limit = max(1, min(int(limit), 10_000))
        t, f = retrieval_trace, answer_feedback
        stmt = (
            sa.select(
                t.c.trace_id,
                t.c.created_at,
                t.c.kind,
                t.c.tenant,
                t.c.collection,
                t.c.route,
                t.c.decision,
                t.c.query_text,
                t.c.conversation_id,
                f.c.rating,
            )
            .select_from(t.outerjoin(f, f.c.trace_id == t.c.trace_id))
            .order_by(t.c.created_at.desc(), t.c.trace_id)
            .limit(limit)
        )
        if tenant is not None:
            stmt = stmt.where(t.c.tenant == tenant)
        self.ensure_ready()
        with self._tx() as conn:
            rows = conn.execute(stmt).mappings().all()
        return [TraceSummary(**{k: r[k] for k in r}) for r in rows]

    # --- conversations --------------------------------------------------------------
    def _turn_row(
        self,
        conversation_id: str,
        tenant: str,
        role: str,
        line: str | None,
        trace_id: str | None,
        now: datetime,
    ) -> dict[str, Any]:
        if role not in ROLES:
            raise InvalidInput(f"a turn's role is one of {', '.join(ROLES)}, not {role!r}")
        kept = keep_text(line, self.trace_query_text) if role == "user" else line
        return {
            "conversation_id": conversation_id,
            "tenant": tenant,
            "role": role,
            "line": kept,
            "trace_id": trace_id,
            "created_at": now,
        }

    def append_turns(
        self,
        conversation_id: str,
        turns: list[tuple[str, str | None]],
        *,
        tenant: str,
        trace_id: str | None = None,
    ) -> list[int]:
        """Append ``(role, line)`` turns (append-only) and return their ids, in order.

        User lines follow ``trace_query_text``. Prefer ``record_trace(...,
        conversation_id=...)``, which appends the user line and the answer
        summary with the trace in one transaction.

        Raises:
            InvalidInput: a bad conversation id, tenant or role.
            StoreError: the database failed.
        """
        check_conversation_id(conversation_id)
        check_tenant(tenant)
        tid = canonical_uuid(trace_id) if trace_id is not None else None
        now = self._now()
        rows = [self._turn_row(conversation_id, tenant, r, line, tid, now) for r, line in turns]
        if not rows:
            return []
        self.ensure_ready()
        ids: list[int] = []
        with self._tx() as conn:
            for row in rows:  # one by one: ids in order on every dialect
                stmt = conversation_turn.insert().values(**row).returning(conversation_turn.c.id)
                ids.append(int(conn.execute(stmt).scalar_one()))
        return ids

    def conversation(self, conversation_id: str, *, tenant: str) -> list[Turn]:
        """A conversation's turns in order (only ``tenant``'s)."""
        c = conversation_turn.c
        stmt = (
            sa.select(conversation_turn)
            .where(c.conversation_id == conversation_id, c.tenant == tenant)
            .order_by(c.id)
        )
        self.ensure_ready()
        with self._tx() as conn:
            rows = conn.execute(stmt).mappings().all()
        return [Turn(**{k: r[k] for k in r}) for r in rows]

    def previous_subject(self, conversation_id: str, *, tenant: str) -> str | None:
        """The document the conversation's last answered turn resolved (only ``tenant``'s
        turns and traces), or None. One statement.

        Raises:
            InvalidInput: a bad conversation id.
            StoreError: the database failed.
        """
        check_conversation_id(conversation_id)
        c, t = conversation_turn.c, retrieval_trace.c
        stmt = (
            sa.select(t.resolved_doc_id)
            .select_from(conversation_turn.join(retrieval_trace, t.trace_id == c.trace_id))
            .where(
                c.conversation_id == conversation_id,
                c.tenant == tenant,
                c.role == "assistant",
                t.tenant == tenant,
                t.resolved_doc_id.is_not(None),
                t.resolved_doc_id != "",
            )
            .order_by(c.id.desc())
            .limit(1)
        )
        self.ensure_ready()
        with self._tx() as conn:
            found = conn.execute(stmt).scalar()
        return str(found) if found else None

    def try_previous_subject(self, conversation_id: str, *, tenant: str) -> PreviousSubject:
        """:meth:`previous_subject`, fail-open and under the write back-off: a store that
        is marked down is not asked; one that fails is marked down (connection,
        timeout, schema) or logged; either way the answer is ``unavailable``."""
        if not self.may_try():
            return PreviousSubject("unavailable")
        try:
            doc = self.previous_subject(conversation_id, tenant=tenant)
        except (StoreUnavailable, StoreNotMigrated) as exc:
            self.mark_down()
            log.warning(
                "conversation's previous subject unreadable (retrying in %.0fs): %s",
                self.retry_after_s,
                exc,
            )
            return PreviousSubject("unavailable")
        except Exception as exc:  # fail-open: the question is read on its own
            log.warning(
                "conversation's previous subject unreadable: %s: %s", type(exc).__name__, exc
            )
            return PreviousSubject("unavailable")
        return PreviousSubject("found", doc) if doc else PreviousSubject("none")

    # --- feedback -------------------------------------------------------------------
    def submit_feedback(
        self,
        trace_id: str,
        rating: str,
        *,
        tenant: str,
        comment: str | None = None,
        conversation_id: str | None = None,
    ) -> Feedback:
        """Store feedback on a trace: one per trace, a second submission replaces the
        rating and comment and moves ``updated_at``.

        The feedback takes the trace's tenant; a caller of another tenant gets
        :class:`TraceNotFound`, exactly as for an unknown id.

        Raises:
            InvalidInput: an unknown rating, or a comment over 2000 characters (nothing stored).
            TraceNotFound: no such trace for ``tenant``.
        """
        if rating not in RATINGS:
            raise InvalidInput(f"rating must be one of {', '.join(RATINGS)}, not {rating!r}")
        if comment is not None and len(comment) > COMMENT_MAX:
            raise InvalidInput(
                f"comment is {len(comment)} characters; at most {COMMENT_MAX} are kept"
            )
        if comment is not None:
            check_storable("comment", comment)
        if conversation_id is not None:
            check_conversation_id(conversation_id)
        tid = canonical_uuid(trace_id)
        if tid is None:
            raise TraceNotFound(f"no trace {trace_id!r}")
        comment = comment or None
        self.ensure_ready()
        now = self._now()
        t, f = retrieval_trace, answer_feedback
        with self._tx() as conn:
            trace = conn.execute(
                sa.select(t.c.tenant, t.c.conversation_id).where(t.c.trace_id == tid)
            ).first()
            if trace is None or trace.tenant != tenant:
                raise TraceNotFound(f"no trace {trace_id!r}")
            earlier = conn.execute(sa.select(f.c.feedback_id).where(f.c.trace_id == tid)).first()
            insert = postgresql.insert(f) if conn.dialect.name == "postgresql" else sqlite.insert(f)
            values = insert.values(
                feedback_id=str(uuid.uuid4()),
                trace_id=tid,
                conversation_id=conversation_id or trace.conversation_id,
                tenant=trace.tenant,
                rating=rating,
                comment=comment,
                created_at=now,
                updated_at=now,
            )
            upsert = values.on_conflict_do_update(
                index_elements=[f.c.trace_id],
                set_={
                    "rating": values.excluded.rating,
                    "comment": values.excluded.comment,
                    "conversation_id": sa.func.coalesce(
                        values.excluded.conversation_id, f.c.conversation_id
                    ),
                    "updated_at": values.excluded.updated_at,
                },
            ).returning(*f.c)
            row = conn.execute(upsert).mappings().one()
        return Feedback(**{k: row[k] for k in row}, updated=earlier is not None)

    # --- retention and erasure ------------------------------------------------------
    def purge_older_than(
        self, days: float, *, scope: str = "older_than", batch: int = purge.BATCH
    ) -> PurgeReport:
        """Delete traces and turns created more than ``days`` days ago (by the store's clock).

        Feedback goes with its trace (ON DELETE CASCADE) and is counted. Rows
        go in batches, one short transaction each, so no statement runs long
        and an interrupted purge simply resumes.

        Raises:
            InvalidInput: ``days`` negative or over :data:`MAX_RETENTION_DAYS`.
        """
        if not 0 <= days <= MAX_RETENTION_DAYS:
            raise InvalidInput(f"--older-than must be 0 to {MAX_RETENTION_DAYS} days")
        cutoff = self._now() - timedelta(days=days)
        self.ensure_ready()
        traces = feedback = turns = 0
        while True:
            with self._tx() as conn:
                n, fb = purge.delete_old_traces(conn, cutoff, batch)
            traces, feedback = traces + n, feedback + fb
            if n < batch:
                break
        while True:
            with self._tx() as conn:
                n = purge.delete_old_turns(conn, cutoff, batch)
            turns += n
            if n < batch:
                break
        return PurgeReport(
            scope=scope, traces=traces, turns=turns, feedback=feedback, cutoff=cutoff
        )

    def purge_conversation(self, conversation_id: str, *, tenant: str | None = None) -> PurgeReport:
        """Erase one conversation in one transaction: its turns, the traces they point at
        or that name it, and (by cascade) their feedback. ``tenant``: only that tenant's rows.

        Raises:
            InvalidInput: an empty or over-long conversation id.
        """
        check_conversation_id(conversation_id)
        self.ensure_ready()
        with self._tx() as conn:
            traces, turns, feedback = purge.delete_conversation(conn, conversation_id, tenant)
        return PurgeReport(
            scope="conversation",
            traces=traces,
            turns=turns,
            feedback=feedback,
            conversation_id=conversation_id,
        )

    def apply_retention(self) -> PurgeReport | None:
        """Purge by the configured ``retention_days`` (None when no period is set)."""
        if self.retention_days is None:
            return None
        return self.purge_older_than(self.retention_days, scope="retention")
