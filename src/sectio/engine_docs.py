"""The document half of the :class:`sectio.Sectio` facade (a mixin): upsert, delete, sync.

Each write is three steps (:mod:`sectio.ingest.lifecycle`), which the HTTP admin
endpoints run apart so that searches keep being answered while a document is
embedded: :meth:`DocumentsFacade.plan_documents` (reads the collection; any
pending journal entry finished first), :meth:`DocumentsFacade.prepare_documents`
(embedding; no index access) and :meth:`DocumentsFacade.apply_documents`
(the writer lock, the journal, the points, the manifest; then what this process
derived from the collection is rebuilt on its next read: routing vocabulary,
document-name resolver, fusion and answerability calibration). The CLI and the
Python API call :meth:`DocumentsFacade.upsert`, :meth:`DocumentsFacade.delete`
and :meth:`DocumentsFacade.sync`, the three in one.

A collection that does not exist yet, or a tenant it does not hold, is loaded
as ``ingest`` loads it (a new tenant joins under the journal: a crash never
leaves it half-served).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sectio.contract.names import DEFAULT_COLLECTION, check_collection_name
from sectio.errors import CollectionNotFound
from sectio.settings import Settings

if TYPE_CHECKING:
    from sectio.contract.profile import CorpusProfile
    from sectio.contract.record import ChunkRecord
    from sectio.embed.cache import CachedEmbedder
    from sectio.index.collection import Collection
    from sectio.index.manifest import Manifest
    from sectio.index.port import IndexBackend, VectorIndex, WriteSize
    from sectio.ingest.lifecycle import DocumentPlan, DocumentReport, Prepared
    from sectio.ingest.loader import IngestReport
    from sectio.ingest.phases import PhaseClock
    from sectio.ingest.readers import ReadResult
    from sectio.retrieve.pipeline import Router
    from sectio.retrieve.reads import TenantGuard


#: Writes adding up to this share of a tenant's points re-measure the collection's
#: calibrations.
RECALIBRATE_FRACTION = 0.05


class DocumentsFacade:
    """Document writes on a live collection; :class:`sectio.Sectio` sets the attributes.

    Example:
        >>> with Sectio(Settings(home="/tmp/sectio-doc", embedder="fake")) as s:  # doctest: +SKIP
        ...     s.ingest("labels/")
        ...     s.upsert("labels/aspirin.jsonl").counts
        {'added': 0, 'changed': 1, 'deleted': 0, 'unchanged': 0}
    """

    settings: Settings
    tenant_guard: TenantGuard
    _open: dict[str, Collection]
    _routers: dict[str, Router]

    if TYPE_CHECKING:  # provided by Sectio

        @property
        def backend(self) -> IndexBackend: ...

        @property
        def embedder(self) -> CachedEmbedder: ...

        def _read(
            self,
            source: Path,
            fmt: str | None,
            profile: str | Path | CorpusProfile | None,
            tenant: str | None,
            clock: PhaseClock,
        ) -> tuple[ReadResult, CorpusProfile | None]: ...

        def _write_size(
            self, collection: str, records: Sequence[ChunkRecord], replace: bool
        ) -> WriteSize: ...

        def ingest(
            self,
            path: str | Path,
            *,
            fmt: str | None = None,
            profile: str | Path | CorpusProfile | None = None,
            collection: str = DEFAULT_COLLECTION,
            replace: bool = False,
            tenant: str | None = None,
            progress: Callable[[str, int, int], None] | None = None,
        ) -> IngestReport: ...

        def release(self, name: str) -> None: ...

        def window_tokens(self) -> int: ...

    # --- the three in one -------------------------------------------------------------
    def upsert(
        self,
        path: str | Path,
        *,
        collection: str = DEFAULT_COLLECTION,
        tenant: str | None = None,
        fmt: str | None = None,
    ) -> DocumentReport:
        """Add the documents ``path`` holds and replace those it holds again (by doc id);
        unchanged ones cost nothing. See :mod:`sectio.ingest.lifecycle`.

        Raises:
            ContractError: an invalid source, several tenants in it, a chunk id of
                another document.
            CollectionBusy: another process writes (or serves) the collection.
        """
        return self._document_write("upsert", path, collection, tenant, fmt, ())

    def sync(
        self,
        path: str | Path,
        *,
        collection: str = DEFAULT_COLLECTION,
        tenant: str | None = None,
        fmt: str | None = None,
    ) -> DocumentReport:
        """Make ``tenant`` of ``collection`` equal to ``path``: upsert what changed, delete
        what it no longer holds (``ingest --sync``).

        Raises:
            ContractError: as :meth:`upsert`.
            CollectionBusy: another process writes (or serves) the collection.
        """
        return self._document_write("sync", path, collection, tenant, fmt, ())

    def delete(
        self,
        doc_ids: Sequence[str],
        *,
        collection: str = DEFAULT_COLLECTION,
        tenant: str | None = None,
    ) -> DocumentReport:
        """Remove documents (every chunk of each) from ``tenant`` of ``collection``.

        Raises:
            ContractError: a document the tenant does not hold (nothing is removed).
            CollectionNotFound: no such collection.
        """
        return self._document_write("delete", None, collection, tenant, None, tuple(doc_ids))

    def _document_write(
        self,
        action: str,
        path: str | Path | None,
        collection: str,
        tenant: str | None,
        fmt: str | None,
        doc_ids: tuple[str, ...],
    ) -> DocumentReport:
        from sectio.ingest.lifecycle import one_tenant
        from sectio.ingest.phases import PhaseClock

        check_collection_name(collection)
        started = time.perf_counter()
        clock = PhaseClock()
        records: Sequence[ChunkRecord] = ()
        if path is not None:
            with clock.phase("read"):
                records = self._read(Path(path), fmt, None, tenant, clock)[0].records
        who = one_tenant(records, tenant)
        if path is not None and not self._holds_tenant(collection, who):
            profile = self._profile_of(collection)  # a joining tenant keeps the collection's
            loaded = self.ingest(
                path, fmt=fmt, profile=profile, collection=collection, tenant=tenant
            )
            return _as_document_report(loaded, who, records, action)
        plan = self.plan_documents(collection, who, records, action=action, doc_ids=doc_ids)
        prepared = self.prepare_documents(plan, clock)
        return self.apply_documents(prepared, clock, started=started)

    # --- records given as data (the HTTP admin endpoints) -----------------------------
    def read_records(
        self, path: str | Path, *, fmt: str | None = None, tenant: str | None = None
    ) -> list[ChunkRecord]:
        """The chunk records a source holds, read and validated as ``ingest`` reads them
        (what a CLI write sends to the server that holds the collection).

        Raises:
            ContractError: an invalid source.
        """
        from sectio.ingest.phases import PhaseClock

        return list(self._read(Path(path), fmt, None, tenant, PhaseClock())[0].records)

    def holds_tenant(self, collection: str, tenant: str) -> bool:
        """Whether ``collection`` exists and its manifest lists ``tenant``."""
        return self._holds_tenant(collection, tenant)

    def warm_records(self, records: Sequence[ChunkRecord]) -> None:
        """Embed ``records`` into the vector cache (no index access: any thread may run
        it), so that a load of them on the engine thread finds every vector cached."""
        from sectio.ingest.embedding import embed_records
        from sectio.ingest.phases import PhaseClock

        texts = [r.index_text() for r in records]
        embed_records(
            records,
            texts,
            self.embedder,
            PhaseClock(),
            batch_size=self.settings.upsert_batch_size,
            dense_window_tokens=self.window_tokens(),
        )

    def load_records(
        self,
        records: Sequence[ChunkRecord],
        *,
        collection: str,
        tenant: str,
        replace: bool,
        action: str,
    ) -> DocumentReport:
        """Load ``records`` as ``ingest`` loads a source (a tenant's first load, or with
        ``replace`` its new version built beside and switched), reported as a document
        write. The records pass through a JSON Lines file under the home's ``tmp``.

        Raises:
            ContractError, CorpusMismatch: as :meth:`sectio.Sectio.ingest`.
        """
        import json
        import tempfile

        tmp_root = self.settings.home / "tmp"
        tmp_root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=tmp_root) as folder:
            source = Path(folder) / "records.jsonl"
            with source.open("w", encoding="utf-8") as fh:
                for record in records:
                    fh.write(json.dumps(record.payload(), ensure_ascii=False) + "\n")
            # chunk records carry their tenant (``ingest``'s --tenant is for other formats)
            loaded = self.ingest(
                source,
                fmt="chunks",
                profile=self._profile_of(collection),
                collection=collection,
                replace=replace,
            )
        return _as_document_report(loaded, tenant, records, action)

    def _profile_of(self, collection: str) -> CorpusProfile | None:
        """The profile ``collection`` was loaded with (a joining tenant keeps it)."""
        from sectio.contract.profile import profile_from_dict

        manifest = (
            self.backend.read_manifest(collection) if self.backend.exists(collection) else None
        )
        return profile_from_dict(manifest.profile) if manifest and manifest.profile else None

    def settle_pending(self, collection: str | None = None) -> dict[str, str]:
        """Finish or undo every interrupted document write or tenant addition (of
        ``collection``, default all); returns what was done, by collection (``sectio gc``).

        Raises:
            CollectionBusy: another process writes (or serves) a collection named.
        """
        from sectio.index.port import Journaled
        from sectio.ingest import journal

        backend = self.backend
        if not isinstance(backend, Journaled):
            return {}
        done = {}
        for name in [collection] if collection else backend.list_collections():
            if backend.exists(name) and backend.read_journal(name) is not None:
                self.release(name)
                with backend.writing(name, "gc"):
                    outcome = journal.settle(backend, name)
                if outcome:
                    done[name] = outcome
        return done

    def tenant_health(self, name: str, manifest: Manifest | None, count: int) -> dict[str, Any]:
        """``{"tenants_ready", "tenants_not_ready"}`` of ``name`` (see
        :mod:`sectio.ingest.health`): what ``info`` and the readiness check add."""
        from sectio.ingest.health import health_json, tenants_not_ready

        coll = self._open.get(name)
        index = coll.index if coll is not None else None
        return health_json(tenants_not_ready(self.backend, name, manifest, count, index))

    def _holds_tenant(self, collection: str, tenant: str) -> bool:
        if not self.backend.exists(collection):
            return False
        manifest = self.backend.read_manifest(collection)
        return manifest is not None and tenant in manifest.tenants

    # --- the steps --------------------------------------------------------------------
    def plan_documents(
        self,
        collection: str,
        tenant: str,
        records: Sequence[ChunkRecord],
        *,
        action: str,
        doc_ids: Sequence[str] = (),
    ) -> DocumentPlan:
        """Step 1: decide the write (reads only; a pending journal entry is finished first).

        Raises:
            CollectionNotFound: no such collection.
            ContractError, CorpusMismatch: see :func:`sectio.ingest.lifecycle.plan_documents`.
        """
        from sectio.ingest import journal, lifecycle

        backend = self.backend
        if not backend.exists(collection):
            raise CollectionNotFound(f"no collection named {collection!r}; ingest one first")
        with self._live_index(collection) as index:
            if _journal_pending(backend, collection):
                with backend.writing(collection, action):
                    journal.settle(backend, collection, index)
            manifest = backend.read_manifest(collection)
            if manifest is None:
                raise CollectionNotFound(f"collection {collection!r} has no manifest")
            return lifecycle.plan_documents(
                index, manifest, tenant, records, action=action, doc_ids=doc_ids
            )

    def prepare_documents(self, plan: DocumentPlan, clock: PhaseClock | None = None) -> Prepared:
        """Step 2: embed the plan's chunks (no index access: any thread may run it)."""
        from sectio.ingest.lifecycle import prepare
        from sectio.ingest.phases import PhaseClock

        return prepare(
            plan, self.embedder, clock or PhaseClock(), batch_size=self.settings.upsert_batch_size
        )

    def apply_documents(
        self, prepared: Prepared, clock: PhaseClock | None = None, *, started: float | None = None
    ) -> DocumentReport:
        """Step 3: write it under the collection's writer lock; refresh what was derived.

        Raises:
            CorpusMismatch: the collection changed since the plan was made.
            CollectionBusy: another process writes the collection.
            InsufficientSpace: the write does not fit.
        """
        from sectio.ingest import lifecycle
        from sectio.ingest.phases import PhaseClock

        clock = clock or PhaseClock()
        plan = prepared.plan
        name = plan.name
        size = self._write_size(name, plan.records, False)
        writing = self.backend.writing(name, plan.action, size if plan.records else None)
        with writing, self._live_index(name) as index:
            count = lifecycle.apply(self.backend, index, prepared, clock)
        if not plan.empty:
            self._refresh(name, plan.tenant, len(prepared.points) + len(plan.delete))
        begun = time.perf_counter() if started is None else started
        return lifecycle.report(prepared, count, begun, clock)

    def _live_index(self, name: str) -> _LiveIndex:
        """The collection's index: the open one when this process serves it (an edge shard
        opens in one place at a time), else opened for the block and closed after."""
        coll = self._open.get(name)
        return _LiveIndex(self.backend, name, coll.index if coll is not None else None)

    def _refresh(self, name: str, tenant: str, changed: int) -> None:
        """After a write of ``changed`` points of ``tenant``: the router is rebuilt on next
        use (routing vocabulary, document-name resolver), and the open collection takes the
        new manifest.

        The calibrations measured on the collection (fusion, answerability: statistics over
        a tenant's points, re-measured for a new collection object) are measured again once
        the writes to a tenant since they were add up to :data:`RECALIBRATE_FRACTION` of its
        points: then the collection becomes a new object. A smaller write keeps them (one document
        of thousands barely moves a ratio over the tenant, and measuring again cost
        0.2-0.35 s of engine time on the next hybrid search at 3,000 points).
        """
        from dataclasses import replace

        coll = self._open.get(name)
        self._routers.pop(name, None)
        manifest = self.backend.read_manifest(name)
        if coll is None or manifest is None:
            return
        drift: dict[tuple[str, str], int] = self.__dict__.setdefault("_write_drift", {})
        key = (name, tenant)
        drift[key] = drift.get(key, 0) + changed
        held = int((manifest.tenants.get(tenant) or {}).get("chunk_count") or 0)
        if drift[key] >= RECALIBRATE_FRACTION * max(1, held):
            for other in [k for k in drift if k[0] == name]:
                drift[other] = 0
            self._open[name] = fresh = replace(coll, manifest=manifest)
            self._store_calibration(fresh, tenant)
        else:
            coll.manifest = manifest

    def _store_calibration(self, coll: Collection, tenant: str) -> None:
        """The stored answerability calibration follows the write that re-measures
        (:func:`sectio.retrieve.calibration.refresh_tenants`: measured again when stale)."""
        from sectio.retrieve.calibration import refresh_tenants
        from sectio.retrieve.policy import EvidencePolicy
        from sectio.retrieve.scope import ReadScope

        scope = ReadScope(coll, tenant, self.tenant_guard, EvidencePolicy(), self.embedder)
        refresh_tenants([scope])


