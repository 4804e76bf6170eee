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
present) writes nothing: it reports ``converged`` with ``upserted=0``.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from sectio.contract.profile import CorpusProfile
from sectio.contract.record import ChunkRecord, corpus_sha256
from sectio.embed.cache import CachedEmbedder
from sectio.embed.provider import describe as describe_provider
from sectio.errors import CountMismatch, ManifestMissing, VectorSizeError
from sectio.index.ids import point_id_for
from sectio.index.lexical import LexicalEncoder
from sectio.index.manifest import Manifest, assert_compatible
from sectio.index.port import IndexBackend, IndexSpec, LoadTarget, PointData
from sectio.ingest.chunking import dense_windows

ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class IngestReport:
    """What a load did. ``action`` is ``created``, ``converged`` or ``replaced``."""

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


def _plan_load(
    backend: IndexBackend,
    name: str,
    records: Sequence[ChunkRecord],
    profile: CorpusProfile,
    replace: bool,
    build: Callable[..., Manifest],
) -> _Plan:
    """Steps 1-2: the incoming manifest and the compatibility gate (nothing written).

    Raises:
        CorpusMismatch: another corpus is loaded and ``replace`` is False.
        ManifestMissing: the collection holds points but has no manifest.
    """
    lexical = LexicalEncoder(profile.lexical)
    texts = [r.index_text() for r in records]
    digest = corpus_sha256(records)
    exists = backend.exists(name)
    existing = backend.read_manifest(name) if exists else None
    # The BM25 fit (a tokenizer pass over the corpus) only matters if we write.
    sparse = None if _known_fit(lexical, existing, digest) else lexical.fit_documents(texts)
    manifest = build(lexical, profile, digest=digest)
    plan = _Plan("created", True, manifest, lexical, texts, sparse)
    if not exists:
        return plan
    if existing is None:
        held = backend.point_count(name)
        if held:
            raise ManifestMissing(
                f"collection {name!r} holds {held} points but no manifest; refusing to write"
            )
    elif existing.differences(plan.manifest):
        if not replace:
            assert_compatible(existing, plan.manifest)
        plan.action = "replaced"
    else:
        plan.action, plan.staged = "converged", False
        plan.manifest = plan.manifest.model_copy(update={"created_at": existing.created_at})
        held = backend.point_count(name)
        if held == len(records):
            # The same corpus, model and settings, every point present: nothing to write
            # (no embedding, upsert or optimize). A short count falls through and
            # re-upserts in place, which repairs it.
            plan.unchanged_count = held
    return plan


def _embed_batch(
    records: Sequence[ChunkRecord],
    picked: list[int],
    texts: Sequence[str],
    embedder: CachedEmbedder,
    dimensions: int,
    dense_window_tokens: int,
) -> list[np.ndarray] | np.ndarray:
    """Step 5: the dense vectors of ``picked`` (one matrix per chunk with windows),
    each checked for length and finiteness before anything is written.

    Raises:
        VectorSizeError: a vector of the wrong length, or with NaN or infinite values.
    """
    windows: list[list[str]] = []
    if dense_window_tokens:
        windows = [
            dense_windows(
                records[i].index_titles(),
                records[i].text,
                dense_window_tokens,
                embedder.count_tokens,
            )
            for i in picked
        ]
        vectors = embedder.embed_documents([w for group in windows for w in group])
    else:
        vectors = embedder.embed_documents([texts[i] for i in picked])
    if vectors.ndim != 2 or vectors.shape[1] != dimensions:
        raise VectorSizeError(
            f"embedder produced vectors of length {vectors.shape[-1]}, "
            f"the collection expects {dimensions}"
        )
    if not np.isfinite(vectors).all():
        raise VectorSizeError("embedder produced a vector with NaN or infinite values")
    return _per_chunk(vectors, windows) if dense_window_tokens else vectors


