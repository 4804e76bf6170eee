"""Automatic retention: the purge ``SECTIO_RETENTION_DAYS`` asks for, once a day.

``sectio purge --auto`` runs :func:`apply_retention` once; the HTTP server
schedules :func:`retention_loop` in its lifespan::

    task = asyncio.create_task(retention_loop(sectio.ops))
    ...
    task.cancel()

Example:
    >>> from sectio.ops.store import OpsStore
    >>> apply_retention(OpsStore("sqlite:////tmp/sectio-doc/r.sqlite3")) is None  # no period set
    True
"""

from __future__ import annotations

import asyncio
import logging

from sectio.ops.records import PurgeReport
from sectio.ops.store import OpsStore

log = logging.getLogger(__name__)

DAY_S = 86_400.0


def apply_retention(store: OpsStore) -> PurgeReport | None:
    """Purge what is older than the store's retention period; None when none is set.

    Raises:
        StoreError: the database failed.
    """
    report = store.apply_retention()
    if report is not None:
        log.info(
            "retention (%s days): deleted %d trace(s), %d turn(s), %d feedback",
            store.retention_days,
            report.traces,
            report.turns,
            report.feedback,
        )
    return report


async def retention_loop(
    store: OpsStore, *, interval_s: float = DAY_S, first_delay_s: float = 60.0
) -> None:
    """Run :func:`apply_retention` every ``interval_s`` seconds until cancelled.

    Each run happens in a worker thread; a failure is logged and retried at
    the next interval. Returns at once if no retention period is set.
    """
    if store.retention_days is None:
        return
    await asyncio.sleep(first_delay_s)
    while True:
        try:
            await asyncio.to_thread(apply_retention, store)
        except Exception:  # logged, retried next interval; the server keeps serving
            log.exception("retention purge failed")
        await asyncio.sleep(interval_s)
