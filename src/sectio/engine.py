"""The Python API: one object holding settings, the embedder, the backend and open collections.

Example:
    >>> from sectio import Sectio, Settings
    >>> s = Sectio(Settings(home="/tmp/sectio-doc", embedder="fake"))  # doctest: +SKIP
    >>> s.ingest("chunks.jsonl", collection="docs")  # doctest: +SKIP
    >>> s.search("aspirin dose", collection="docs").hits[0].doc_id  # doctest: +SKIP
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sectio.context import request_context
from sectio.contract.profile import CorpusProfile, load_profile
from sectio.contract.result import Evidence, RetrievalResult, SearchResult
from sectio.embed.cache import CachedEmbedder
from sectio.embed.factory import build_cached_embedder
from sectio.embed.port import Embedder
from sectio.errors import CollectionNotFound, ConfigError
from sectio.index.collection import Collection, open_collection
from sectio.index.factory import build_backend
from sectio.index.manifest import Manifest, check_serving
from sectio.index.port import IndexBackend
from sectio.ingest.loader import IngestReport, load_records
from sectio.ingest.readers import read_source
from sectio.plan import DocsPlanRoute, RetrievalPlan
from sectio.plan import Route as PlanRoute
from sectio.registry import routes_for
from sectio.retrieve import reads
from sectio.retrieve.facets import Assessment, FacetContext
from sectio.retrieve.fusion import FusionParams
from sectio.retrieve.pipeline import Router
from sectio.retrieve.policy import EvidencePolicy
from sectio.retrieve.reads import TenantGuard
from sectio.retrieve.rerank import Reranker, build_reranker
from sectio.retrieve.search import search as run_search
from sectio.retrieve.search_filters import Filters
from sectio.settings import Settings

if TYPE_CHECKING:  # the operational store (SQLAlchemy) is imported on first use
    from sectio.ops.records import AnyResult, Feedback, TraceEntry
    from sectio.ops.store import OpsStore

DEFAULT_COLLECTION = "default"


class Sectio:
    """The library facade; the CLI and the HTTP API are thin layers over it.

    Not thread-safe: one process owns a Qdrant Edge collection; the HTTP layer
    serialises calls into it.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        embedder: Embedder | None = None,
        backend: IndexBackend | None = None,
        ops: OpsStore | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self._inner_embedder = embedder
        self._embedder: CachedEmbedder | None = None
        self.backend = backend or build_backend(self.settings)
        self._open: dict[str, Collection] = {}
        #: The second tenant check of every read; ``tenant_guard.dropped`` feeds /metrics.
        self.tenant_guard = TenantGuard()
        self._ops = ops
        #: Routed retrieval state per open collection (name catalogs, compiled phrases).
        self._routers: dict[str, Router] = {}
        self._reranker: tuple[Reranker | None, str | None] | None = (
            (reranker, None) if reranker is not None else None
        )

    # --- components -----------------------------------------------------------------
    @property
    def embedder(self) -> CachedEmbedder:
        """The configured embedder behind the on-disk cache (built on first use)."""
        if self._embedder is None:
            self._embedder = build_cached_embedder(self.settings, self._inner_embedder)
        return self._embedder

    def collection(self, name: str = DEFAULT_COLLECTION) -> Collection:
        """An open, gated collection (opened once, kept open)."""
        if name not in self._open:
            self._open[name] = open_collection(self.backend, name, self.embedder)
        return self._open[name]

    def release(self, name: str) -> None:
        """Close ``name`` if it is open (before writing to it)."""
        self._routers.pop(name, None)
        coll = self._open.pop(name, None)
        if coll is not None:
            coll.close()

    def close(self) -> None:
        """Close every open collection and the cache."""
        for name in list(self._open):
            self.release(name)
        if self._embedder is not None:
            self._embedder.close()
            self._embedder = None
        if self._ops is not None:
            self._ops.close()

    def __enter__(self) -> Sectio:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- ingest ---------------------------------------------------------------------
    def ingest(
        self,
        path: str | Path,
        *,
        fmt: str | None = None,
        profile: str | Path | CorpusProfile | None = None,
        collection: str = DEFAULT_COLLECTION,
        replace: bool = False,
        tenant: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> IngestReport:
        """Read, validate and load a source into ``collection``; see :mod:`sectio.ingest.loader`.

        ``tenant`` assigns a BEIR or Markdown source to a tenant (see
        :func:`sectio.ingest.readers.read_source`).
        """
        prof = (
            profile
            if isinstance(profile, CorpusProfile)
            else load_profile(profile if profile is not None else _default_profile(fmt, Path(path)))
        )
        source = Path(path)
        result = read_source(
            source,
            fmt,
            max_tokens=self.settings.chunk_max_tokens,
            count=self.embedder.count_tokens,
            tenant=tenant,
            starts=self.embedder.token_starts,
        )
        if profile is None and result.format == "markdown":
            prof = load_profile("docs")
        self.release(collection)
        return load_records(
            self.backend,
            collection,
            result.records,
            self.embedder,
            prof,
            replace=replace,
            batch_size=self.settings.upsert_batch_size,
            quantization=self.settings.quantization,
            dense_window_tokens=self.settings.dense_window_tokens,
            source=str(source),
            fmt=result.format,
            progress=progress,
        )

    # --- info -----------------------------------------------------------------------
    def info(self, name: str | None = None) -> dict[str, Any]:
        """Collections with their manifests and counts (one collection if ``name``)."""
        names = [name] if name else self.backend.list_collections()
        out: list[dict[str, Any]] = []
        for n in names:
            if not self.backend.exists(n):
                raise CollectionNotFound(f"no collection named {n!r}")
            manifest = self.backend.read_manifest(n)
            count = self.collection(n).index.count() if manifest else self.backend.point_count(n)
            out.append(
                {
                    "name": n,
                    "count": count,
                    "manifest": manifest.model_dump(mode="json", exclude={"profile"})
                    if manifest
                    else None,
                }
            )
        return {"home": str(self.settings.home), "backend": self.backend.kind, "collections": out}

    # --- search ---------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        collection: str = DEFAULT_COLLECTION,
        top_k: int = 10,
        mode: str = "hybrid",
        filters: Filters | None = None,
        tenant: str,
        record: bool = True,
    ) -> SearchResult:
        """Search ``collection`` as ``tenant``: ``hybrid`` (default), ``dense`` or ``lexical``.

        ``top_k`` is clamped to [1, 50] (the result says so); ``filters`` keys are
        ``doc_id``, ``section_key``, ``chunk_kind``, ``tags`` (any of),
        ``metadata.domain``, ``metadata.subdomain`` and ``path`` (prefix). Each
        hit's ``score`` is its dense cosine similarity (0.0 for a lexical-only hit).
        See :mod:`sectio.retrieve.search`. ``record=False`` leaves the trace to the
        caller (:meth:`record`; the server writes it off the engine thread).

        Raises:
            UnknownFilter: an unknown filter key.
            ConfigError: an unknown mode.
        """
        result = run_search(
            self.collection(collection),
            self.embedder,
            query,
            tenant=tenant,
            top_k=top_k,
            mode=mode,
            filters=filters,
            params=FusionParams.from_settings(self.settings),
            guard=self.tenant_guard,
        )
        if record:
            self.record("search", result)
        return result

    # --- tenant-scoped reads (search is one; the routes use sectio.retrieve.reads) ---
    def count(
        self,
        *,
        collection: str = DEFAULT_COLLECTION,
        filters: Filters | None = None,
        tenant: str,
    ) -> int:
        """Chunks of ``tenant`` in ``collection`` matching ``filters`` (search filter keys)."""
        from sectio.retrieve.search_filters import build_where

        return reads.count(self.collection(collection).index, tenant, build_where(filters))

    def chunks(
        self,
        *,
        collection: str = DEFAULT_COLLECTION,
        filters: Filters | None = None,
        tenant: str,
    ) -> list[Evidence]:
        """Every chunk of ``tenant`` matching ``filters``, in (doc, section, part) order.

        With ``filters={"doc_id": D, "section_key": S}`` this is a complete section
        read. ``score`` is 0.0 (nothing was ranked).
        """
        from sectio.retrieve.search_filters import build_where

        points = reads.scroll_all(
            self.collection(collection).index,
            tenant,
            build_where(filters),
            guard=self.tenant_guard,
        )
        points.sort(
            key=lambda p: (
                str(p.payload.get("doc_id")),
                str(p.payload.get("section_key")),
                int(p.payload.get("part_index") or 0),
            )
        )
        return [Evidence.from_payload(p.payload, 0.0, rank=None) for p in points]

    def get(
        self,
        chunk_ids: list[str],
        *,
        collection: str = DEFAULT_COLLECTION,
        tenant: str,
    ) -> list[Evidence]:
        """Chunks by ``chunk_id``, of ``tenant`` only, in the order asked (unknown ids absent)."""
        points = reads.retrieve_chunks(
            self.collection(collection).index, chunk_ids, tenant, guard=self.tenant_guard
        )
        return [Evidence.from_payload(p.payload, 0.0, rank=None) for p in points]

    # --- routed retrieval: ask, lookup, assess --------------------------------------
    def router(self, collection: str = DEFAULT_COLLECTION) -> Router:
        """The routed-retrieval state of ``collection`` (kept while it stays open)."""
        coll = self.collection(collection)
        router = self._routers.get(collection)
        if router is None or router.collection is not coll:
            policy = EvidencePolicy.from_profile(coll.profile)
            if "rerank_timeout_s" not in coll.profile.policy:
                policy = policy.with_overrides(rerank_timeout_s=self.settings.rerank_timeout_s)
            router = Router(
                coll,
                self.embedder,
                routes=routes_for(coll.profile),
                reranker=self._get_reranker,
                policy=policy,
                guard=self.tenant_guard,
                fusion=FusionParams.from_settings(self.settings),
            )
            self._routers[collection] = router
        return router

    def _get_reranker(self) -> tuple[Reranker | None, str | None]:
        """The configured reranker (built once), or the error that kept it from loading."""
        if self._reranker is None:
            try:
                self._reranker = (build_reranker(self.settings), None)
            except Exception as exc:  # fail-open: a broken reranker never breaks ask
                logging.getLogger("sectio.retrieve").warning("reranker unavailable: %s", exc)
                self._reranker = (None, f"{type(exc).__name__}: {exc}")
        return self._reranker

    def ask(
        self,
        question: str,
        *,
        collection: str = DEFAULT_COLLECTION,
        tenant: str,
        doc_id: str | None = None,
        section_key: str | None = None,
        turn_type: str | None = None,
        top_k: int | None = None,
        conversation_id: str | None = None,
        record: bool = True,
    ) -> RetrievalResult:
        """Answer ``question`` with evidence and a decision (:mod:`sectio.retrieve.pipeline`).

        ``doc_id`` / ``section_key`` override what the question names. The
        collection's profile says which routes answer it (``sectio.registry``:
        the section router, or the docs planner). The trace is written
        fail-open (``trace_id``), and with ``conversation_id`` the turn is
        appended to that conversation (``record=False``: neither; the caller
        calls :meth:`record`).

        Raises:
            CollectionNotFound: no such collection.
            ConfigError: an empty question, an unknown ``turn_type``, or one the
                collection's engine cannot honour.
        """
        result = self.router(collection).ask(
            question,
            tenant=tenant,
            doc_id=doc_id,
            section_key=section_key,
            turn_type=turn_type,
            top_k=top_k,
        )
        if record:
            self.record("ask", result, conversation_id=conversation_id)
        return result

    def lookup(
        self,
        phrase: str,
        *,
        collection: str = DEFAULT_COLLECTION,
        tenant: str,
        record: bool = True,
    ) -> RetrievalResult:
        """Reverse lookup: the documents whose lookup section mentions ``phrase``.

        ``record=False`` leaves the trace to the caller (:meth:`record`).

        Raises:
            CollectionNotFound: no such collection.
            ConfigError: an empty phrase.
        """
        result = self.router(collection).lookup(phrase, tenant=tenant)
        if record:
            self.record("lookup", result)
        return result

    def assess(
        self,
        candidates: list[str],
        context: dict[str, str | list[str] | bool] | FacetContext,
        *,
        collection: str = DEFAULT_COLLECTION,
        tenant: str,
    ) -> Assessment:
        """Facet evidence (interaction, warnings, ...) for documents already chosen.

        Absence of a hit is ``INSUFFICIENT_EVIDENCE``, never "safe".

        Raises:
            ConfigError: a facet the collection's profile does not define.
        """
        return self.router(collection).assess(candidates, context, tenant=tenant)

    def plan(
        self, question: str, *, collection: str = DEFAULT_COLLECTION, tenant: str
    ) -> tuple[PlanRoute, RetrievalPlan]:
        """How the docs planner routes ``question`` and the plan it builds (nothing is run).

        Raises:
            CollectionNotFound: no such collection.
            ConfigError: the collection is not answered by the docs planner.
        """
        router = self.router(collection)
        for route in router.routes:
            if isinstance(route, DocsPlanRoute):
                return route.planner.plan(router.scope(tenant), question)
        raise ConfigError(
            f"collection {collection!r} is answered by the {router.collection.profile.engine!r} "
            "engine, not the docs planner"
        )

    # --- operational store ----------------------------------------------------------
    @property
    def ops(self) -> OpsStore:
        """The operational store (traces, turns, feedback); connects on first use."""
        if self._ops is None:
            from sectio.ops.store import OpsStore

            self._ops = OpsStore.from_settings(self.settings)
        return self._ops

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

        Every ``ask``, ``search`` and ``lookup`` calls this once, as its last
        step: ``return`` after ``self.record("ask", result, conversation_id=...)``.
        Tenant, query, route, decision and intent are read from ``result`` (the
        values retrieval resolved). With ``conversation_id`` (``ask
        --conversation ID``), the user's line and a one-line summary of the
        answer are appended to that conversation with the trace, in one
        transaction.

        Fail-open: if the store is unreachable, slow (bounded by
        ``SECTIO_DB_CONNECT_TIMEOUT_S``/``SECTIO_DB_STATEMENT_TIMEOUT_S``) or
        unmigrated, the failure is logged and counted in
        ``self.ops.trace_write_failures`` and ``trace_id`` stays None.
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
        """The trace :meth:`record` would write, its ids taken from the current request now.

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
            store = self.ops
        except Exception as exc:  # a bad URL must not break retrieval either
            logging.getLogger("sectio.ops").warning("trace not written: %s", exc)
            return
        for entry, trace_id in zip(entries, store.try_record_traces(entries), strict=True):
            entry.result.trace_id = trace_id

    def feedback(
        self,
        trace_id: str,
        rating: str,
        *,
        tenant: str,
        comment: str | None = None,
        conversation_id: str | None = None,
    ) -> Feedback:
        """Rate the answer of ``trace_id`` (``helpful``|``not_helpful``) as ``tenant``.

        One feedback per trace; a second call replaces it. ``tenant`` is the
        caller's resolved tenant (the API key's): another tenant's trace reads
        as unknown. See :meth:`sectio.ops.OpsStore.submit_feedback`.

        Raises:
            TraceNotFound: no such trace for ``tenant``.
            InvalidInput: an unknown rating or a comment over 2000 characters.
        """
        return self.ops.submit_feedback(
            trace_id, rating, tenant=tenant, comment=comment, conversation_id=conversation_id
        )

    # --- snapshots ------------------------------------------------------------------
    def snapshot(self, out_file: str | Path, *, collection: str = DEFAULT_COLLECTION) -> Manifest:
        """Write ``collection`` (flushed shard + manifest + checksums) to one file."""
        self.release(collection)
        return self.backend.snapshot(collection, Path(out_file))

    def restore(self, in_file: str | Path, *, collection: str = DEFAULT_COLLECTION) -> Manifest:
        """Restore a snapshot as ``collection`` after checking checksums and the manifest gate."""
        self.release(collection)
        embedder = self.embedder

        def verify(manifest: Manifest) -> None:
            check_serving(manifest, collection, embedder.model_id, embedder.dimensions)

        return self.backend.restore(Path(in_file), collection, verify=verify)


def _default_profile(fmt: str | None, path: Path) -> str:
    if fmt == "markdown" or (
        fmt is None and path.is_dir() and not (path / "corpus.jsonl").exists()
    ):
        return "docs"
    return "generic"
