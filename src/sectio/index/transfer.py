"""``sectio export`` / ``sectio import``: a collection copied to or from a named endpoint.

The endpoint is parsed and opened by :mod:`sectio.index.factory`; the copy itself
(arrival gate, staged version, count check) is :func:`sectio.index.copy.copy_collection`.
"""

from __future__ import annotations

from collections.abc import Callable

from sectio.errors import ConfigError
from sectio.index.copy import TransferReport, copy_collection
from sectio.index.edge.store import EdgeBackend
from sectio.index.factory import opened, parse_endpoint
from sectio.index.manifest import Manifest
from sectio.index.port import IndexBackend
from sectio.settings import Settings


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
    """Copy ``collection`` of the configured ``backend`` to the endpoint ``dest``.

    Raises:
        ConfigError: a bad endpoint, or the source itself as the target.
        and what :func:`~sectio.index.copy.copy_collection` raises.
    """
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
    into ``collection`` of the configured ``backend``.

    Raises:
        ConfigError: a bad endpoint, or the target itself as the source.
        and what :func:`~sectio.index.copy.copy_collection` raises.
    """
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


__all__ = ["export_collection", "import_collection"]
