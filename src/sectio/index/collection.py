"""Opening a collection for queries: the start-up gate lives here, and only here.

Every query path goes through :func:`open_collection`, which compares the
manifest with the configured embedder (model id, dimensions) and refuses on a
mismatch or a missing manifest.
"""

from __future__ import annotations

from dataclasses import dataclass

from sectio.contract.profile import CorpusProfile, profile_from_dict
from sectio.embed.port import Embedder
from sectio.errors import CollectionNotFound, ManifestMismatch
from sectio.index.fit_check import avg_len_mismatch
from sectio.index.lexical import LexicalEncoder
from sectio.index.manifest import Manifest, check_serving
from sectio.index.port import IndexBackend, VectorIndex


@dataclass
class Collection:
    """An open, gated collection: its manifest, profile, index and BM25 query encoder."""

    name: str
    manifest: Manifest
    profile: CorpusProfile
    index: VectorIndex
    lexical: LexicalEncoder

    def close(self) -> None:
        self.index.close()


def lexical_from_manifest(manifest: Manifest) -> LexicalEncoder:
    """The BM25 encoder a collection was built with (settings and avg_len from its manifest)."""
    return LexicalEncoder.from_manifest_entry(manifest.bm25)


def open_collection(backend: IndexBackend, name: str, embedder: Embedder) -> Collection:
    """Open ``name`` for queries after the start-up gate.

    Raises:
        CollectionNotFound: no such collection.
        ManifestMissing: it has no manifest.
        ManifestMismatch: the configured embedder differs from the manifest's, or the
            manifest's BM25 ``avg_len`` is not the one its points were weighted with.
    """
    if not backend.exists(name):
        raise CollectionNotFound(f"no collection named {name!r}; ingest one first")
    manifest = check_serving(
        backend.read_manifest(name), name, embedder.model_id, embedder.dimensions
    )
    profile = (
        profile_from_dict(manifest.profile) if manifest.profile else CorpusProfile(name="generic")
    )
    index = backend.open(name)
    try:
        _check_fit(index, manifest, name)
    except BaseException:
        index.close()
        raise
    return Collection(
        name=name,
        manifest=manifest,
        profile=profile,
        index=index,
        lexical=lexical_from_manifest(manifest),
    )


def _check_fit(index: VectorIndex, manifest: Manifest, name: str) -> None:
    """Refuse a manifest whose BM25 ``avg_len`` is not its points' (:mod:`sectio.index.fit_check`).

    Raises:
        ManifestMismatch: naming the field, the manifest's value and the points'.
    """
    why = avg_len_mismatch(index, manifest)
    if why is not None:
        raise ManifestMismatch(
            f"collection {name!r}: its manifest does not fit its points: {why}; restore it "
            "from a good snapshot or rebuild it (`sectio ingest --replace`)"
        )
