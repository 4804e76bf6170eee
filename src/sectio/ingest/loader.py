"""The loader: validated records -> a manifest-gated collection, in a fixed order.

1. read and validate every record (a bad record names file, line, field; nothing written);
2. compatibility gate against the existing manifest (``CorpusMismatch`` naming the
   differing fields; a collection holding points but no manifest is refused);
3. create the collection and its payload indexes if absent (a changed corpus with
   ``replace=True`` is built as a new version beside the live one);
4. write the manifest;
5. check each vector's length;
6. upsert in batches (in order of text length, shortest first: less padding); with
   dense windows on, a long chunk's windows are embedded and written as its vectors;
7. compare the collection's count with the chunk count (``CountMismatch``);
then optimize, and switch the new version live. A refused or failed load leaves
the store as it was. Re-loading the identical corpus (same manifest, every point
present) writes nothing: it reports ``converged`` with ``upserted=0``. Tenants
share a collection tenant by tenant (:mod:`sectio.ingest.tenancy`): a new tenant
is ``added`` in place; replacing one keeps the others' points.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from sectio._faults import fault_point
from sectio.contract.profile import CorpusProfile
from sectio.contract.record import ChunkRecord, corpus_sha256
from sectio.embed.cache import CachedEmbedder
from sectio.embed.provider import describe as describe_provider
from sectio.errors import CountMismatch, ManifestMissing
from sectio.index.copy import copy_points
from sectio.index.filters import AnyOf, Where
from sectio.index.ids import point_id_for
from sectio.index.lexical import LexicalEncoder
from sectio.index.manifest import Manifest, assert_compatible
from sectio.index.port import IndexBackend, IndexSpec, LoadTarget, PointData
from sectio.index.qdrant.layout import ordinals, with_ordinal
from sectio.ingest import journal
from sectio.ingest.embedding import embed_records
from sectio.ingest.phases import PhaseClock
from sectio.ingest.tenancy import (
    check_unique_ids,
    collection_digest,
    held_tenants,
    merged_manifest,
    plan_tenants,
    tenant_corpora,
)


@dataclass(frozen=True)
class IngestReport:
    """What a load did. ``action`` is ``created``, ``added`` (a tenant joined the
    collection), ``converged`` or ``replaced``; ``collection_count`` counts every tenant."""

    collection: str
    source: str
    format: str
    action: str
    chunks_read: int
    upserted: int
    collection_count: int
    embeddings_computed: int
    embeddings_cached: int
    seconds: float
    #: What the source was taken for, and why (one line; see sectio.ingest.detect).
    detected: str = ""
    #: Seconds per phase, in the order run (see :mod:`sectio.ingest.phases`).
    phases: dict[str, float] = field(default_factory=dict)
    #: One-line warnings of the write (an English-only model over another language).
    warnings: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def provenance_warnings(records: Sequence[ChunkRecord]) -> tuple[str, ...]:
    """A warning when chunks have no ``source_refs``: any answer holding one abstains
    (``missing_provenance``, :func:`sectio.retrieve.decision.decide`), which a load
    that succeeded would not otherwise tell.

    Example:
        >>> from sectio.contract.record import ChunkRecord
        >>> r = ChunkRecord(chunk_id="a", doc_id="d", section_key="s", part_index=0, text="x")
        >>> provenance_warnings([r])[0].split(":")[0]
        '1 of 1 chunks have no source_refs'
    """
    missing = sum(1 for r in records if not r.source_refs)
    if not missing:
        return ()
    return (
        f"{missing} of {len(records)} chunks have no source_refs: an answer holding one "
        "abstains (missing_provenance); give each record its source_refs "
        "(docs/concepts/corpus-contract.md)",
    )


def build_manifest(
    name: str,
    records: Sequence[ChunkRecord],
    embedder: CachedEmbedder,
    lexical: LexicalEncoder,
    profile: CorpusProfile,
    *,
    quantization: str = "int8",
    dense_window_tokens: int = 0,
    batch_size: int | None = None,
    source: str | None = None,
    digest: str | None = None,
) -> Manifest:
    """The manifest a load of ``records`` would write (``lexical`` must be fitted).

    ``digest`` is ``corpus_sha256(records)`` when the caller has it already.
    """
    return Manifest(
        collection=name,
        corpus_sha256=digest or corpus_sha256(records),
        chunk_count=len(records),
        model_id=embedder.model_id,
        dimensions=embedder.dimensions,
        input_kind=embedder.input_kind,
        max_length=embedder.max_length,
        bm25=lexical.manifest_entry(),
        profile_name=profile.name,
        profile_sha256=profile.sha256(),
        profile=profile.model_dump(mode="json"),
        quantization=quantization,
        dense_window_tokens=dense_window_tokens,
        embed_batch_size=batch_size,
        provider=describe_provider(embedder),
        source=source,
    )


def _known_fit(lexical: LexicalEncoder, existing: Manifest | None, digest: str) -> bool:
    """True, with ``lexical.avg_len`` set, if ``existing`` already holds this corpus's fit.

    The BM25 fit (``avg_len``) is a function of the corpus (``digest``, its
    sha256) and the BM25 settings: an existing manifest with both has it.
    """
    if existing is None or existing.corpus_sha256 != digest:
        return False
    known = dict(existing.bm25)
    avg = known.pop("avg_len", None)
    mine = lexical.manifest_entry()
    mine.pop("avg_len", None)
    if known != mine or not isinstance(avg, dict):
        return False
    lexical.avg_len = {str(k): float(v) for k, v in avg.items()}
    return True


@dataclass(frozen=True)
class LoadOptions:
    """How a load writes (the settings a caller passes; see :func:`load_records`).

    Example:
        >>> LoadOptions(replace=True).batch_size
        256
    """

    replace: bool = False
    batch_size: int = 256
    quantization: str = "int8"
    dense_window_tokens: int = 0
    #: The source's path as given (the manifest's ``source``), "" for none.
    source: str = ""
    fmt: str = "chunks"
    #: What the source was taken for, and why (passed through to the report).
    detected: str = ""


@dataclass(frozen=True)
class LoadRequest:
    """What to load, where: validated records, the embedder and profile, the options."""

    backend: IndexBackend
    name: str
    records: Sequence[ChunkRecord]
    embedder: CachedEmbedder
    profile: CorpusProfile
    options: LoadOptions = field(default_factory=LoadOptions)

    def build(self, lexical: LexicalEncoder, profile: CorpusProfile, *, digest: str) -> Manifest:
        """The manifest this load writes with ``lexical``'s fit (see :func:`build_manifest`)."""
        o = self.options
        return build_manifest(
            self.name,
            self.records,
            self.embedder,
            lexical,
            profile,
            quantization=o.quantization,
            dense_window_tokens=o.dense_window_tokens,
            batch_size=o.batch_size,
            source=o.source,
            digest=digest,
        )