def _write_points(
    target: LoadTarget,
    records: Sequence[ChunkRecord],
    plan: _Plan,
    embedder: CachedEmbedder,
    batch_size: int,
    dense_window_tokens: int,
    progress: ProgressFn | None,
) -> int:
    """Steps 4-6: the manifest, then every record embedded and upserted in batches;
    returns how many points were written."""
    target.write_manifest(plan.manifest)
    sparse = plan.sparse if plan.sparse is not None else plan.lexical.fit_documents(plan.texts)
    total = len(records)
    upserted = 0
    # Shortest texts first: each batch then holds texts of about one length, so
    # the model pads little (as if the whole corpus were sorted at once).
    order = sorted(range(total), key=lambda i: len(plan.texts[i]))
    for start in range(0, total, batch_size):
        picked = order[start : start + batch_size]
        dense = _embed_batch(
            records, picked, plan.texts, embedder, plan.manifest.dimensions, dense_window_tokens
        )
        target.index.upsert(
            [
                PointData(
                    id=point_id_for(records[i].chunk_id),
                    dense=vec,
                    sparse=sparse[i],
                    payload=records[i].payload(),
                )
                for i, vec in zip(picked, dense, strict=True)
            ]
        )
        upserted += len(picked)
        if progress:
            progress(upserted, total)
    return upserted


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
    progress: ProgressFn | None = None,
) -> IngestReport:
    """Load validated ``records`` into collection ``name`` (steps 2-7 above).

    ``dense_window_tokens`` > 0 embeds every chunk longer than that as windows
    (:func:`~sectio.ingest.chunking.dense_windows`) into a multivector index,
    where a chunk's dense score is its best window's cosine. ``detected`` (what
    the source was taken for, and why) is passed through to the report.

    Raises:
        CorpusMismatch: another corpus is loaded and ``replace`` is False.
        ManifestMissing: the collection holds points but has no manifest.
        VectorSizeError: the embedder produced a vector of the wrong length.
        CountMismatch: the collection's count differs from the chunk count afterwards.
    """
    started = time.perf_counter()
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
    plan = _plan_load(backend, name, records, profile, replace, build)
    if plan.unchanged_count is not None:
        return report(plan.action, upserted=0, count=plan.unchanged_count)
    spec = IndexSpec(
        dimensions=embedder.dimensions,
        sparse_names=plan.lexical.names,
        quantization=quantization,
        multivector=dense_window_tokens > 0,
    )
    target = backend.load_target(name, spec, staged=plan.staged)
    upserted, count = _fill(
        target,
        name,
        len(records),
        lambda: _write_points(
            target, records, plan, embedder, batch_size, dense_window_tokens, progress
        ),
    )
    return report(plan.action, upserted=upserted, count=count)


def _fill(
    target: LoadTarget, name: str, expected: int, write: Callable[[], int]
) -> tuple[int, int]:
    """Steps 4-7 on ``target``: ``write`` (manifest and points; returns how many points),
    the count gate, optimize, then the switch live. Any failure aborts the target, so
    the store stays as it was. Returns ``(written, count)``.

    Raises:
        CountMismatch: the target's count is not ``expected`` after the writes.
    """
    try:
        written = write()
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


def _per_chunk(vectors: np.ndarray, windows: Sequence[Sequence[str]]) -> list[np.ndarray]:
    """The flat window vectors cut back into one matrix per chunk, in order."""
    out: list[np.ndarray] = []
    start = 0
    for group in windows:
        out.append(vectors[start : start + len(group)])
        start += len(group)
    return out


def tty_progress(
    label: str, enabled: bool | None = None
) -> tuple[ProgressFn | None, Callable[[], None]]:
    """A tqdm progress callback when stderr is a terminal, and its closer."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return None, lambda: None
    from tqdm import tqdm

    bar = tqdm(total=0, desc=label, unit="chunk", file=sys.stderr, leave=False)

    def update(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    return update, bar.close


__all__ = ["IngestReport", "build_manifest", "load_records", "tty_progress"]
