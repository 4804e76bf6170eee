"""The Python API: one object holding settings, the embedder, the backend and open collections.

Its operational store (traces, feedback, migrations, retention) is the
``ops`` attribute (:class:`sectio.engine_ops.Operations`); its document writes
(upsert, delete, sync) come from :mod:`sectio.engine_docs`, mixed into
:class:`Sectio`.

Example (the README's "From Python" section runs the same in a test):
    >>> import json, tempfile, pathlib
    >>> from sectio import Sectio, Settings
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> row = {"chunk_id": "a#w#0", "doc_id": "aspirin", "section_key": "warnings",
    ...        "part_index": 0, "text": "May cause bleeding.", "source_refs": [{"source": "label"}]}
    >>> _ = (d / "c.jsonl").write_text(json.dumps(row) + chr(10))
    >>> with Sectio(Settings(home=d / "home", embedder="fake")) as s:
    ...     _ = s.ingest(d / "c.jsonl")
    ...     hit = s.search("bleeding").hits[0]
    >>> hit.doc_id, hit.source_refs[0].source
    ('aspirin', 'label')
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sectio import telemetry
from sectio.context import query_scope
from sectio.contract.diagnostics import ConversationReport, FusionReliability
from sectio.contract.names import DEFAULT_COLLECTION, check_collection_name
from sectio.engine_docs import DocumentsFacade
from sectio.engine_ops import Operations
from sectio.errors import CollectionNotFound, ConfigError, SectioError
from sectio.index.factory import build_backend
from sectio.index.manifest import Manifest, assert_compatible, check_serving
from sectio.index.port import IndexBackend, LocalStore, WriteSize
from sectio.retrieve import reads
from sectio.retrieve.reads import TenantGuard
from sectio.retrieve.search_filters import Filters, build_where, search_layers
from sectio.settings import Settings

# What a command may not need is imported where it is used: ``sectio info`` reads
# manifests and counts (the store), not the routes, the planner, ingest or the model.
if TYPE_CHECKING:
    from sectio.contract.profile import CorpusProfile
    from sectio.contract.record import ChunkRecord
    from sectio.contract.request import AskRequest
    from sectio.contract.result import Evidence, RetrievalResult, SearchResult
    from sectio.embed.cache import CachedEmbedder
    from sectio.embed.port import Embedder
    from sectio.index.collection import Collection
    from sectio.index.copy import TransferReport
    from sectio.ingest.loader import IngestReport
    from sectio.ingest.phases import PhaseClock
    from sectio.ingest.readers import ReadResult
    from sectio.ops.records import PreviousSubject
    from sectio.ops.store import OpsStore
    from sectio.plan import DocsIntent, RetrievalPlan
    from sectio.rerank import Reranker
    from sectio.retrieve.calibration import FusionCalibration
    from sectio.retrieve.facets import Assessment, FacetContext
    from sectio.retrieve.fusion import FusionParams
    from sectio.retrieve.pipeline import Pipeline
    from sectio.retrieve.scope import ReadScope

#: The tenant of records that name none, and of a single-tenant library's reads.
DEFAULT_TENANT = "default"
#: A read's result (:meth:`Sectio._call`).
R = TypeVar("R", "RetrievalResult", "SearchResult")


class Sectio(DocumentsFacade):
    """The library facade; the CLI and the HTTP API are thin layers over it.

    Single-tenant use needs no tenant: reads default to ``tenant`` (``"default"``,
    the tenant of records that name none); the HTTP layer always passes the API
    key's tenant. Retrieval writes no trace unless asked: ``write_traces=True``
    (what the CLI passes) or ``record=True`` on a call; ``SECTIO_TRACES=false``
    turns every trace off.

    Traces, feedback and the operational store's upkeep are ``ops``
    (:class:`~sectio.engine_ops.Operations`: ``s.ops.feedback(...)``,
    ``s.ops.migrate()``).

    Not thread-safe: one process owns a Qdrant Edge collection; the HTTP layer
    serialises calls into it. Exceptions: :meth:`stats` (counters only),
    :meth:`prefetch_queries` and ``ops`` (trace writes and the store's
    methods), which the server runs on threads of their own.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        embedder: Embedder | None = None,
        backend: IndexBackend | None = None,
        ops: OpsStore | None = None,
        reranker: Reranker | None = None,
        tenant: str = DEFAULT_TENANT,
        write_traces: bool = False,
    ) -> None:
        self.settings = settings or Settings()
        #: The tenant of a read that names none.
        self.default_tenant = tenant
        #: Whether ``ask``/``search``/``lookup`` write a trace when the call does not say.
        self.write_traces = write_traces
        self._inner_embedder = embedder
        self._embedder: CachedEmbedder | None = None
        self._backend = backend
        #: Whether the backend is built here (then closed by :meth:`close`), not given.
        self._owns_backend = backend is None
        self._open: dict[str, Collection] = {}
        #: The second tenant check of every read; ``tenant_guard.dropped`` feeds /metrics.
        self.tenant_guard = TenantGuard()
        #: Traces, feedback and the operational store (``ops.store``, opened on first use).
        self.ops = Operations(self.settings, default_tenant=tenant, store=ops)
        #: Routed retrieval state per open collection (name catalogs, compiled phrases).
        self._routers: dict[str, Pipeline] = {}
        #: Hybrid weights calibrated per open collection and tenant (see retrieve.calibration).
        self._fusion_calibration: FusionCalibration | None = None
        self._reranker: tuple[Reranker | None, str | None] | None = (
            (reranker, None) if reranker is not None else None
        )

    def _tenant(self, tenant: str | None) -> str:
        """``tenant``, or the default tenant when a call names none; the query cache's
        scope from now on in this context (a tenant never hits another's cached question)."""
        resolved = self.default_tenant if tenant is None else tenant
        query_scope.set(resolved)
        return resolved

    def _records(self, record: bool | None) -> bool:
        """Whether a retrieval call writes its trace: its ``record``, else ``write_traces``."""
        return self.write_traces if record is None else record

    # --- components -----------------------------------------------------------------
    @property
    def backend(self) -> IndexBackend:
        """The configured index backend (built on first use: the store commands need none).

        Raises:
            ConfigError: both a Qdrant URL and a local location are set.
        """
        if self._backend is None:
            self._backend = build_backend(self.settings)
        return self._backend

    @property
    def embedder(self) -> CachedEmbedder:
        """The configured embedder behind the on-disk cache (built on first use)."""
        if self._embedder is None:
            from sectio.embed.factory import build_cached_embedder

            self._embedder = build_cached_embedder(self.settings, self._inner_embedder)
        return self._embedder

    def collection(self, name: str = DEFAULT_COLLECTION) -> Collection:
        """An open, gated collection (opened once, kept open).

        Raises:
            ContractError: ``name`` is not a valid collection name.
        """
        if name not in self._open:
            from sectio.index.collection import open_collection

            check_collection_name(name)
            coll = open_collection(self.backend, name, self.embedder)
            self._open[name] = telemetry.instrument_collection(coll)  # engine-query spans
        return self._open[name]

    def release(self, name: str) -> None:
        """Close ``name`` if it is open (before writing to it)."""
        self._routers.pop(name, None)
        coll = self._open.pop(name, None)
        if coll is not None:
            coll.close()

    def close(self) -> None:
        """Close every open collection, the cache, the operational store and the index
        backend this engine built (a backend passed in stays open: its owner closes it)."""
        self.close_collections()
        if self._embedder is not None:
            self._embedder.close()
            self._embedder = None
        self.ops.close()
        close_backend = getattr(self._backend, "close", None) if self._owns_backend else None
        if close_backend is not None:
            close_backend()
            self._backend = None

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
        progress: Callable[[str, int, int], None] | None = None,
    ) -> IngestReport:
        """Read, validate and load a source into ``collection``; see :mod:`sectio.ingest.loader`.

        ``tenant`` assigns a BEIR or Markdown source to a tenant (see
        :func:`sectio.ingest.readers.read_source`). The source is read under the
        configured input bounds (``SECTIO_MAX_*``); without ``profile``, an existing
        collection keeps the profile it was built with, and a new one gets ``docs`` for a
        Markdown source and ``generic`` for any other, with the BM25 of its language
        (:func:`sectio.registry.default_profile`; the report's ``detected`` says so).
        ``progress(phase, done, total)`` is told as each phase starts, advances and ends
        (the phases of :mod:`sectio.ingest.phases`, ``model`` first; ``total`` 0: a phase
        without units); the report's ``phases`` hold their seconds.

        Raises:
            ContractError: an invalid collection name or source (names file, line, field).
        """
        from sectio.ingest.phases import PhaseClock

        check_collection_name(collection)
        clock = PhaseClock(progress)
        with clock.phase("model"):
            embedder = self.embedder
            embedder.count_tokens("")
        with clock.phase("read"):
            result, prof = self._read(Path(path), fmt, profile, tenant, clock)
            if prof is None:
                result, prof = self._default_profile(result, collection)
        self.release(collection)
        size = self._write_size(collection, result.records, replace)
        with self.backend.writing(collection, "ingest", size):
            import dataclasses

            from sectio.ingest.copies import copies_warnings
            from sectio.ingest.journal import settle
            from sectio.ingest.loader import load_records, provenance_warnings
            from sectio.retrieve.calibration import refresh_collection

            settle(self.backend, collection)  # an interrupted write, finished or undone first
            report = load_records(
                self.backend,
                collection,
                result.records,
                embedder,
                prof,
                replace=replace,
                batch_size=self.settings.upsert_batch_size,
                quantization=self.settings.quantization,
                dense_window_tokens=self.window_tokens(),
                source=str(Path(path)),
                fmt=result.format,
                detected=result.detected,
                clock=clock,
            )
            warnings = (
                *provenance_warnings(result.records),
                *copies_warnings([r.doc_id for r in result.records]),
                *refresh_collection(self, collection),  # answerability calibration
            )
            self._learn_docs(collection)
            return dataclasses.replace(report, warnings=warnings) if warnings else report

    def _read(
        self,
        source: Path,
        fmt: str | None,
        profile: str | Path | CorpusProfile | None,
        tenant: str | None,
        clock: PhaseClock,
    ) -> tuple[ReadResult, CorpusProfile | None]:
        """The source's records (see :meth:`ingest`) and ``profile`` loaded (None: none
        given; only :meth:`ingest` needs one then, :meth:`_default_profile`)."""
        from sectio.contract.bounds import InputLimits
        from sectio.contract.profile import CorpusProfile, load_profile
        from sectio.ingest.readers import read_source

        prof = (
            profile
            if isinstance(profile, CorpusProfile) or profile is None
            else load_profile(profile)
        )
        result = read_source(
            source,
            fmt,
            max_tokens=self.settings.chunk_max_tokens,
            count=self.embedder.count_tokens,
            tenant=tenant,
            starts=self.embedder.token_starts,
            limits=InputLimits.from_settings(self.settings),
            clock=clock,
        )
        return result, prof

    def _default_profile(
        self, result: ReadResult, collection: str
    ) -> tuple[ReadResult, CorpusProfile]:
        """The profile to load ``result`` into ``collection`` with when none was given
        (:func:`sectio.registry.default_profile`), and ``result`` whose ``detected`` says
        why when it is not the static default."""
        from sectio.registry import default_profile

        texts = [r.text for r in result.records]
        prof, why = default_profile(result.format, texts, self._profile_of(collection))
        if why:
            result = replace(result, detected=f"{result.detected}; {why}")
        return result, prof

    def _write_size(
        self, collection: str, records: Sequence[ChunkRecord], replace: bool
    ) -> WriteSize:
        """What a load of ``records`` will hold (the free-space check's input), with the
        other tenants' points a one-tenant replace copies into its staged version."""
        from sectio.ingest.tenancy import kept_points

        existing = self.backend.read_manifest(collection) if replace else None
        window = self.window_tokens()
        longest = max((len(r.text) for r in records), default=0)
        return WriteSize(
            points=len(records),
            dimensions=self.embedder.dimensions,
            payload_bytes=sum(len(r.text) + len(r.doc_id) + 256 for r in records),
            # a windowed chunk holds about one vector per window of text (~4 chars a token)
            vectors=max(1, longest // (4 * window) + 1) if window else 1,
            kept=kept_points(existing, {r.tenant for r in records}, replace=replace),
        )

    def window_tokens(self) -> int:
        """The dense window size a load uses: ``dense_window_tokens`` when set; else,
        when chunks may be longer than the model reads (``chunk_max_tokens`` over the
        embedder's ``max_length``), windows of what it reads (less [CLS] and [SEP]), so
        no chunk's tail goes unembedded; else 0 (one vector per chunk)."""
        window = self.settings.dense_window_tokens
        reads = self.embedder.max_length
        if window or self.settings.chunk_max_tokens <= reads:
            return window
        return max(16, reads - 2)

    # --- info ---------------------------------------------------------------------
    def collection_names(self) -> list[str]:
        """Every collection of the configured store (served or not)."""
        return self.backend.list_collections()

    def has_collection(self, name: str) -> bool:
        """Whether the configured store holds a collection ``name``."""
        return self.backend.exists(check_collection_name(name))

    def info(self, name: str | None = None) -> dict[str, Any]:
        """Collections with their manifests and counts (one collection if ``name``).

        ``count`` is what the index holds, ``matches_manifest`` whether that is the
        manifest's ``chunk_count`` (None: no manifest); a short count is a load that
        did not finish (``sectio ingest`` of the same source repairs it). Needs no
        embedder: a collection already open answers from its index, any other from
        the backend (a Qdrant Edge shard's count is recorded when it is closed and
        believed while its files are unchanged, else it is opened and counted:
        :mod:`sectio.index.edge.tally`), so ``sectio info`` loads no model.

        Raises:
            CollectionNotFound: ``name`` does not exist.
        """
        names = [check_collection_name(name)] if name is not None else self.collection_names()
        out: list[dict[str, Any]] = []
        for n in names:
            if not self.backend.exists(n):
                raise CollectionNotFound(f"no collection named {n!r}")
            manifest = self.backend.read_manifest(n)
            opened = self._open.get(n)
            count = opened.index.count() if opened else self.backend.point_count(n)
            out.append(
                {
                    "name": n,
                    "count": count,
                    "matches_manifest": None if manifest is None else count == manifest.chunk_count,
                    **self.tenant_health(n, manifest, count),
                    "manifest": _manifest_json(manifest),
                }
            )
        return {"home": str(self.settings.home), "backend": self.backend.kind, "collections": out}

    def check_collection(self, name: str) -> dict[str, Any]:
        """Gate ``name`` for serving; its ``{"name", "count", "manifest"}`` as :meth:`info`.

        Re-reads the manifest on disk and checks it against the configured
        embedder (the gate of every query path); a collection whose manifest
        changed on disk (a ``--replace`` by another process) is reopened. A
        collection that fails is released. The server's readiness runs this.

        Raises:
            CollectionNotFound: no such collection.
            ManifestMissing: the collection has no manifest.
            ManifestMismatch: the configured embedder does not match it.
        """
        try:
            if not self.backend.exists(name):
                raise CollectionNotFound(f"collection {name!r} does not exist")
            on_disk = self.backend.read_manifest(name)
            check_serving(on_disk, name, self.embedder.model_id, self.embedder.dimensions)
            coll = self.collection(name)
            if on_disk is not None and on_disk != coll.manifest:
                self.release(name)
                coll = self.collection(name)
            count = coll.index.count()
            return {
                "name": name,
                "count": count,
                **self.tenant_health(name, coll.manifest, count),
                "manifest": _manifest_json(coll.manifest),
            }
        except SectioError:
            self.release(name)
            raise

    def collection_detail(self, name: str, *, tenant: str | None = None) -> dict[str, Any]:
        """``{"name", "count", "tenant_count", "manifest"}`` of an open, gated collection:
        its points, ``tenant``'s points and its manifest (without the profile).

        Raises:
            CollectionNotFound: no such collection.
        """
        coll = self.collection(name)
        return {
            "name": name,
            "count": coll.index.count(),
            "tenant_count": self.count(collection=name, tenant=self._tenant(tenant)),
            "manifest": _manifest_json(coll.manifest),
        }

    def stats(self) -> dict[str, Any]:
        """This process's counters, read without I/O (so from any thread): /metrics.

        ``tenant_drops`` (points of another tenant dropped by the second tenant
        check), ``trace_writes``, ``trace_write_failures`` and
        ``trace_writes_skipped`` (the fail-open trace path; 0 before the store's
        first use) and ``query_embeddings`` (``computed`` by the model, ``cached``
        from the query LRU; 0 before the embedder's first use).
        """
        embedded = self._embedder.stats if self._embedder is not None else None
        return {
            "tenant_drops": self.tenant_guard.dropped,
            **self.ops.trace_counters(),
            "query_embeddings": {
                "computed": embedded.queries_computed if embedded else 0,
                "cached": embedded.queries_cached if embedded else 0,
            },
        }

    def warm_up(self) -> None:
        """Load the embedding model now (a server's start-up), not on the first query.

        Raises:
            EmbeddingError: the model cannot be loaded.
        """
        self.embedder.inner.embed_query("warm up")

    def prefetch_queries(self, texts: Sequence[str], tenants: Sequence[str] | None = None) -> int:
        """Embed ``texts`` in one model call into the query LRU, each under its tenant
        (``tenants``, in order; None: the current one); return how many were new.

        The server embeds concurrent questions together before their engine
        calls (:mod:`sectio.api.batching`); each call then finds its vector.
        """
        return self.embedder.prefetch_queries(texts, tenants)

    # --- search ---------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        collection: str = DEFAULT_COLLECTION,
        top_k: int = 10,
        mode: str = "hybrid",
        filters: Filters | None = None,
        tenant: str | None = None,
        record: bool | None = None,
    ) -> SearchResult:
        """Search ``collection`` as ``tenant``: ``hybrid`` (default), ``dense`` or ``lexical``.

        ``top_k`` is clamped to [1, 50] (the result says so); ``filters`` keys are
        ``doc_id``, ``section_key``, ``chunk_kind``, ``tags`` (any of),
        ``metadata.domain``, ``metadata.subdomain`` and ``path`` (prefix). Each
        hit's ``score`` is its dense cosine similarity (0.0 for a lexical-only hit).
        On a docs collection (its profile's engine is the docs planner) only D0, the
        doc chunks, is searched unless ``filters`` names a ``layer`` (``"all"``:
        every layer, D0-D5); ``details.layers`` says which.
        See :mod:`sectio.retrieve.search`. ``record`` (default: ``write_traces``)
        writes the trace; the server passes False and writes it off the engine
        thread (:meth:`Operations.record <sectio.engine_ops.Operations.record>`).

        Raises:
            UnknownFilter: an unknown filter key.
            ConfigError: an unknown mode.
        """
        from sectio.retrieve.fusion import FusionParams
        from sectio.retrieve.search import search as run_search

        tenant = self._tenant(tenant)
        coll = self.collection(collection)
        scoped, layers = search_layers(coll.profile, filters)
        params, reliability = FusionParams.from_settings(self.settings), None
        if mode == "hybrid":  # calibrated once per tenant, in its own span before the call
            params, reliability = self.fusion_calibration.measure(self._scope(coll, tenant))

        def run(tenant: str) -> SearchResult:
            result = run_search(
                coll,
                self.embedder,
                query,
                tenant=tenant,
                top_k=top_k,
                mode=mode,
                filters=scoped,
                params=params,
                guard=self.tenant_guard,
            )
            if reliability is not None:
                shown = reliability.as_details(params.dense_scale)
                result.details.fusion_calibration = FusionReliability.model_validate(shown)
            if layers is not None:
                result.details.layers = layers
            return result

        return self._call("search", collection, tenant, run, record=record)

    # --- tenant-scoped reads (search is one; the routes use sectio.retrieve.reads) ---
    def count(
        self,
        *,
        collection: str = DEFAULT_COLLECTION,
        filters: Filters | None = None,
        tenant: str | None = None,
    ) -> int:
        """Chunks of ``tenant`` in ``collection`` matching ``filters`` (search filter keys)."""
        index = self.collection(collection).index
        return reads.count(index, self._tenant(tenant), build_where(filters))

    def chunks(
        self,
        *,
        collection: str = DEFAULT_COLLECTION,
        filters: Filters | None = None,
        tenant: str | None = None,
    ) -> list[Evidence]:
        """Every chunk of ``tenant`` matching ``filters``, in (doc, section, part) order.

        With ``filters={"doc_id": D, "section_key": S}`` this is a complete section
        read. ``score`` is 0.0 (nothing was ranked).
        """
        from sectio.contract.result import Evidence

        points = reads.scroll_all(
            self.collection(collection).index,
            self._tenant(tenant),
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
        tenant: str | None = None,
    ) -> list[Evidence]:
        """Chunks by ``chunk_id``, of ``tenant`` only, in the order asked (unknown ids absent)."""
        from sectio.contract.result import Evidence

        points = reads.retrieve_chunks(
            self.collection(collection).index,
            chunk_ids,
            self._tenant(tenant),
            guard=self.tenant_guard,
        )
        return [Evidence.from_payload(p.payload, 0.0, rank=None) for p in points]

    # --- routed retrieval: ask, lookup, assess --------------------------------------
    def router(self, collection: str = DEFAULT_COLLECTION) -> Pipeline:
        """The routed-retrieval state of ``collection`` (kept while it stays open)."""
        from sectio.registry import domains_for, routes_for, rules_for
        from sectio.retrieve.pipeline import Pipeline
        from sectio.retrieve.policy import EvidencePolicy

        coll = self.collection(collection)
        router = self._routers.get(collection)
        if router is None or router.collection is not coll:
            policy = EvidencePolicy.from_profile(coll.profile)
            if "rerank_timeout_s" not in coll.profile.policy:
                policy = policy.with_overrides(rerank_timeout_s=self.settings.rerank_timeout_s)
            router = Pipeline(
                coll,
                self.embedder,
                routes=routes_for(coll.profile),
                rules=rules_for(coll.profile),
                domains=domains_for(coll.profile),
                reranker=self._get_reranker,
                policy=policy,
                guard=self.tenant_guard,
                fusion=self.fusion_calibration.base,
                calibration=self.fusion_calibration,
            )
            self._routers[collection] = router
        return router

    def fusion(
        self, collection: str = DEFAULT_COLLECTION, tenant: str | None = None
    ) -> FusionParams:
        """The hybrid fusion params of ``collection`` for ``tenant`` (calibrated on first use).

        See :class:`~sectio.retrieve.calibration.FusionCalibration`: the dense
        weight is scaled by how well the model finds the tenant's own chunks.
        """
        scope = self._scope(self.collection(collection), self._tenant(tenant))
        return self.fusion_calibration.params(scope)

    @property
    def fusion_calibration(self) -> FusionCalibration:
        """The hybrid weights calibrated per open collection and tenant (built on first use)."""
        if self._fusion_calibration is None:
            from sectio.retrieve.calibration import FusionCalibration
            from sectio.retrieve.fusion import FusionParams

            base = FusionParams.from_settings(self.settings)
            self._fusion_calibration = FusionCalibration(base)
        return self._fusion_calibration

    def _learn_docs(self, name: str) -> None:
        """A docs collection's learned vocabulary, learned and stored with it now, not at
        its first query (:func:`sectio.plan.sections.refresh_docs_vocabulary`; nothing for
        the section router's collections)."""
        from sectio.index.collection import open_collection
        from sectio.plan.sections import refresh_docs_vocabulary

        coll = open_collection(self.backend, name, self.embedder)
        try:
            if coll.profile.engine == "router":
                return
            for tenant in list(coll.manifest.tenants) or ["default"]:
                refresh_docs_vocabulary(self._scope(coll, tenant))
        finally:
            coll.close()

    def _scope(self, coll: Collection, tenant: str) -> ReadScope:
        """A plain read scope of ``tenant`` in ``coll`` (search's calibration reads with it)."""
        from sectio.retrieve.policy import EvidencePolicy
        from sectio.retrieve.scope import ReadScope

        return ReadScope(coll, tenant, self.tenant_guard, EvidencePolicy(), self.embedder)

    def _get_reranker(self) -> tuple[Reranker | None, str | None]:
        """The configured reranker (built once), or the error that kept it from loading."""
        if self._reranker is None:
            from sectio.rerank import build_reranker

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
        tenant: str | None = None,
        doc_id: str | None = None,
        section_key: str | None = None,
        turn_type: str | None = None,
        top_k: int | None = None,
        conversation_id: str | None = None,
        record: bool | None = None,
        previous: PreviousSubject | None = None,
    ) -> RetrievalResult:
        """Answer ``question`` with evidence and a decision (:mod:`sectio.retrieve.pipeline`).

        ``doc_id`` / ``section_key`` override what the question names. The
        collection's profile says which routes answer it (``sectio.registry``:
        the section router, or the docs planner). With ``record`` (default:
        ``write_traces``; a ``conversation_id`` asks for it too) the trace is
        written fail-open (``trace_id``) and, with ``conversation_id``, the turn
        is appended to that conversation (``record=False``: neither; the caller
        calls ``ops.record``). In a conversation, a question that names no
        document inherits the previous answered turn's document
        (``details.doc_resolution.how == "conversation"``); one that names a
        document switches to it. That subject is read fail-open, under the
        store's back-off (``previous``: already read by the caller, as the
        server does off the engine thread); one that cannot be read is answered
        as a first turn, and ``details.conversation`` says so.

        Raises:
            CollectionNotFound: no such collection.
            ConfigError: an empty question, an unknown ``turn_type``, or one the
                collection's engine cannot honour.
        """
        from sectio.contract.request import AskRequest

        request = AskRequest.of(
            question, doc_id=doc_id, section_key=section_key, turn_type=turn_type, top_k=top_k
        )
        return self.answer(
            request,
            collection=collection,
            tenant=tenant,
            conversation_id=conversation_id,
            record=record,
            previous=previous,
        )

    def answer(
        self,
        request: AskRequest,
        *,
        collection: str = DEFAULT_COLLECTION,
        tenant: str | None = None,
        conversation_id: str | None = None,
        record: bool | None = None,
        previous: PreviousSubject | None = None,
    ) -> RetrievalResult:
        """:meth:`ask` for a request built by a front door (the CLI, the API, MCP): it
        travels to the pipeline as it is, the conversation's previous document added
        as its ``context_doc_id``.

        Raises:
            CollectionNotFound: no such collection.
            ConfigError: a ``turn_type`` the collection's engine cannot honour.
        """

        def run(tenant: str) -> RetrievalResult:
            if not conversation_id:
                return self.router(collection).answer(request, tenant=tenant)
            subject = previous or self.ops.previous_subject(conversation_id, tenant)
            asked = request
            if subject.doc_id is not None:
                asked = replace(request, context_doc_id=subject.doc_id)
            result = self.router(collection).answer(asked, tenant=tenant)
            result.details.conversation = ConversationReport(**subject.as_details())
            return result

        records = record if conversation_id is None else record is not False
        return self._call(
            "ask", collection, tenant, run, record=records, conversation_id=conversation_id
        )

    def _call(
        self,
        kind: str,
        collection: str,
        tenant: str | None,
        run: Callable[[str], R],
        *,
        record: bool | None,
        conversation_id: str | None = None,
    ) -> R:
        """Every read: ``run(tenant)`` with the caller's tenant (default: ``default``) in an
        OpenTelemetry span carrying the result's attributes, then its trace written
        fail-open when ``record`` (default: ``write_traces``) says so.
        """
        scoped = self._tenant(tenant)
        with telemetry.call_span(kind, collection, scoped) as span:
            result = run(scoped)
            telemetry.set_attributes(span, telemetry.result_attributes(result))
        if self._records(record):
            self.ops.record(kind, result, conversation_id=conversation_id)
        return result

    def lookup(
        self,
        phrase: str,
        *,
        collection: str = DEFAULT_COLLECTION,
        tenant: str | None = None,
        record: bool | None = None,
    ) -> RetrievalResult:
        """Reverse lookup: the documents whose lookup section mentions ``phrase``.

        ``record`` (default: ``write_traces``) writes the trace (``ops.record``).

        Raises:
            CollectionNotFound: no such collection.
            ConfigError: an empty phrase.
        """
        return self._call(
            "lookup",
            collection,
            tenant,
            lambda scoped: self.router(collection).lookup(phrase, tenant=scoped),
            record=record,
        )

    def assess(
        self,
        candidates: list[str],
        context: dict[str, str | list[str] | bool] | FacetContext,
        *,
        collection: str = DEFAULT_COLLECTION,
        tenant: str | None = None,
    ) -> Assessment:
        """Facet evidence (interaction, warnings, ...) for documents already chosen.

        Absence of a hit is ``INSUFFICIENT_EVIDENCE``, never "safe".

        Raises:
            ConfigError: a facet the collection's profile does not define.
        """
        return self.router(collection).assess(candidates, context, tenant=self._tenant(tenant))

    def plan(
        self, question: str, *, collection: str = DEFAULT_COLLECTION, tenant: str | None = None
    ) -> tuple[DocsIntent, RetrievalPlan]:
        """How the docs planner routes ``question`` and the plan it builds (nothing is run).

        Raises:
            CollectionNotFound: no such collection.
            ConfigError: the collection is not answered by the docs planner.
        """
        from sectio.plan import DocsPlanRoute

        router = self.router(collection)
        for route in router.routes:
            if isinstance(route, DocsPlanRoute):
                return route.planner.plan(router.scope(self._tenant(tenant)), question)
        raise ConfigError(
            f"collection {collection!r} is answered by the {router.collection.profile.engine!r} "
            "engine, not the docs planner"
        )

    def plan_text(self, question: str) -> tuple[DocsIntent, RetrievalPlan]:
        """The docs planner's reading of ``question`` and its plan from the question's own
        text alone (file names, API paths): no collection, so no catalog anchors."""
        from sectio.plan import plan_question

        return plan_question(question)

    # --- what a corpus teaches ------------------------------------------------------
    def learned(self, collection: str, *, tenant: str = DEFAULT_TENANT) -> dict[str, Any]:
        """What ``tenant``'s records of ``collection`` teach the engine that answers it: the
        section router (:func:`sectio.retrieve.learned.report.learned_summary`) or, for a
        docs collection, the docs planner's headings
        (:func:`sectio.plan.sections.docs_summary`); ``enabled: false`` when the profile's
        ``[learning]`` is off.

        Raises:
            CollectionNotFound: no such collection.
        """
        coll = self.collection(collection)
        if coll.profile.engine == "docs_planner":
            from sectio.plan.sections import docs_summary

            return docs_summary(self._scope(coll, tenant))
        from sectio.retrieve.learned.report import learned_summary

        return learned_summary(coll, tenant, self.tenant_guard)

    def thresholds(self, collection: str) -> dict[str, Any]:
        """The answerability thresholds of every tenant of ``collection``, from the stored
        calibration (:func:`sectio.retrieve.calibration.thresholds_summary`; nothing is
        measured).

        Raises:
            CollectionNotFound: no such collection.
        """
        from sectio.retrieve.calibration import thresholds_summary

        return thresholds_summary(self.collection(collection))

    def draft_profile(
        self,
        src: str | Path | None = None,
        *,
        collection: str | None = None,
        fmt: str | None = None,
        tenant: str = DEFAULT_TENANT,
    ) -> str:
        """A complete TOML profile drafted from ``src`` (any ingestable source, read with the
        default profile's BM25 words) or from ``tenant``'s records of ``collection`` (its
        own), in book order (:func:`sectio.retrieve.learned.draft.draft_profile`), of the
        collection's engine and BM25 settings (a source's: those an ingest given no profile
        would choose, :func:`sectio.registry.default_profile`; a docs tree drafts a docs
        planner profile).

        Raises:
            ConfigError: both or neither of ``src`` and ``collection``.
            CollectionNotFound: no such collection.
            ContractError: a source that cannot be read.
        """
        from sectio.retrieve.learned.draft import draft_profile

        if (src is None) == (collection is None):
            raise ConfigError("give a source path or --collection NAME (one of them)")
        if src is not None:
            from sectio.index.lexical import LexicalEncoder
            from sectio.ingest.readers import read_source

            path = Path(src)
            from sectio.registry import default_profile

            read = read_source(path, fmt)
            payloads = [r.payload() for r in read.records]
            profile = default_profile(read.format, [r.text for r in read.records])[0]
            lexical = LexicalEncoder(profile.lexical)
            name, source = path.stem or "corpus", str(path)
        else:
            assert collection is not None
            from sectio.retrieve.learned.report import collection_payloads

            coll = self.collection(collection)
            payloads = collection_payloads(coll, tenant, self.tenant_guard)
            lexical, name, source = coll.lexical, collection, f"collection {collection!r}"
            profile = coll.profile
        return draft_profile(
            payloads,
            name=name,
            source=source,
            content=lambda w: bool(lexical.terms(w)),
            profile=profile,
        )

    # --- snapshots ------------------------------------------------------------------
    def snapshot(self, out_file: str | Path, *, collection: str = DEFAULT_COLLECTION) -> Manifest:
        """Write ``collection`` (flushed shard + manifest + checksums) to one file."""
        self.release(collection)
        return self.backend.snapshot(collection, Path(out_file))

    def restore(
        self, in_file: str | Path, *, collection: str = DEFAULT_COLLECTION, replace: bool = False
    ) -> Manifest:
        """Restore a snapshot as ``collection`` after checking checksums and the manifest gate.

        Held as one write of ``collection`` (its writer lock, leftovers collected).

        Raises:
            SnapshotError: the file is unreadable, breaks a bound or fails a checksum.
            ManifestMismatch: the configured embedder is not the snapshot's.
            CorpusMismatch: ``collection`` holds another corpus and ``replace`` is False.
            CollectionBusy: another process writes ``collection``.
            InsufficientSpace: the snapshot does not fit.
        """
        check_collection_name(collection)
        self.release(collection)
        embedder = self.embedder
        backend = self.backend

        def verify(manifest: Manifest) -> None:
            check_serving(manifest, collection, embedder.model_id, embedder.dimensions)
            existing = backend.read_manifest(collection)
            if existing is not None and not replace:
                assert_compatible(existing, manifest)

        with backend.writing(collection, "restore"):
            return backend.restore(Path(in_file), collection, verify=verify)

    def gc(self, collection: str | None = None) -> dict[str, Any]:
        """Remove crash leftovers: stale staged versions and restore temp folders of
        ``collection`` (default: every collection), never a live one or one a running
        writer holds (those are listed under ``skipped``); first every interrupted
        document write is finished or undone (``settled``), on any store (a Qdrant
        server keeps no leftover folders: only that is done there).

        Raises:
            CollectionBusy: another process writes (or serves) a collection to settle.
        """
        backend = self.backend
        settled = self.settle_pending(collection)  # interrupted document writes, finished
        if not isinstance(backend, LocalStore):  # a server store: no folders, its journal
            return {"removed": [], "skipped": [], "bytes_freed": 0, "settled": settled}
        if collection:
            self.release(collection)
        else:
            self.close_collections()
        return {**backend.collect_garbage([collection] if collection else None), "settled": settled}

    def close_collections(self) -> None:
        """Close every open collection (the cache and the store stay open)."""
        for name in list(self._open):
            self.release(name)

    def hold_serving(self) -> Any:
        """Claim the store for one ``sectio serve`` (kept until the process ends); None
        where the store needs no claim (a Qdrant server).

        Raises:
            CollectionBusy: another ``sectio serve`` holds it (the message names its pid).
        """
        backend = self.backend
        return backend.hold_serving() if isinstance(backend, LocalStore) else None

    # --- transfer between stores ----------------------------------------------------
    def export(
        self,
        dest: str,
        *,
        collection: str = DEFAULT_COLLECTION,
        as_name: str | None = None,
        replace: bool = False,
        quantization: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> TransferReport:
        """Copy ``collection`` (vectors, payloads, manifest) to the store ``dest``, as
        ``as_name``; nothing is re-embedded. ``dest``: see :mod:`sectio.index.factory`.

        On arrival the manifest must match the configured embedder; a target
        holding another corpus is refused unless ``replace``.

        Raises:
            CollectionNotFound: no such collection here.
            ManifestMismatch: the configured embedder is not the manifest's.
            CorpusMismatch: the target holds another corpus and ``replace`` is False.
        """
        from sectio.index.copy import serving_gate
        from sectio.index.transfer import export_collection

        check_collection_name(as_name or collection)
        self.release(collection)
        return export_collection(
            self.backend,
            collection,
            dest,
            self.settings,
            as_name=as_name,
            verify=serving_gate(as_name or collection, *self._embedder_id()),
            replace=replace,
            quantization=quantization,
            progress=progress,
        )

    def import_(
        self,
        source: str,
        *,
        collection: str = DEFAULT_COLLECTION,
        source_collection: str | None = None,
        replace: bool = False,
        quantization: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> TransferReport:
        """Copy ``source_collection`` (default: ``collection``) from the store ``source``
        into ``collection`` here; nothing is re-embedded. Gated as :meth:`export`.

        Raises:
            CollectionNotFound: no such collection at ``source``.
            ManifestMismatch: the configured embedder is not the manifest's.
            CorpusMismatch: ``collection`` holds another corpus and ``replace`` is False.
        """
        from sectio.index.copy import serving_gate
        from sectio.index.transfer import import_collection

        check_collection_name(collection)
        self.release(collection)
        return import_collection(
            self.backend,
            source,
            self.settings,
            collection=collection,
            source_collection=source_collection,
            verify=serving_gate(collection, *self._embedder_id()),
            replace=replace,
            quantization=quantization,
            progress=progress,
        )

    def _embedder_id(self) -> tuple[str, int]:
        return self.embedder.model_id, self.embedder.dimensions


def human_bytes(n: int) -> str:
    """``n`` bytes as ``12.3 MiB`` (what ``sectio gc`` prints; the index's space check's words)."""
    from sectio.index.edge.space import human

    return human(n)


def _manifest_json(manifest: Manifest | None) -> dict[str, Any] | None:
    """A manifest as plain data, without its profile (what info and the API show); each
    tenant's per-document hashes summed up as their number (``documents``)."""
    if manifest is None:
        return None
    data = manifest.model_dump(mode="json", exclude={"profile"})
    for corpus in data.get("tenants", {}).values():
        if isinstance(corpus.get("documents"), dict):
            corpus["documents"] = len(corpus["documents"])
    return data