@dataclass(frozen=True)
class LoadPlan:
    """What a load will do, decided before anything is written (:func:`plan_load`); never
    changed afterwards: :func:`execute` carries it out.

    ``staged``: a new version is built beside the live one (else the live one is written
    in place); ``sparse``: the BM25 document vectors, None until needed (a known fit skips
    the pass); ``unchanged_count``: the collection's count when nothing needs writing (an
    identical corpus), else None; ``keep``: the live points a staged version keeps (the
    other tenants'), None for none; ``refit``: BM25 document weights fitted on this load
    (else the collection's ``avg_len``); ``added``: the tenants this load adds in place
    (written under a journal entry, see :mod:`sectio.ingest.journal`).
    """

    request: LoadRequest
    action: str
    staged: bool
    manifest: Manifest
    lexical: LexicalEncoder
    texts: tuple[str, ...]
    sparse: tuple[Any, ...] | None = None
    unchanged_count: int | None = None
    keep: Where | None = None
    refit: bool = True
    added: tuple[str, ...] = ()


def plan_load(request: LoadRequest, clock: PhaseClock | None = None) -> LoadPlan:
    """Steps 1-2: the incoming manifest and the compatibility gate (nothing written).

    A collection with per-tenant corpora is planned tenant by tenant
    (:mod:`sectio.ingest.tenancy`); one without (new, or an old manifest holding
    only the tenants loaded) as one corpus.

    Raises:
        CorpusMismatch: another corpus is loaded and ``replace`` is False (see tenancy).
        ManifestMissing: the collection holds points but has no manifest.
        ContractError: chunk ids already belong to another tenant's points.
    """
    backend, name, records = request.backend, request.name, request.records
    lexical = LexicalEncoder(request.profile.lexical)
    texts = tuple(r.index_text() for r in records)
    corpora = tenant_corpora(records, request.options.source or None)
    exists = backend.exists(name)
    existing = backend.read_manifest(name) if exists else None
    if exists and existing is None:
        held = backend.point_count(name)
        if held:
            raise ManifestMissing(
                f"collection {name!r} holds {held} points but no manifest; refusing to write"
            )
    tenants = _held(backend, name, existing, corpora) if existing is not None else {}
    if existing is not None and tenants:
        shared = _Shared(request, existing, tenants, corpora, lexical, texts)
        return _plan_shared(shared)
    return _plan_whole(request, existing, corpora, lexical, texts, clock)


