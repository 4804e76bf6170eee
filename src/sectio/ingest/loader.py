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

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

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

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


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


@dataclass
class _Plan:
    """What a load will do, decided before anything is written."""

    action: str
    staged: bool
    manifest: Manifest
    lexical: LexicalEncoder
    texts: list[str]
    #: The BM25 document vectors; None until needed (a known fit skips the pass).
    sparse: list[Any] | None
    #: The collection's count when nothing needs writing (an identical corpus), else None.
    unchanged_count: int | None = None
    #: The live points a staged version keeps (the other tenants'), None for none.
    keep: Where | None = None
    #: True: BM25 document weights fitted on this load; False: the collection's ``avg_len``.
    refit: bool = True


def _plan_load(
    backend: IndexBackend,
    name: str,
    records: Sequence[ChunkRecord],
    profile: CorpusProfile,
    replace: bool,
    build: Callable[..., Manifest],
    source: str | None = None,
    clock: PhaseClock | None = None,
) -> _Plan:
    """Steps 1-2: the incoming manifest and the compatibility gate (nothing written).

    A collection with per-tenant corpora is planned tenant by tenant
    (:mod:`sectio.ingest.tenancy`); one without (new, or an old manifest holding
    only the tenants loaded) as one corpus.

    Raises:
        CorpusMismatch: another corpus is loaded and ``replace`` is False (see tenancy).
        ManifestMissing: the collection holds points but has no manifest.
        ContractError: chunk ids already belong to another tenant's points.
    """
    lexical = LexicalEncoder(profile.lexical)
    texts = [r.index_text() for r in records]
    corpora = tenant_corpora(records, source)
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
        shared = _Shared(backend, name, records, existing, tenants, corpora, profile)
        return _plan_shared(shared, _Plan("", True, existing, lexical, texts, None), build, replace)
    digest = _digest(existing, corpora, records)
    # The BM25 fit (a tokenizer pass over the corpus) only matters if we write.
    sparse = None
    if not _known_fit(lexical, existing, digest):
        with (clock or PhaseClock()).phase("tokenize", total=len(texts)):
            sparse = lexical.fit_documents(texts)
    manifest = build(lexical, profile, digest=digest).model_copy(update={"tenants": corpora})
    plan = _Plan("created", True, manifest, lexical, texts, sparse)
    if existing is None:
        return plan
    if existing.differences(plan.manifest):
        if not replace:
            assert_compatible(existing, plan.manifest)
        plan.action = "replaced"
    else:
        _converge(plan, existing, backend.point_count(name), len(records))
    return plan


def _converge(plan: _Plan, existing: Manifest, held: int, loaded: int) -> None:
    """The same corpus: written in place, and not at all when every point is there
    (no embedding, upsert or optimize); a short count re-upserts in place (a repair)."""
    plan.action, plan.staged = "converged", False
    plan.manifest = plan.manifest.model_copy(update={"created_at": existing.created_at})
    if held == loaded:
        plan.unchanged_count = held


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

    backend: IndexBackend
    name: str
    records: Sequence[ChunkRecord]
    existing: Manifest
    held: dict[str, Any]
    corpora: dict[str, Any]
    profile: CorpusProfile


def _plan_shared(
    shared: _Shared, plan: _Plan, build: Callable[..., Manifest], replace: bool
) -> _Plan:
    """Plan a load tenant by tenant (see :func:`sectio.ingest.tenancy.plan_tenants`).

    The load's documents are weighted with the collection's BM25 fit unless the
    whole collection is rebuilt; chunk ids are checked against the other tenants'.

    Raises:
        CorpusMismatch: see :func:`~sectio.ingest.tenancy.plan_tenants`.
        ContractError: chunk ids already belong to another tenant's points.
    """
    existing, held, corpora, lexical = shared.existing, shared.held, shared.corpora, plan.lexical
    fitted = existing.bm25.get("avg_len") or {}
    lexical.avg_len = {str(k): float(v) for k, v in fitted.items()}
    digest = collection_digest(corpora)
    incoming = merged_manifest(build(lexical, shared.profile, digest=digest), held, corpora)
    decided = plan_tenants(existing, incoming, held, corpora, replace=replace)
    if decided.refit:  # the whole collection rebuilt: this load's own fit and manifest
        sparse = lexical.fit_documents(plan.texts)
        manifest = build(lexical, shared.profile, digest=digest)
        return _Plan(
            "replaced",
            True,
            manifest.model_copy(update={"tenants": corpora}),
            lexical,
            plan.texts,
            sparse,
        )
    plan.action, plan.staged, plan.keep, plan.refit = (
        decided.action,
        decided.staged,
        decided.keep,
        False,
    )
    plan.manifest = incoming
    index = shared.backend.open(shared.name)
    try:
        if set(held) - set(corpora):
            ids = [point_id_for(r.chunk_id) for r in shared.records]
            check_unique_ids(index, shared.name, ids, shared.records)
        loaded = index.count(Where.of(AnyOf("tenant", tuple(corpora))))
        total = index.count()
    finally:
        index.close()
    if decided.action != "replaced":
        plan.manifest = incoming.model_copy(update={"created_at": existing.created_at})
    if decided.action == "converged" and loaded == len(shared.records):
        plan.unchanged_count = total
    return plan


