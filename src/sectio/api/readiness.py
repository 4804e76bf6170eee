"""Readiness: every configured collection must pass the manifest gate before it is served.

``check()`` runs on the engine thread: :meth:`sectio.Sectio.check_collection`
re-reads each manifest and compares it with the configured embedder (the same
gate as every query path). A collection whose manifest changed on disk (a
``--replace`` by another process) is reopened; one that fails the gate is
marked not ready and its requests get 503.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from sectio.api.errors import ApiError
from sectio.engine import Sectio
from sectio.errors import CollectionNotFound, SectioError
from sectio.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class _State:
    ready: bool
    reason: str
    count: int = 0
    manifest: dict[str, Any] | None = None


class Readiness:
    """Per-collection gate status, refreshed by ``check()``."""

    def __init__(self, engine: Sectio, settings: Settings) -> None:
        self.engine = engine
        self.settings = settings
        self._state: dict[str, _State] = {}
        self._checked = False

    def configured(self) -> list[str]:
        """Collections this server serves: ``SECTIO_SERVE_COLLECTIONS`` or all that exist."""
        if self.settings.serve_collections:
            return [n.strip() for n in self.settings.serve_collections.split(",") if n.strip()]
        return self.engine.collection_names()

    def check(self) -> None:
        """Run the gate on every configured collection (engine thread only)."""
        state: dict[str, _State] = {}
        for name in self.configured():
            try:
                found = self.engine.check_collection(name)
            except SectioError as exc:
                state[name] = _State(False, " ".join(str(exc).split()))
                if not isinstance(exc, CollectionNotFound):
                    log.warning("collection %s not ready: %s", name, exc)
                continue
            state[name] = _State(True, "ok", found["count"], found["manifest"])
        self._state = state
        self._checked = True

    def report(self) -> dict[str, Any]:
        """``{"ready": bool, "collections": {name: {"ready", "reason"}}}``."""
        ready = self._checked and bool(self._state) and all(s.ready for s in self._state.values())
        body: dict[str, Any] = {
            "ready": ready,
            "collections": {
                n: {"ready": s.ready, "reason": s.reason} for n, s in self._state.items()
            },
        }
        if self._checked and not self._state:
            body["reason"] = "no collections configured or present; ingest one first"
        elif not self._checked:
            body["reason"] = "starting"
        return body

    def require(self, name: str) -> None:
        """Raise the HTTP error for a collection that is unknown or not ready.

        Raises:
            CollectionNotFound: 404, not served here.
            ApiError: 503 ``collection_not_ready``, with the reason.
        """
        state = self._state.get(name)
        if state is None:
            raise CollectionNotFound(f"no served collection named {name!r}")
        if not state.ready:
            raise ApiError(503, "collection_not_ready", state.reason)

    def summaries(self) -> list[dict[str, Any]]:
        """Name, readiness, total points and a manifest summary per served collection."""
        out = []
        for name, s in sorted(self._state.items()):
            m = s.manifest or {}
            out.append(
                {
                    "name": name,
                    "ready": s.ready,
                    "reason": s.reason,
                    "count": s.count,
                    "model_id": m.get("model_id"),
                    "profile_name": m.get("profile_name"),
                    "chunk_count": m.get("chunk_count"),
                }
            )
        return out

    def detail(self, name: str, tenant: str) -> dict[str, Any] | None:
        """Manifest, total points and the caller's points of one served collection
        (engine thread only); None if it is not served here."""
        state = self._state.get(name)
        if state is None:
            return None
        data: dict[str, Any] = {"name": name, "ready": state.ready, "reason": state.reason}
        if state.ready:
            data.update(self.engine.collection_detail(name, tenant=tenant))
        return data

    def live_values(self) -> dict[str, Any]:
        """Values for /metrics: the library's counters and each collection's size at the
        last check (no engine call: a scrape runs on the event loop)."""
        return {**self.engine.stats(), "collections": {n: s.count for n, s in self._state.items()}}
