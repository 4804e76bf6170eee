"""Copying a collection between two stores (any two ``IndexBackend``) without re-embedding.

A copy reads the source with its vectors (scroll pages with dense and sparse
vectors), writes a staged new version on the target in batches, checks the
count, and switches it live: the target's old collection (if any) stays whole
until then. Points keep their ids and payloads; the manifest travels with them.

The arrival gate: before anything is written, ``verify`` sees the manifest
(the CLI passes :func:`serving_gate` with the configured embedder), and a
target holding another corpus is refused unless ``replace``. Copies between
named endpoints (``sectio export`` / ``import``) are in :mod:`sectio.index.transfer`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from sectio.errors import CollectionNotFound, CountMismatch, ManifestMissing, VectorSizeError
from sectio.index.filters import Where
from sectio.index.manifest import Manifest, assert_compatible, check_serving
from sectio.index.port import (
    IndexBackend,
    IndexSpec,
    LoadTarget,
    PointData,
    StoredDense,
    VectorIndex,
    WriteSize,
    dense_rows,
)
from sectio.index.qdrant.layout import with_ordinal


@dataclass(frozen=True)
class TransferReport:
    """What a copy did."""

    source: str
    target: str
    collection: str
    target_collection: str
    points: int
    seconds: float
    manifest: Manifest

    def as_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "target": self.target,
            "collection": self.collection,
            "target_collection": self.target_collection,
            "points": self.points,
            "seconds": self.seconds,
            "corpus_sha256": self.manifest.corpus_sha256,
            "model_id": self.manifest.model_id,
        }


def copy_collection(
    src: IndexBackend,
    src_name: str,
    dst: IndexBackend,
    dst_name: str,
    *,
    verify: Callable[[Manifest], None] | None = None,
    replace: bool = False,
    batch_size: int = 256,
    quantization: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TransferReport:
    """Copy ``src_name`` of ``src`` to ``dst_name`` of ``dst`` (vectors, payloads, manifest).

    Raises:
        CollectionNotFound: no such source collection.
        ManifestMissing: the source has no manifest, or the target holds points without one.
        ManifestMismatch: (from ``verify``) the target's embedder differs from the manifest.
        CorpusMismatch: the target holds another corpus and ``replace`` is False.
        VectorSizeError: a source point lacks its dense vector or has the wrong length.
        CountMismatch: the copy's count differs from the manifest's chunk count.
        CollectionBusy: another process writes the target collection.
        InsufficientSpace: the target's disk lacks room for the copy.
    """
    started = time.perf_counter()
    manifest = _arriving_manifest(src, src_name, dst_name, quantization)
    size = WriteSize(manifest.chunk_count, manifest.dimensions)
    with dst.writing(dst_name, "import", size):
        count = _gated_copy(
            src,
            src_name,
            dst,
            dst_name,
            manifest,
            verify,
            replace,
            quantization is not None,
            batch_size,
            progress,
        )
    return TransferReport(
        source=getattr(src, "kind", "?"),
        target=getattr(dst, "kind", "?"),
        collection=src_name,
        target_collection=dst_name,
        points=count,
        seconds=round(time.perf_counter() - started, 3),
        manifest=manifest,
    )


def _gated_copy(
    src: IndexBackend,
    src_name: str,
    dst: IndexBackend,
    dst_name: str,
    manifest: Manifest,
    verify: Callable[[Manifest], None] | None,
    replace: bool,
    requantize: bool,
    batch_size: int,
    progress: Callable[[int, int], None] | None,
) -> int:
    """The arrival gate, then the staged copy and its switch; the count copied."""
    # the arrival gate: nothing has been written yet.
    if verify is not None:
        verify(manifest)
    _check_target(dst, dst_name, manifest, replace=replace, requantize=requantize)
    source = src.open(src_name)
    try:
        expected = source.count()
        if expected != manifest.chunk_count:
            raise CountMismatch(
                f"source {src_name!r} holds {expected} points, its manifest says "
                f"{manifest.chunk_count}"
            )
        target = dst.load_target(dst_name, IndexSpec.from_manifest(manifest), staged=True)
        try:
            target.write_manifest(manifest)
            count = _copy_points(source, target, src_name, manifest, batch_size, progress)
            if count != expected:
                raise CountMismatch(
                    f"target {dst_name!r} holds {count} points after the copy, expected {expected}"
                )
            target.index.optimize()
            target.commit()
        except BaseException:
            target.abort()
            raise
    finally:
        source.close()
    return count


def _arriving_manifest(
    src: IndexBackend, src_name: str, dst_name: str, quantization: str | None
) -> Manifest:
    """The source's manifest as the target will hold it (its name, a new quantization).

    Raises:
        CollectionNotFound: no such source collection.
        ManifestMissing: the source has no manifest.
    """
    if not src.exists(src_name):
        raise CollectionNotFound(f"no collection named {src_name!r} to copy")
    found = src.read_manifest(src_name)
    if found is None:
        raise ManifestMissing(f"collection {src_name!r} has no manifest; refusing to copy it")
    update: dict[str, object] = {"collection": dst_name}
    if quantization is not None:
        update["quantization"] = quantization
    return found.model_copy(update=update)


def _check_target(
    dst: IndexBackend, dst_name: str, manifest: Manifest, *, replace: bool, requantize: bool
) -> None:
    """Refuse a target holding points without a manifest, or (unless ``replace``) another corpus.

    Raises:
        ManifestMissing: the target holds points but no manifest.
        CorpusMismatch: the target holds another corpus.
    """
    if not dst.exists(dst_name):
        return
    existing = dst.read_manifest(dst_name)
    if existing is None:
        held = dst.point_count(dst_name)
        if held:
            raise ManifestMissing(
                f"target {dst_name!r} holds {held} points but no manifest; refusing to write"
            )
    elif not replace:
        diff = existing.differences(manifest)
        # an explicit --quantization is a request to rebuild with it: not a conflict
        if diff and not (requantize and diff == ["quantization"]):
            assert_compatible(existing, manifest)


def _copy_points(
    source: VectorIndex,
    target: LoadTarget,
    src_name: str,
    manifest: Manifest,
    batch_size: int,
    progress: Callable[[int, int], None] | None,
) -> int:
    """Scroll every point of ``source`` with its vectors into ``target``; its count after.

    Raises:
        VectorSizeError: a point lacks its dense vector or has the wrong length.
    """
    copy_points(
        source,
        target,
        None,
        manifest,
        batch_size=batch_size,
        progress=progress,
        label=repr(src_name),
    )
    return target.index.count()


def copy_points(
    source: VectorIndex,
    target: LoadTarget,
    where: Where | None,
    manifest: Manifest,
    *,
    batch_size: int = 256,
    progress: Callable[[int, int], None] | None = None,
    label: str = "the live version",
) -> int:
    """Scroll the points of ``source`` matching ``where`` with their vectors (no
    re-embedding) into ``target``, in batches; how many were copied.

    A load that replaces one tenant of a shared collection keeps the other
    tenants' points this way (see :mod:`sectio.ingest.tenancy`).

    Raises:
        VectorSizeError: a point lacks its dense vector or has the wrong length.
    """
    expected = manifest.chunk_count
    copied = 0
    offset: str | None = None
    while True:
        page, offset = source.scroll(where, limit=batch_size, offset=offset, with_vectors=True)
        points = []
        for p in page:
            if p.dense is None or not _dense_fits(p.dense, manifest):
                raise VectorSizeError(
                    f"point {p.id} of {label} has no dense vector of length {manifest.dimensions}"
                )
            payload = with_ordinal(p.payload, p.ordinal)
            points.append(PointData(id=p.id, dense=p.dense, sparse=p.sparse or {}, payload=payload))
        target.index.upsert(points)
        copied += len(points)
        if progress:
            progress(copied, expected)
        if offset is None or not page:
            break
    return copied


def serving_gate(name: str, model_id: str, dimensions: int) -> Callable[[Manifest], None]:
    """The arrival gate: the configured embedder must be the manifest's (``check_serving``)."""

    def verify(manifest: Manifest) -> None:
        check_serving(manifest, name, model_id, dimensions)

    return verify


def _dense_fits(dense: StoredDense, manifest: Manifest) -> bool:
    """One vector of the manifest's length, or (windowed collections) one or more of them."""
    windowed = manifest.dense_window_tokens > 0
    if not windowed and (not dense or isinstance(dense[0], tuple)):
        return False
    rows = dense_rows(dense)
    return rows.ndim == 2 and len(rows) >= 1 and rows.shape[1] == manifest.dimensions


__all__ = ["TransferReport", "copy_collection", "copy_points", "serving_gate"]
