"""Moving a collection between stores (edge <-> server) without re-embedding.

A copy reads the source with its vectors (scroll pages with dense and sparse
vectors), writes a staged new version on the target in batches, checks the
count, and switches it live: the target's old collection (if any) stays whole
until then. Points keep their ids and payloads; the manifest travels with them.

The arrival gate: before anything is written, ``verify`` sees the manifest
(the CLI passes :func:`sectio.index.manifest.check_serving` with the configured
embedder), and a target holding another corpus is refused unless ``replace``.

Endpoints (what ``sectio export --to`` and ``sectio import FROM`` accept):

=======================  ===========================================================
``http(s)://host:6333``  a Qdrant server (the API key: ``SECTIO_QDRANT_API_KEY``)
``local:PATH``           qdrant-client local mode storage at PATH (``local::memory:``)
``edge:PATH`` or ``PATH``  another ``SECTIO_HOME``: its Qdrant Edge store
                         (``PATH/collections``)
=======================  ===========================================================

Example:
    >>> parse_endpoint("http://qdrant:6333").kind, parse_endpoint("/srv/home").kind
    ('server', 'edge')
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sectio.errors import (
    CollectionNotFound,
    ConfigError,
    CountMismatch,
    ManifestMissing,
    VectorSizeError,
)
from sectio.index.edge_store import EdgeBackend, spec_from_manifest
from sectio.index.manifest import Manifest, assert_compatible, check_serving
from sectio.index.port import IndexBackend, PointData, StoredDense, dense_rows
from sectio.settings import Settings

EndpointKind = Literal["server", "local", "edge"]


@dataclass(frozen=True)
class Endpoint:
    """Where a copy reads or writes: a server URL, a local-mode location or an edge home."""

    kind: EndpointKind
    target: str

    def __str__(self) -> str:
        return self.target if self.kind == "server" else f"{self.kind}:{self.target}"


def parse_endpoint(text: str) -> Endpoint:
    """Parse ``http(s)://...``, ``local:PATH``, ``edge:PATH`` or a plain path.

    Raises:
        ConfigError: empty, or a path that is a file (a snapshot file is ``sectio restore``'s).
    """
    text = text.strip()
    if not text:
        raise ConfigError("empty endpoint: give http(s)://host:port, local:PATH or a SECTIO_HOME")
    if text.startswith(("http://", "https://")):
        return Endpoint("server", text.rstrip("/"))
    if text.startswith("local:"):
        location = text[len("local:") :]
        if not location:
            raise ConfigError("local: needs a folder (or :memory:)")
        return Endpoint("local", location)
    path = text[len("edge:") :] if text.startswith("edge:") else text
    if Path(path).is_file():
        raise ConfigError(f"{path} is a file; restore a snapshot file with `sectio restore`")
    return Endpoint("edge", str(Path(path).expanduser()))


def backend_for(endpoint: Endpoint, settings: Settings) -> IndexBackend:
    """The backend behind ``endpoint`` (server options and API key from ``settings``)."""
    if endpoint.kind == "edge":
        return EdgeBackend(Path(endpoint.target) / "collections")
    from sectio.index.server import build_server_backend

    update: dict[str, object] = {"qdrant_url": None, "qdrant_location": None}
    update["qdrant_url" if endpoint.kind == "server" else "qdrant_location"] = endpoint.target
    return build_server_backend(settings.model_copy(update=update))


@contextmanager
def opened(endpoint: Endpoint, settings: Settings) -> Iterator[IndexBackend]:
    """:func:`backend_for`, closed afterwards (local mode holds a lock on its folder)."""
    backend = backend_for(endpoint, settings)
    try:
        yield backend
    finally:
        close = getattr(backend, "close", None)
        if callable(close):
            close()


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
    """
    started = time.perf_counter()
    if not src.exists(src_name):
        raise CollectionNotFound(f"no collection named {src_name!r} to copy")
    found = src.read_manifest(src_name)
    if found is None:
        raise ManifestMissing(f"collection {src_name!r} has no manifest; refusing to copy it")
    update: dict[str, object] = {"collection": dst_name}
    if quantization is not None:
        update["quantization"] = quantization
    manifest = found.model_copy(update=update)
    # the arrival gate: nothing has been written yet.
    if verify is not None:
        verify(manifest)
    if dst.exists(dst_name):
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
            if diff and not (quantization is not None and diff == ["quantization"]):
                assert_compatible(existing, manifest)
    source = src.open(src_name)
    try:
        expected = source.count()
        if expected != manifest.chunk_count:
            raise CountMismatch(
                f"source {src_name!r} holds {expected} points, its manifest says "
                f"{manifest.chunk_count}"
            )
        target = dst.load_target(dst_name, spec_from_manifest(manifest), staged=True)
        try:
            target.write_manifest(manifest)
            copied = 0
            offset: str | None = None
            while True:
                page, offset = source.scroll(
                    None, limit=batch_size, offset=offset, with_vectors=True
                )
                points = []
                for p in page:
                    if p.dense is None or not _dense_fits(p.dense, manifest):
                        raise VectorSizeError(
                            f"point {p.id} of {src_name!r} has no dense vector of length "
                            f"{manifest.dimensions}"
                        )
                    points.append(
                        PointData(id=p.id, dense=p.dense, sparse=p.sparse or {}, payload=p.payload)
                    )
                target.index.upsert(points)
                copied += len(points)
                if progress:
                    progress(copied, expected)
                if offset is None or not page:
                    break
            count = target.index.count()
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
    return TransferReport(
        source=getattr(src, "kind", "?"),
        target=getattr(dst, "kind", "?"),
        collection=src_name,
        target_collection=dst_name,
        points=count,
        seconds=round(time.perf_counter() - started, 3),
        manifest=manifest,
    )


def serving_gate(name: str, model_id: str, dimensions: int) -> Callable[[Manifest], None]:
    """The arrival gate: the configured embedder must be the manifest's (``check_serving``)."""

    def verify(manifest: Manifest) -> None:
        check_serving(manifest, name, model_id, dimensions)

    return verify


def export_collection(
    backend: IndexBackend,
    collection: str,
    dest: str,
    settings: Settings,
    *,
    as_name: str | None = None,
    verify: Callable[[Manifest], None] | None = None,
    replace: bool = False,
    quantization: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TransferReport:
    """Copy ``collection`` of the configured ``backend`` to the endpoint ``dest``."""
    endpoint = parse_endpoint(dest)
    with opened(endpoint, settings) as target:
        _refuse_same_store(backend, target, collection, as_name or collection)
        report = copy_collection(
            backend,
            collection,
            target,
            as_name or collection,
            verify=verify,
            replace=replace,
            batch_size=settings.upsert_batch_size,
            quantization=quantization,
            progress=progress,
        )
    return _with_ends(report, source=backend.kind, target=str(endpoint))


def import_collection(
    backend: IndexBackend,
    source: str,
    settings: Settings,
    *,
    collection: str,
    source_collection: str | None = None,
    verify: Callable[[Manifest], None] | None = None,
    replace: bool = False,
    quantization: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TransferReport:
    """Copy ``source_collection`` (default ``collection``) from the endpoint ``source``
    into ``collection`` of the configured ``backend``."""
    endpoint = parse_endpoint(source)
    with opened(endpoint, settings) as origin:
        _refuse_same_store(origin, backend, source_collection or collection, collection)
        report = copy_collection(
            origin,
            source_collection or collection,
            backend,
            collection,
            verify=verify,
            replace=replace,
            batch_size=settings.upsert_batch_size,
            quantization=quantization,
            progress=progress,
        )
    return _with_ends(report, source=str(endpoint), target=backend.kind)


def _dense_fits(dense: StoredDense, manifest: Manifest) -> bool:
    """One vector of the manifest's length, or (windowed collections) one or more of them."""
    windowed = manifest.dense_window_tokens > 0
    if not windowed and (not dense or isinstance(dense[0], tuple)):
        return False
    rows = dense_rows(dense)
    return rows.ndim == 2 and len(rows) >= 1 and rows.shape[1] == manifest.dimensions


def _refuse_same_store(src: IndexBackend, dst: IndexBackend, src_name: str, dst_name: str) -> None:
    same_edge = (
        isinstance(src, EdgeBackend)
        and isinstance(dst, EdgeBackend)
        and src.root.resolve() == dst.root.resolve()
    )
    if same_edge and src_name == dst_name:
        raise ConfigError(f"source and target are the same collection {src_name!r}")


def _with_ends(report: TransferReport, *, source: str, target: str) -> TransferReport:
    return TransferReport(
        source=source,
        target=target,
        collection=report.collection,
        target_collection=report.target_collection,
        points=report.points,
        seconds=report.seconds,
        manifest=report.manifest,
    )


__all__ = [
    "Endpoint",
    "TransferReport",
    "backend_for",
    "copy_collection",
    "export_collection",
    "import_collection",
    "opened",
    "parse_endpoint",
    "serving_gate",
]