def _plan_whole(
    request: LoadRequest,
    existing: Manifest | None,
    corpora: dict[str, Any],
    lexical: LexicalEncoder,
    texts: tuple[str, ...],
    clock: PhaseClock | None,
) -> LoadPlan:
    """Plan a load as one corpus: a new collection, or one whose manifest has no tenants."""
    records = request.records
    digest = _digest(existing, corpora, records)
    # The BM25 fit (a tokenizer pass over the corpus) only matters if we write.
    sparse = None
    if not _known_fit(lexical, existing, digest):
        with (clock or PhaseClock()).phase("tokenize", total=len(texts)):
            sparse = tuple(lexical.fit_documents(list(texts)))
    built = request.build(lexical, request.profile, digest=digest)
    manifest = built.model_copy(update={"tenants": corpora})
    plan = LoadPlan(request, "created", True, manifest, lexical, texts, sparse)
    if existing is None:
        return plan
    if existing.differences(manifest):
        if not request.options.replace:
            assert_compatible(existing, manifest)
        return replace(plan, action="replaced")
    # The same corpus: written in place, and not at all when every point is there (no
    # embedding, upsert or optimize); a short count re-upserts in place (a repair).
    held = request.backend.point_count(request.name)
    return replace(
        plan,
        action="converged",
        staged=False,
        manifest=manifest.model_copy(update={"created_at": existing.created_at}),
        unchanged_count=held if held == len(records) else None,
    )


def _digest(
    existing: Manifest | None, corpora: dict[str, Any], records: Sequence[ChunkRecord]
) -> str:
    """The load's corpus sha256 (:func:`collection_digest`); against a manifest written
    before per-tenant digests, its whole-corpus sha256 when that is the one it holds."""
    digest = collection_digest(corpora)
    if existing is not None and not existing.tenants and len(corpora) > 1:
        whole = corpus_sha256(records)
        if existing.corpus_sha256 == whole:
            return whole
    return digest


def _held(
    backend: IndexBackend, name: str, existing: Manifest, corpora: dict[str, Any]
) -> dict[str, Any]:
    """The tenants ``name`` holds ({} for an old manifest holding only ``corpora``'s)."""
    if existing.tenants:
        return dict(existing.tenants)
    index = backend.open(name)
    try:
        return held_tenants(existing, index, list(corpora))
    finally:
        index.close()


@dataclass(frozen=True)
class _Shared:
    """A load into a collection with per-tenant corpora: what it holds and what comes."""

    request: LoadRequest
    existing: Manifest
    held: dict[str, Any]
    corpora: dict[str, Any]
    lexical: LexicalEncoder
    texts: tuple[str, ...]


def _plan_shared(shared: _Shared) -> LoadPlan:
    """Plan a load tenant by tenant (see :func:`sectio.ingest.tenancy.plan_tenants`).

    The load's documents are weighted with the collection's BM25 fit unless the
    whole collection is rebuilt; chunk ids are checked against the other tenants'.

    Raises:
        CorpusMismatch: see :func:`~sectio.ingest.tenancy.plan_tenants`.
        ContractError: chunk ids already belong to another tenant's points.
    """
    request, existing, held, corpora = shared.request, shared.existing, shared.held, shared.corpora
    lexical = shared.lexical
    fitted = existing.bm25.get("avg_len") or {}
    lexical.avg_len = {str(k): float(v) for k, v in fitted.items()}
    digest = collection_digest(corpora)
    incoming = merged_manifest(
        request.build(lexical, request.profile, digest=digest), held, corpora
    )
    decided = plan_tenants(existing, incoming, held, corpora, replace=request.options.replace)
    if decided.refit:  # the whole collection rebuilt: this load's own fit and manifest
        sparse = tuple(lexical.fit_documents(list(shared.texts)))
        manifest = request.build(lexical, request.profile, digest=digest)
        tenants = {"tenants": corpora}
        return LoadPlan(
            request, "replaced", True, manifest.model_copy(update=tenants), lexical,
            shared.texts, sparse,
        )  # fmt: skip
    loaded, total = _shared_counts(request, held, corpora)
    if decided.action != "replaced":
        incoming = incoming.model_copy(update={"created_at": existing.created_at})
    unchanged = decided.action == "converged" and loaded == len(request.records)
    return LoadPlan(
        request,
        decided.action,
        decided.staged,
        incoming,
        lexical,
        shared.texts,
        keep=decided.keep,
        refit=False,
        unchanged_count=total if unchanged else None,
        added=tuple(t for t in corpora if t not in held),
    )


