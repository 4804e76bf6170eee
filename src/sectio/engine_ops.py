"""The operational-store half of the :class:`sectio.Sectio` facade, held as ``Sectio.ops``.

Traces, feedback, migrations, retention and erasure: what ``sectio migrate``,
``feedback``, ``purge`` and ``traces``, the MCP tools and the HTTP API's
``/v1/feedback`` and ``/v1/traces`` call (``engine.ops.feedback(...)``). The
store (SQLAlchemy) is imported on first use, not with sectio; the front doors
reach it through this class, never through :mod:`sectio.ops` itself.

One trace path: every retrieval call builds its trace with
:meth:`Operations.trace_entry` and writes it with
:meth:`Operations.record_entries`; :meth:`Operations.record` is the two in one
(the CLI), the HTTP server batches the entries of concurrent requests.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sectio import telemetry
from sectio.context import request_context
from sectio.settings import Settings

if TYPE_CHECKING:  # the operational store (SQLAlchemy) is imported on first use
    from collections.abc import Awaitable, Callable

    from sectio.ops.migrate import MigrationReport
    from sectio.ops.records import AnyResult, Feedback, PurgeReport, TraceSummary
    from sectio.ops.records import PreviousSubject as PreviousSubject
    from sectio.ops.records import TraceEntry as TraceEntry
    from sectio.ops.store import OpsStore

TRACE_COUNTERS = ("trace_writes", "trace_write_failures", "trace_writes_skipped")
log = logging.getLogger("sectio.ops")


class Operations:
    """Traces, feedback and the store's upkeep of one engine (``Sectio.ops``).

    ``store`` is the operational store (:class:`sectio.ops.OpsStore`): the one
    given, or one built from ``settings`` on first use. ``default_tenant``
    answers a feedback call that names no tenant.

    Thread-safe: the server's trace, store and retention threads share it
    (the store is built once, under a lock).

    Example:
        >>> s = Sectio(Settings(home="/tmp/sectio-doc", embedder="fake"))  # doctest: +SKIP
        >>> s.ops.traces(5, tenant="acme")[0].decision  # doctest: +SKIP
        'ANSWERABLE'
    """

    def __init__(
        self, settings: Settings, *, default_tenant: str, store: OpsStore | None = None
    ) -> None:
        self.settings = settings
        self.default_tenant = default_tenant
        self._store = store
        self._lock = threading.Lock()

    @property
    def store(self) -> OpsStore:
        """The operational store (traces, turns, feedback); connects on first use.

        Raises:
            StoreUnavailable: a URL that cannot be used (the driver is missing, ...).
        """
        if self._store is None:
            from sectio.ops.store import OpsStore

            with self._lock:
                if self._store is None:
                    self._store = OpsStore.from_settings(self.settings)
        return self._store

    def close(self) -> None:
        """Close the store if it was opened (its pool's connections)."""
        if self._store is not None:
            self._store.close()

    # --- traces -------------------------------------------------------------------------
    def record(
        self,
        kind: str,
        result: AnyResult,
        *,
        conversation_id: str | None = None,
        correlation_id: str | None = None,
        otel_trace_id: str | None = None,
    ) -> str | None:
        """Write ``result``'s retrieval trace, fail-open; set ``result.trace_id`` and return it.

        Every ``ask``, ``search`` and ``lookup`` that records calls this once,
        as its last step. Tenant, query, route, decision and intent are read
        from ``result`` (the values retrieval resolved). With
        ``conversation_id`` (``ask --conversation ID``), the user's line and a
        one-line summary of the answer are appended to that conversation with
        the trace, in one transaction.

        Fail-open: if the store is unreachable, slow (bounded by
        ``SECTIO_DB_CONNECT_TIMEOUT_S``/``SECTIO_DB_STATEMENT_TIMEOUT_S``) or
        unmigrated, the failure is logged and counted in
        ``self.store.trace_write_failures`` and ``trace_id`` stays None.
        ``SECTIO_TRACES=false`` turns tracing off.
        """
        self.record_entries(
            [
                self.trace_entry(
                    kind,
                    result,
                    conversation_id=conversation_id,
                    correlation_id=correlation_id,
                    otel_trace_id=otel_trace_id,
                )
            ]
        )
        return result.trace_id

    def trace_entry(
        self,
        kind: str,
        result: AnyResult,
        *,
        conversation_id: str | None = None,
        correlation_id: str | None = None,
        otel_trace_id: str | None = None,
    ) -> TraceEntry:
        """The trace :meth:`record` would write, its ids taken from the current request.

        Build it in the request's own context; :meth:`record_entries` may then run
        anywhere (the server writes the traces of concurrent requests together).
        """
        from sectio.ops.records import TraceEntry  # SQLAlchemy loads on first use

        ctx = request_context.get()
        if ctx is not None:
            correlation_id = correlation_id or ctx.request_id
            otel_trace_id = otel_trace_id or ctx.otel_trace_id
        return TraceEntry(kind, result, conversation_id, correlation_id, otel_trace_id)

    def record_entries(self, entries: Sequence[TraceEntry]) -> None:
        """Write several traces in one transaction, fail-open; set each ``result.trace_id``.

        Each result's ``trace_id`` is None unless its trace was written (see :meth:`record`).
        """
        for entry in entries:
            entry.result.trace_id = None
        if not entries or not self.settings.traces:
            return
        try:
            store = self.store
        except Exception as exc:  # a bad URL must not break retrieval either
            log.warning("trace not written: %s", exc)
            return
        with telemetry.span("sectio.trace_write", {"sectio.traces": len(entries)}) as span:
            written = store.try_record_traces(entries)
            telemetry.set_attributes(span, {"sectio.written": sum(1 for t in written if t)})
        for entry, trace_id in zip(entries, written, strict=True):
            entry.result.trace_id = trace_id

    def trace(self, trace_id: str, *, tenant: str | None) -> dict[str, Any] | None:
        """The stored trace ``trace_id`` of ``tenant`` (None: any tenant's), or None.

        Raises:
            StoreUnavailable / StoreNotMigrated: the store cannot answer.
        """
        return self.store.get_trace(trace_id, tenant=tenant)

    def traces(self, limit: int = 20, *, tenant: str | None = None) -> list[TraceSummary]:
        """The newest traces first (at most ``limit``), with their feedback rating."""
        return self.store.list_traces(limit, tenant=tenant)

    def trace_counters(self) -> dict[str, int]:
        """The fail-open trace path's counters (all 0 before the store's first use; no I/O)."""
        counts = self._store.stats() if self._store is not None else {}
        return {key: int(counts.get(key, 0)) for key in TRACE_COUNTERS}

    # --- conversations and feedback -------------------------------------------------
    def previous_subject(self, conversation_id: str, tenant: str) -> PreviousSubject:
        """A conversation's previous subject, fail-open: ``unavailable`` when the store
        cannot be opened or read in time (:meth:`sectio.ops.OpsStore.try_previous_subject`).
        """
        from sectio.ops.records import PreviousSubject

        try:
            store = self.store
        except Exception as exc:  # a bad URL: the question is read on its own
            log.warning("previous subject unreadable: %s", exc)
            return PreviousSubject("unavailable")
        return store.try_previous_subject(conversation_id, tenant=tenant)

    async def previous_subject_on(
        self,
        conversation_id: str,
        tenant: str,
        run: Callable[[Callable[[], PreviousSubject]], Awaitable[PreviousSubject]],
    ) -> PreviousSubject:
        """:meth:`previous_subject` read through ``run`` (the server's store lane), or
        ``unavailable`` at once while the store is marked down (its back-off)."""
        from sectio.ops.records import PreviousSubject

        try:
            store = self.store
        except Exception as exc:  # a bad URL: the question is a first turn
            log.warning("previous subject unreadable: %s", exc)
            return PreviousSubject("unavailable")
        if store.is_down():
            return PreviousSubject("unavailable")
        return await run(lambda: store.try_previous_subject(conversation_id, tenant=tenant))

    def feedback(
        self,
        trace_id: str,
        rating: str,
        *,
        tenant: str | None = None,
        comment: str | None = None,
        conversation_id: str | None = None,
    ) -> Feedback:
        """Rate the answer of ``trace_id`` (``helpful``|``not_helpful``) as ``tenant``.

        One feedback per trace; a second call replaces it. ``tenant`` is the
        caller's resolved tenant (the API key's): another tenant's trace reads
        as unknown (None: the default tenant). See :meth:`sectio.ops.OpsStore.submit_feedback`.

        Raises:
            TraceNotFound: no such trace for ``tenant``.
            InvalidInput: an unknown rating or a comment over 2000 characters.
        """
        return self.store.submit_feedback(
            trace_id,
            rating,
            tenant=self.default_tenant if tenant is None else tenant,
            comment=comment,
            conversation_id=conversation_id,
        )

    # --- upkeep ---------------------------------------------------------------------
    def migrate(self) -> MigrationReport:
        """Create or upgrade the operational store's schema (idempotent).

        Raises:
            StoreUnavailable: the database cannot be reached.
        """
        return self.store.migrate()

    def purge_older_than(self, days: float) -> PurgeReport:
        """Delete traces and turns older than ``days`` days (feedback goes with its trace).

        Raises:
            InvalidInput: negative ``days``.
        """
        return self.store.purge_older_than(days)

    def purge_conversation(self, conversation_id: str, *, tenant: str | None = None) -> PurgeReport:
        """Erase one conversation: its turns, its traces and their feedback (``tenant``:
        only that tenant's rows)."""
        return self.store.purge_conversation(conversation_id, tenant=tenant)

    def apply_retention(self) -> PurgeReport | None:
        """Purge by ``SECTIO_RETENTION_DAYS`` and log what went (None: no period is set).

        The server runs it daily (:meth:`retention_loop`); ``sectio purge --auto`` once.
        """
        from sectio.ops.retention import apply_retention

        return apply_retention(self.store)

    async def retention_loop(self) -> None:
        """:meth:`apply_retention` once a day, forever (the server's background task;
        :func:`sectio.ops.retention.retention_loop`)."""
        from sectio.ops.retention import retention_loop

        await retention_loop(self.apply_retention)