def _journal_pending(backend: IndexBackend, name: str) -> bool:
    from sectio.index.port import Journaled

    return isinstance(backend, Journaled) and backend.read_journal(name) is not None


class _LiveIndex:
    """A context manager lending the live index (see :meth:`DocumentsFacade._live_index`)."""

    def __init__(self, backend: IndexBackend, name: str, index: VectorIndex | None) -> None:
        self._backend, self._name, self._given = backend, name, index
        self._own: VectorIndex | None = None

    def __enter__(self) -> VectorIndex:
        if self._given is not None:
            return self._given
        self._own = self._backend.open(self._name)
        return self._own

    def __exit__(self, *exc: object) -> None:
        if self._own is not None:
            self._own.close()
            self._own = None


def _as_document_report(
    loaded: IngestReport, tenant: str, records: Sequence[ChunkRecord], action: str
) -> DocumentReport:
    """A first load (a new collection or tenant) reported as a document write."""
    from sectio.ingest.doc_hashes import group_by_document
    from sectio.ingest.lifecycle import DocumentReport

    docs = tuple(sorted(group_by_document(records)))
    return DocumentReport(
        collection=loaded.collection,
        tenant=tenant,
        action=action,
        added=docs if loaded.upserted else (),
        changed=(),
        deleted=(),
        unchanged=0 if loaded.upserted else len(docs),
        upserted=loaded.upserted,
        removed=0,
        collection_count=loaded.collection_count,
        embeddings_computed=loaded.embeddings_computed,
        embeddings_cached=loaded.embeddings_cached,
        seconds=loaded.seconds,
        phases=dict(loaded.phases),
    )


def served_url(settings: Settings) -> str | None:
    """The URL of the live ``sectio serve`` holding ``settings``' embedded store, or None
    (none runs, it registered none, or the store is a Qdrant server: write directly)."""
    if settings.qdrant_url:
        return None
    from sectio.index.edge.locks import registered_server

    return registered_server(settings.collections_dir)


def register_served(settings: Settings, url: str) -> None:
    """Record that this process (holding the serve lock) answers HTTP at ``url``, so
    that document writes from other processes are sent to it (the embedded store only)."""
    if settings.qdrant_url is None:
        from sectio.index.edge.locks import register_server

        register_server(settings.collections_dir, url)


def document_report(data: dict[str, Any]) -> DocumentReport:
    """A document write's report read back from its JSON form (a server's answer)."""
    from sectio.ingest.lifecycle import DocumentReport

    return DocumentReport.from_dict(data)


__all__ = [
    "RECALIBRATE_FRACTION",
    "DocumentsFacade",
    "document_report",
    "register_served",
    "served_url",
]
