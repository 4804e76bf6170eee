"""Automatic retention: the purge ``SECTIO_RETENTION_DAYS`` asks for, once a day.

``sectio purge --auto`` runs :func:`apply_retention` once (through
:meth:`sectio.Sectio.apply_retention`); the HTTP server schedules
:func:`retention_loop` in its lifespan::

    task = asyncio.create_task(retention_loop(sectio.ops.apply_retention))
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
from collections.abc import Callable

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
    purge: Callable[[], PurgeReport | None],
    *,
    interval_s: float = DAY_S,
    first_delay_s: float = 60.0,
) -> None:
    """Run ``purge`` (an :func:`apply_retention`) every ``interval_s`` seconds until cancelled.

    The first run comes ``first_delay_s`` after the start (not during a
    server's start-up). Each run happens in a worker thread; a failure is
    logged with its traceback and retried at the next interval. Returns once
    ``purge`` answers None (no retention period is set).
    """
    await asyncio.sleep(first_delay_s)
    while True:
        try:
            report = await asyncio.to_thread(purge)
        except Exception:  # logged, retried next interval; the server keeps serving
            log.exception("retention purge failed; retrying in %.0f s", interval_s)
        else:
            if report is None:
                return
        await asyncio.sleep(interval_s)
