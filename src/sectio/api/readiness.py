"""Readiness: every configured collection must pass the manifest gate before it is served.

``check()`` runs on the engine thread: :meth:`sectio.Sectio.check_collection`
re-reads each manifest and compares it with the configured embedder (the same
gate as every query path). A collection whose manifest changed on disk (a
``--replace`` by another process) is reopened; one that fails the gate is
marked not ready and its requests get 503.

What callers see is scoped: a reason never shows a filesystem path (the
configured home reads ``$SECTIO_HOME``, any other absolute path ``<path>``)
unless ``/readyz?verbose=true`` is asked with a valid key; a tenant sees its
own chunk count and a manifest without the corpus-wide fields (source path,
chunk count, corpus sha256, BM25 statistics).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sectio.api.errors import ApiError
from sectio.engine import Sectio
from sectio.errors import CollectionNotFound, SectioError
from sectio.settings import Settings

log = logging.getLogger(__name__)

#: Manifest fields a tenant may see: how the collection is built, nothing about the
#: corpus as a whole (other tenants' data counts in its size, hash and statistics).
TENANT_MANIFEST_FIELDS = (
    "collection",
    "model_id",
    "provider",
    "dimensions",
    "input_kind",
    "max_length",
    "distance",
    "profile_name",
    "index_text",
    "quantization",
    "dense_window_tokens",
    "sectio_version",
    "created_at",
)
_ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~])/(?:[^\s/:'\"]+/)*[^\s/:'\",;)]+")


def redact_paths(text: str, home: str) -> str:
    """``text`` with ``home`` (as given and as resolved) as ``$SECTIO_HOME`` and every
    other absolute path as ``<path>``.

    Example:
        >>> redact_paths("cannot open /srv/h/collections/x: at /etc/passwd", "/srv/h")
        'cannot open $SECTIO_HOME/collections/x: at <path>'
    """
    for form in sorted({home, str(Path(home).resolve())}, key=len, reverse=True):
        if form and form not in (".", "/"):
            text = text.replace(form, "$SECTIO_HOME")
    return _ABSOLUTE_PATH.sub("<path>", text)


@dataclass
class _State:
    ready: bool
    reason: str
    count: int = 0
    manifest: dict[str, Any] | None = None
    #: Tenants whose points are not what the manifest says (:mod:`sectio.ingest.health`).
    tenants_not_ready: dict[str, str] = field(default_factory=dict)


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
            waiting = dict(found.get("tenants_not_ready") or {})
            for tenant, why in waiting.items():
                log.warning("collection %s: tenant %s not ready: %s", name, tenant, why)
            state[name] = _State(True, "ok", found["count"], found["manifest"], waiting)
        self._state = state
        self._checked = True

    def _reason(self, reason: str, verbose: bool = False) -> str:
        return reason if verbose else redact_paths(reason, str(self.settings.home))

    def report(self, verbose: bool = False) -> dict[str, Any]:
        """``{"ready": bool, "collections": {name: {"ready", "reason"}}}``; reasons
        without filesystem paths unless ``verbose`` (the caller showed a valid key)."""
        ready = self._checked and bool(self._state) and all(s.ready for s in self._state.values())
        body: dict[str, Any] = {
            "ready": ready,
            "collections": {n: self._entry(s, verbose) for n, s in self._state.items()},
        }
        if self._checked and not self._state:
            body["reason"] = "no collections configured or present; ingest one first"
        elif not self._checked:
            body["reason"] = "starting"
        return body

    def _entry(self, state: _State, verbose: bool) -> dict[str, Any]:
        """One collection in :meth:`report`: ready, reason, and (when any) the tenants not
        ready, each with why (the collection's other tenants are served)."""
        entry: dict[str, Any] = {
            "ready": state.ready,
            "reason": self._reason(state.reason, verbose),
        }
        if state.tenants_not_ready:
            entry["tenants_not_ready"] = {
                t: self._reason(why, verbose) for t, why in state.tenants_not_ready.items()
            }
        return entry

    def require(self, name: str, tenant: str | None = None) -> None:
        """Raise the HTTP error for a collection that is unknown or not ready (for ``tenant``:
        one whose points are mid-change is not served; the others are).

        Raises:
            CollectionNotFound: 404, not served here.
            ApiError: 503 ``collection_not_ready``, with the reason (paths redacted).
        """
        state = self._state.get(name)
        if state is None:
            raise CollectionNotFound(f"no served collection named {name!r}")
        if not state.ready:
            raise ApiError(503, "collection_not_ready", self._reason(state.reason))
        why = state.tenants_not_ready.get(tenant) if tenant is not None else None
        if why is not None:
            raise ApiError(
                503, "collection_not_ready", f"tenant {tenant!r} is not ready: {self._reason(why)}"
            )

    def summaries(self, tenant: str) -> list[dict[str, Any]]:
        """Name, readiness, ``tenant``'s chunk count and a manifest summary per served
        collection, by name (engine thread only: the counts are engine calls)."""
        out = []
        for name, s in sorted(self._state.items()):
            m = s.manifest or {}
            out.append(
                {
                    "name": name,
                    "ready": s.ready,
                    "reason": self._reason(s.reason),
                    "count": self.engine.count(collection=name, tenant=tenant) if s.ready else 0,
                    "model_id": m.get("model_id"),
                    "profile_name": m.get("profile_name"),
                }
            )
        return out

    def detail(self, name: str, tenant: str) -> dict[str, Any] | None:
        """One served collection as ``tenant`` sees it: readiness, its own chunk count and
        the manifest's :data:`TENANT_MANIFEST_FIELDS` (engine thread only); None if it
        is not served here."""
        state = self._state.get(name)
        if state is None:
            return None
        data: dict[str, Any] = {
            "name": name,
            "ready": state.ready,
            "reason": self._reason(state.reason),
            "tenant": tenant,
        }
        if state.ready:
            manifest = state.manifest or {}
            own = self.engine.count(collection=name, tenant=tenant)
            # ``tenant_count``: the same number under its earlier name (clients read it)
            data["count"] = data["tenant_count"] = own
            data["manifest"] = {k: manifest[k] for k in TENANT_MANIFEST_FIELDS if k in manifest}
        return data

    def live_values(self) -> dict[str, Any]:
        """Values for /metrics: the library's counters and each collection's size at the
        last check (no engine call: a scrape runs on the event loop)."""
        return {**self.engine.stats(), "collections": {n: s.count for n, s in self._state.items()}}