def _shared_counts(
    request: LoadRequest, held: dict[str, Any], corpora: dict[str, Any]
) -> tuple[int, int]:
    """``(points of the loaded tenants, all points)``, the load's chunk ids checked first
    against the other tenants' points.

    Raises:
        ContractError: chunk ids already belong to another tenant's points.
    """
    index = request.backend.open(request.name)
    try:
        if set(held) - set(corpora):
            ids = [point_id_for(r.chunk_id) for r in request.records]
            check_unique_ids(index, request.name, ids, request.records)
        return index.count(Where.of(AnyOf("tenant", tuple(corpora)))), index.count()
    finally:
        index.close()


def _write_points(target: LoadTarget, plan: LoadPlan, clock: PhaseClock) -> int:
    """Steps 4-6: the manifest (last instead, for a tenant added in place: see
    :func:`execute`), then every record's vector (see :mod:`sectio.ingest.embedding`),
    then the points upserted in batches; returns how many points were written."""
    request, options = plan.request, plan.request.options
    records = request.records
    if not plan.added:
        target.write_manifest(plan.manifest)
    sparse = plan.sparse
    if sparse is None:
        lexical = plan.lexical
        with clock.phase("tokenize", total=len(plan.texts)):
            encode = lexical.fit_documents if plan.refit else lexical.encode_documents
            sparse = tuple(encode(list(plan.texts)))
    dense = embed_records(
        records,
        list(plan.texts),
        request.embedder,
        clock,
        batch_size=options.batch_size,
        dense_window_tokens=options.dense_window_tokens,
    )
    total, batch_size = len(records), options.batch_size
    places = ordinals(r.doc_id for r in records)
    with clock.phase("upsert", total=total) as tick:
        for start in range(0, total, batch_size):
            picked = range(start, min(start + batch_size, total))
            target.index.upsert(
                [
                    PointData(
                        id=point_id_for(records[i].chunk_id),
                        dense=dense[i],
                        sparse=sparse[i],
                        payload=with_ordinal(records[i].payload(), places[i]),
                    )
                    for i in picked
                ]
            )
            tick(picked.stop)
            fault_point("loader.batch.written")
    if plan.added:
        target.write_manifest(plan.manifest)
        fault_point("loader.added.manifest")
    return total


def load_records(
    backend: IndexBackend,
    name: str,
    records: Sequence[ChunkRecord],
    embedder: CachedEmbedder,
    profile: CorpusProfile,
    *,
    clock: PhaseClock | None = None,
    **options: Any,
) -> IngestReport:
    """Load validated ``records`` into collection ``name`` (steps 2-7 above):
    :func:`plan_load`, then :func:`execute`. ``options`` are :class:`LoadOptions`' fields.

    ``dense_window_tokens`` > 0 embeds every chunk longer than that as windows
    (:func:`~sectio.ingest.chunking.dense_windows`) into a multivector index,
    where a chunk's dense score is its best window's cosine. ``clock`` times the
    phases (:mod:`sectio.ingest.phases`); the report's ``phases`` are its seconds.

    Raises:
        CorpusMismatch: another corpus is loaded and ``replace`` is False; or a load
            would change the settings other tenants share (see tenancy).
        ContractError: chunk ids already belong to another tenant's points.
        ManifestMissing: the collection holds points but has no manifest.
        VectorSizeError: the embedder produced a vector of the wrong length.
        CountMismatch: the collection's count differs from the chunk count afterwards.
    """
    request = LoadRequest(backend, name, records, embedder, profile, LoadOptions(**options))
    clock = clock or PhaseClock()
    started = time.perf_counter()
    with clock.phase("plan"):
        plan = plan_load(request, clock)
    return execute(plan, clock, started=started)


