"""What one app shares between its requests, reached through :mod:`sectio.api.deps`.

Serving model (Qdrant Edge): one process owns the shards, and every edge call
holds the GIL. Engine calls therefore run one at a time on a worker thread
(an ``anyio.CapacityLimiter(1)``, :meth:`ApiState.in_engine`): requests queue
instead of blocking the event loop, and ``/healthz`` stays responsive. Two
lanes run beside it: questions are embedded before the engine call and traces
written after it, each on a thread of its own and the work of concurrent
requests in one batch (one model call, one transaction;
:mod:`sectio.api.batching`), so the engine thread only searches. The
operational store is never called from the engine thread: a conversation's
previous subject is read before the engine call, and feedback and traces are
read and written, on a store lane of their own (:meth:`ApiState.in_store`),
under the store's back-off (a hung or locked database slows only the requests
that need it, and only until its first timeout). Nothing here
optimizes or writes to an index. To serve from several processes, use the
Qdrant server adapter (``SECTIO_QDRANT_URL``, see docs/deploy.md).

Background tasks, started with the app: the readiness check every
``SECTIO_READINESS_INTERVAL_S`` seconds, and with ``SECTIO_RETENTION_DAYS`` the
daily purge (:meth:`sectio.engine_ops.Operations.retention_loop`). Their failures are
logged, and the app keeps serving.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import anyio

from sectio.api.auth import KeyRing
from sectio.api.batching import Batcher
from sectio.api.metrics import Metrics
from sectio.api.readiness import Readiness
from sectio.contract.result import RetrievalResult, SearchResult
from sectio.engine import Sectio
from sectio.errors import StoreNotMigrated, StoreUnavailable
from sectio.settings import Settings

if TYPE_CHECKING:
    from sectio.engine_ops import PreviousSubject, TraceEntry

#: Store calls that may run at once (reads of previous subjects, feedback, traces):
#: as many as the pool's default connections, so a hung database holds no more.
STORE_LANE = 4

log = logging.getLogger("sectio.api")
T = TypeVar("T")
R = TypeVar("R", SearchResult, RetrievalResult)


class ApiState:
    """The engine, its single thread, the two batchers, readiness, metrics and the key ring.

    ``owns_engine``: close the engine when the app stops (False for one a test injected).

    Example:
        >>> state = ApiState(settings, Sectio(settings), KeyRing([]))  # doctest: +SKIP
        >>> await state.in_engine(lambda: state.engine.info())  # doctest: +SKIP
    """

    def __init__(
        self, settings: Settings, engine: Sectio, keys: KeyRing, *, owns_engine: bool = True
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.keys = keys
        self.owns_engine = owns_engine
        self.limiter = anyio.CapacityLimiter(1)
        self.store_limiter = anyio.CapacityLimiter(STORE_LANE)
        self.readiness = Readiness(engine, settings)
        self.metrics = Metrics(self.readiness.live_values)
        #: Questions embedded before the engine call, concurrent ones together; the
        #: vectors handed over through the query LRU (without it, nothing to batch).
        self.queries: Batcher[tuple[str, str]] | None = None
        if settings.query_cache_size:  # the embedder is built on first use, not here
            self.queries = Batcher("query", self._prefetch)
        self.traces: Batcher[TraceEntry] = Batcher("trace", engine.ops.record_entries)
        self._tasks: list[asyncio.Task[None]] = []

    def _prefetch(self, items: list[tuple[str, str]]) -> int:
        """Embed ``(tenant, question)`` pairs into the query LRU, each under its tenant."""
        return self.engine.prefetch_queries([q for _, q in items], [t for t, _ in items])

    async def in_engine(self, fn: Callable[[], T]) -> T:
        """Run an engine call on the single engine thread (requests queue, the loop stays free)."""
        return await anyio.to_thread.run_sync(fn, limiter=self.limiter)

    async def in_store(self, fn: Callable[[], T]) -> T:
        """Run a call of the operational store on the store lane, never the engine thread.

        Raises:
            StoreUnavailable: at once while the store is marked down (its back-off),
                or the call's own failure (which then marks it down).
        """
        store = self.engine.ops.store
        if store.is_down():
            raise StoreUnavailable("operational store unavailable; try again shortly")
        try:
            return await anyio.to_thread.run_sync(fn, limiter=self.store_limiter)
        except (StoreUnavailable, StoreNotMigrated):
            store.mark_down()
            raise

    async def previous_subject(self, conversation_id: str, tenant: str) -> PreviousSubject:
        """A conversation's previous subject, read on the store lane (fail-open, under the
        back-off: ``unavailable`` at once while the store is marked down)."""
        return await self.engine.ops.previous_subject_on(
            conversation_id,
            tenant,
            lambda read: anyio.to_thread.run_sync(read, limiter=self.store_limiter),
        )

    async def traced(self, kind: str, result: R, conversation_id: str | None = None) -> R:
        """Write ``result``'s trace with those of concurrent requests; set its ``trace_id``.

        Off the engine thread (a trace write costs ~40% of a repeated search's
        engine time), one transaction per batch. The entry is built here, in the
        request's context (its request id and traceparent), by
        :meth:`sectio.engine_ops.Operations.trace_entry`, as the CLI's
        :meth:`~sectio.engine_ops.Operations.record` builds it. The response
        waits for its trace, so a returned ``trace_id`` names a written trace
        (None: the fail-open write failed), ready for ``/v1/feedback``.
        """
        entry = self.engine.ops.trace_entry(kind, result, conversation_id=conversation_id)
        await self.traces.submit(entry)
        return result

    async def start(self) -> None:
        """Check readiness, load the model, freeze what start-up loaded, start the tasks."""
        await self.in_engine(self.readiness.check)
        try:  # after a failure, no request waits on a database that may not be back
            self.engine.ops.store.background_probe = True
        except Exception as exc:  # a bad URL: traces fail open, as in the library
            log.warning("operational store: %s", exc)
        try:  # load the model now, not on the first request
            await self.in_engine(self.engine.warm_up)
        except Exception as exc:  # the first query will report it
            log.warning("embedder warm-up failed: %s", exc)
        # Everything loaded so far lives as long as the app: keep it out of the
        # collector's scans, so a full collection under load is short.
        gc.collect()
        gc.freeze()
        self._tasks = [asyncio.create_task(self._refresh_forever())]
        if self.settings.retention_days:
            self._tasks.append(asyncio.create_task(self.engine.ops.retention_loop()))

    async def stop(self) -> None:
        """Cancel the tasks; close the engine if the app built it."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        if self.owns_engine:
            await self.in_engine(self.engine.close)

    async def _refresh_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.readiness_interval_s)
            try:
                await self.in_engine(self.readiness.check)
            except Exception:  # logged; the last known state stands until the next check
                log.exception("readiness check failed")