def _write_points(
    target: LoadTarget,
    records: Sequence[ChunkRecord],
    plan: _Plan,
    embedder: CachedEmbedder,
    batch_size: int,
    dense_window_tokens: int,
    clock: PhaseClock,
) -> int:
    """Steps 4-6: the manifest, then every record's vector (see
    :mod:`sectio.ingest.embedding`), then the points upserted in batches; returns how
    many points were written."""
    target.write_manifest(plan.manifest)
    sparse = plan.sparse
    if sparse is None:
        lexical = plan.lexical
        with clock.phase("tokenize", total=len(plan.texts)):
            sparse = (lexical.fit_documents if plan.refit else lexical.encode_documents)(plan.texts)
    dense = embed_records(
        records,
        plan.texts,
        embedder,
        clock,
        batch_size=batch_size,
        dense_window_tokens=dense_window_tokens,
    )
    total = len(records)
    with clock.phase("upsert", total=total) as tick:
        for start in range(0, total, batch_size):
            picked = range(start, min(start + batch_size, total))
            target.index.upsert(
                [
                    PointData(
                        id=point_id_for(records[i].chunk_id),
                        dense=dense[i],
                        sparse=sparse[i],
                        payload=records[i].payload(),
                    )
                    for i in picked
                ]
            )
            tick(picked.stop)
    return total


def load_records(
    backend: IndexBackend,
    name: str,
    records: Sequence[ChunkRecord],
    embedder: CachedEmbedder,
    profile: CorpusProfile,
    *,
    replace: bool = False,
    batch_size: int = 256,
    quantization: str = "int8",
    dense_window_tokens: int = 0,
    source: str = "",
    fmt: str = "chunks",
    detected: str = "",
    clock: PhaseClock | None = None,
) -> IngestReport:
    """Load validated ``records`` into collection ``name`` (steps 2-7 above).

    ``dense_window_tokens`` > 0 embeds every chunk longer than that as windows
    (:func:`~sectio.ingest.chunking.dense_windows`) into a multivector index,
    where a chunk's dense score is its best window's cosine. ``detected`` (what
    the source was taken for, and why) is passed through to the report. ``clock``
    times the phases (:mod:`sectio.ingest.phases`); the report's ``phases`` are its seconds.

    Raises:
        CorpusMismatch: another corpus is loaded and ``replace`` is False; or a load
            would change the settings other tenants share (see tenancy).
        ContractError: chunk ids already belong to another tenant's points.
        ManifestMissing: the collection holds points but has no manifest.
        VectorSizeError: the embedder produced a vector of the wrong length.
        CountMismatch: the collection's count differs from the chunk count afterwards.
    """
    started = time.perf_counter()
    clock = clock or PhaseClock()
    stats_before = (embedder.stats.computed, embedder.stats.cached)

    def report(action: str, upserted: int, count: int) -> IngestReport:
        return IngestReport(
            collection=name,
            source=source,
            format=fmt,
            action=action,
            chunks_read=len(records),
            upserted=upserted,
            collection_count=count,
            embeddings_computed=embedder.stats.computed - stats_before[0],
            embeddings_cached=embedder.stats.cached - stats_before[1],
            seconds=round(time.perf_counter() - started, 3),
            detected=detected,
            phases=clock.seconds(),
        )

    build = functools.partial(
        build_manifest,
        name,
        records,
        embedder,
        quantization=quantization,
        dense_window_tokens=dense_window_tokens,
        batch_size=batch_size,
        source=source,
    )
    with clock.phase("plan"):
        plan = _plan_load(backend, name, records, profile, replace, build, source or None, clock)
    if plan.unchanged_count is not None:
        return report(plan.action, upserted=0, count=plan.unchanged_count)
    spec = _spec(embedder, plan, quantization, dense_window_tokens)
    target = backend.load_target(name, spec, staged=plan.staged)
    keep = plan.keep

    def write() -> int:
        if keep is not None:  # the other tenants' points, as they are
            with clock.phase("copy"):
                _copy_kept(backend, name, target, keep, plan.manifest, batch_size)
        return _write_points(
            target, records, plan, embedder, batch_size, dense_window_tokens, clock
        )

    upserted, count = _fill(target, name, plan.manifest.chunk_count, write, clock)
    return report(plan.action, upserted=upserted, count=count)


def _spec(
    embedder: CachedEmbedder, plan: _Plan, quantization: str, dense_window_tokens: int
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


__all__ = ["IngestReport", "build_manifest", "load_records"]