def execute(
    plan: LoadPlan, clock: PhaseClock | None = None, *, started: float | None = None
) -> IngestReport:
    """Carry out ``plan`` (steps 3-7; nothing when its corpus is already there).

    A staged plan builds a new version and switches it live when complete; an
    in-place one writes the live version. A tenant added in place is written
    under a journal entry naming it (:mod:`sectio.ingest.journal`), its manifest
    entry last: a crash leaves its points unlisted (``info`` and ``/readyz`` name
    it not ready) and the next write or ``gc`` removes them.

    Raises:
        VectorSizeError: the embedder produced a vector of the wrong length.
        CountMismatch: the collection's count differs from the chunk count afterwards.
    """
    request = plan.request
    started = time.perf_counter() if started is None else started
    clock = clock or PhaseClock()
    embedder = request.embedder
    stats_before = (embedder.stats.computed, embedder.stats.cached)

    def report(upserted: int, count: int) -> IngestReport:
        o = request.options
        return IngestReport(
            collection=request.name,
            source=o.source,
            format=o.fmt,
            action=plan.action,
            chunks_read=len(request.records),
            upserted=upserted,
            collection_count=count,
            embeddings_computed=embedder.stats.computed - stats_before[0],
            embeddings_cached=embedder.stats.cached - stats_before[1],
            seconds=round(time.perf_counter() - started, 3),
            detected=o.detected,
            phases=clock.seconds(),
        )

    if plan.unchanged_count is not None:
        return report(upserted=0, count=plan.unchanged_count)
    upserted, count = _run(plan, clock)
    return report(upserted=upserted, count=count)


def _run(plan: LoadPlan, clock: PhaseClock) -> tuple[int, int]:
    """Write ``plan`` (see :func:`execute`); returns ``(written, count)``."""
    request = plan.request
    backend, name, options = request.backend, request.name, request.options
    spec = _spec(request.embedder, plan, options.quantization, options.dense_window_tokens)
    if plan.added:
        journal.begin_tenant_addition(backend, name, plan.added)
    target = backend.load_target(name, spec, staged=plan.staged)
    keep = plan.keep

    def write() -> int:
        if keep is not None:  # the other tenants' points, as they are
            with clock.phase("copy"):
                _copy_kept(backend, name, target, keep, plan.manifest, options.batch_size)
        return _write_points(target, plan, clock)

    try:
        written, count = _fill(target, name, plan.manifest.chunk_count, write, clock)
    except Exception:
        if plan.added:  # a failed addition is taken out again (the others stay as they were)
            journal.settle(backend, name)
        raise
    if plan.added:
        journal.end_tenant_addition(backend, name)
    return written, count


def _spec(
    embedder: CachedEmbedder, plan: LoadPlan, quantization: str, dense_window_tokens: int
) -> IndexSpec:
    """The index a load of ``plan`` writes into (multivector with dense windows)."""
    return IndexSpec(
        dimensions=embedder.dimensions,
        sparse_names=plan.lexical.names,
        quantization=quantization,
        multivector=dense_window_tokens > 0,
    )


def _copy_kept(
    backend: IndexBackend,
    name: str,
    target: LoadTarget,
    keep: Where,
    manifest: Manifest,
    batch_size: int,
) -> int:
    """Copy the live version's points matching ``keep`` into a staged ``target``."""
    live = backend.open(name)
    try:
        return copy_points(live, target, keep, manifest, batch_size=batch_size)
    finally:
        live.close()


def _fill(
    target: LoadTarget, name: str, expected: int, write: Callable[[], int], clock: PhaseClock
) -> tuple[int, int]:
    """Steps 4-7 on ``target``: ``write`` (manifest and points; returns how many points),
    the count gate, optimize, then the switch live. Any failure aborts the target, so
    the store stays as it was. Returns ``(written, count)``.

    Raises:
        CountMismatch: the target's count is not ``expected`` after the writes.
    """
    try:
        written = write()
        with clock.phase("optimize"):
            count = target.index.count()
            if count != expected:
                raise CountMismatch(
                    f"collection {name!r} holds {count} points after the load, expected {expected}"
                )
            target.index.optimize()
            target.commit()
    except BaseException:
        target.abort()
        raise
    return written, count


__all__ = [
    "IngestReport",
    "LoadOptions",
    "LoadPlan",
    "LoadRequest",
    "build_manifest",
    "execute",
    "load_records",
    "plan_load",
]
