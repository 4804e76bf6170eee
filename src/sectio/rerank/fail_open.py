"""Fail-open reranking: reordered by the reranker, or the original order on error or timeout."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sectio.contract.diagnostics import RerankStatus
from sectio.rerank.port import DEFAULT_TIMEOUT_S, Reranker

log = logging.getLogger("sectio.retrieve.rerank")

T = TypeVar("T")


@dataclass
class Reranked:
    """Items in their final order and what happened on the way."""

    items: list[Any]
    scores: list[float] | None
    status: RerankStatus = field(default_factory=lambda: RerankStatus(status="off"))

    @property
    def details(self) -> RerankStatus:
        """The status, as ``details.rerank`` shows it (a mapping: ``details["status"]``)."""
        return self.status


def rerank_fail_open(
    reranker: Reranker | None,
    query: str,
    items: Sequence[T],
    texts: Sequence[str],
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> Reranked:
    """``items`` reordered by ``reranker`` scores, or unchanged on error, timeout or no reranker.

    The call runs in a daemon thread so a hung reranker cannot hold the caller
    past ``timeout_s``. ``status.status`` is ``off``, ``ok``, ``error`` or
    ``timeout``.
    """
    if reranker is None:
        return Reranked(list(items), None, RerankStatus(status="off"))
    if not items:
        return Reranked([], [], RerankStatus(status="ok", reranker=reranker.name))
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["scores"] = reranker.rerank(query, list(texts))
        except BaseException as exc:  # any failure fails open
            box["error"] = exc

    started = time.perf_counter()
    thread = threading.Thread(target=work, name="sectio-rerank", daemon=True)
    thread.start()
    thread.join(timeout_s)
    elapsed = round((time.perf_counter() - started) * 1000, 3)
    name = reranker.name
    if thread.is_alive():
        log.warning(
            "reranker %s timed out after %.1f s; original order kept", reranker.name, timeout_s
        )
        status = RerankStatus(reranker=name, ms=elapsed, status="timeout", timeout_s=timeout_s)
        return Reranked(list(items), None, status)
    if "error" in box:
        exc = box["error"]
        log.warning("reranker %s failed (%s); original order kept", reranker.name, exc)
        error = f"{type(exc).__name__}: {exc}"
        return Reranked(
            list(items), None, RerankStatus(reranker=name, ms=elapsed, status="error", error=error)
        )
    scores = list(box.get("scores") or [])
    if len(scores) != len(items):
        return Reranked(
            list(items),
            None,
            RerankStatus(
                reranker=name,
                ms=elapsed,
                status="error",
                error=f"{len(scores)} scores for {len(items)} items",
            ),
        )
    order = sorted(range(len(items)), key=lambda i: (-scores[i], i))
    ok = RerankStatus(reranker=name, ms=elapsed, status="ok")
    return Reranked([items[i] for i in order], [scores[i] for i in order], ok)
