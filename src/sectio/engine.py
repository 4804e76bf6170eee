"""The Python API: one object holding settings, the embedder, the backend and open collections.

Example:
    >>> from sectio import Sectio, Settings
    >>> s = Sectio(Settings(home="/tmp/sectio-doc", embedder="fake"))  # doctest: +SKIP
    >>> s.ingest("chunks.jsonl", collection="docs")  # doctest: +SKIP
    >>> s.search("aspirin dose", collection="docs").hits[0].doc_id  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sectio.contract.profile import CorpusProfile, load_profile
from sectio.contract.result import SearchResult
from sectio.embed.cache import CachedEmbedder
from sectio.embed.factory import build_cached_embedder
from sectio.embed.port import Embedder
from sectio.errors import CollectionNotFound
from sectio.index.collection import Collection, open_collection
from sectio.index.factory import build_backend
from sectio.index.manifest import Manifest, check_serving
from sectio.index.port import IndexBackend
from sectio.ingest.loader import IngestReport, load_records
from sectio.ingest.readers import read_source
from sectio.retrieve.search import search_dense
from sectio.settings import Settings

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
    ) -> None:
        self.settings = settings or Settings()
        self._inner_embedder = embedder
        self._embedder: CachedEmbedder | None = None
        self.backend = backend or build_backend(self.settings)
        self._open: dict[str, Collection] = {}

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
        progress: Callable[[int, int], None] | None = None,
    ) -> IngestReport:
        """Read, validate and load a source into ``collection``; see :mod:`sectio.ingest.loader`."""
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
        tenant: str,
    ) -> SearchResult:
        """Dense search (hybrid and lexical arrive with the search work)."""
        return search_dense(self.collection(collection), self.embedder, query, top_k, tenant)

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
