"""Coalesce the work of concurrent requests into one call on a lane of its own.

Two kinds of per-request work cost about as much for a few requests as for one,
and need not hold the engine thread:

* **query vectors**: the server embeds questions *before* the engine call,
  concurrent ones in one model call; the vectors land in the query LRU
  (:meth:`sectio.embed.cache.CachedEmbedder.prefetch_queries`), where each
  request's engine call finds its own;
* **traces**: written *after* the engine call, concurrent ones in one
  transaction (:meth:`sectio.engine.Sectio.record_entries`). The response
  waits for its trace, so a returned ``trace_id`` names a written trace.

A :class:`Batcher` runs one batch at a time: an item arriving while a batch
runs joins the next one; an idle server runs a lone item at once (no added
wait). A failing batch never decides a request's outcome: it is logged, and
the request goes on (a query's engine call embeds it again and reports the
error; traces are fail-open).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Generic, TypeVar

import anyio

log = logging.getLogger("sectio.api")
T = TypeVar("T")


class Batcher(Generic[T]):
    """Runs ``work(items)`` on its own thread for the items submitted meanwhile.

    Order: batches run in arrival order, one at a time, each holding at most
    ``max_batch`` items, first come first served.
    """

    def __init__(self, name: str, work: Callable[[list[T]], object], max_batch: int = 16) -> None:
        if max_batch < 1:
            raise ValueError("max_batch must be >= 1")
        self.name = name
        self._work = work
        self._max_batch = max_batch
        self._pending: list[tuple[T, asyncio.Future[None]]] = []
        self._worker: asyncio.Task[None] | None = None
        self._limiter = anyio.CapacityLimiter(1)
        #: Sizes of the batches run so far (for tests and tuning; the first 10,000).
        self.batch_sizes: list[int] = []

    async def submit(self, item: T) -> None:
        """Return once the batch holding ``item`` has run (or failed)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((item, future))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._drain())
        await asyncio.shield(future)

    async def _drain(self) -> None:
        while self._pending:
            batch = self._pending[: self._max_batch]
            del self._pending[: self._max_batch]
            items = [item for item, _ in batch]
            try:
                await anyio.to_thread.run_sync(self._work, items, limiter=self._limiter)
            except Exception as exc:
                log.warning("%s batch of %d failed: %s", self.name, len(items), exc)
            if len(self.batch_sizes) < 10_000:
                self.batch_sizes.append(len(items))
            for _, future in batch:
                if not future.done():
                    future.set_result(None)
