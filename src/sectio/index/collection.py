"""Opening a collection for queries: the start-up gate lives here, and only here.

Every query path goes through :func:`open_collection`, which compares the
manifest with the configured embedder (model id, dimensions) and refuses on a
mismatch or a missing manifest.
"""

from __future__ import annotations

from dataclasses import dataclass

from sectio.contract.profile import CorpusProfile, LexicalSettings, profile_from_dict
from sectio.embed.port import Embedder
from sectio.errors import CollectionNotFound
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
    fields = set(LexicalSettings.model_fields)
    settings = LexicalSettings(**{k: v for k, v in manifest.bm25.items() if k in fields})
    return LexicalEncoder(settings, avg_len=dict(manifest.bm25.get("avg_len", {})))


def open_collection(backend: IndexBackend, name: str, embedder: Embedder) -> Collection:
    """Open ``name`` for queries after the start-up gate.

    Raises:
        CollectionNotFound: no such collection.
        ManifestMissing: it has no manifest.
        ManifestMismatch: the configured embedder differs from the manifest's.
    """
    if not backend.exists(name):
        raise CollectionNotFound(f"no collection named {name!r}; ingest one first")
    manifest = check_serving(
        backend.read_manifest(name), name, embedder.model_id, embedder.dimensions
    )
    profile = (
        profile_from_dict(manifest.profile) if manifest.profile else CorpusProfile(name="generic")
    )
    return Collection(
        name=name,
        manifest=manifest,
        profile=profile,
        index=backend.open(name),
        lexical=lexical_from_manifest(manifest),
    )
