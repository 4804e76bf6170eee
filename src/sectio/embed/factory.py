"""The one place that chooses the embedder from settings."""

from __future__ import annotations

from sectio.embed.cache import CachedEmbedder
from sectio.embed.fake import FakeEmbedder
from sectio.embed.port import Embedder
from sectio.settings import Settings


def build_embedder(settings: Settings) -> Embedder:
    """The configured embedder (not cached)."""
    if settings.embedder == "fake":
        return FakeEmbedder(dimensions=settings.fake_dimensions)
    if settings.embedder == "e5":
        from sectio.embed.e5 import E5Embedder

        return E5Embedder(max_length=settings.embed_max_length, threads=settings.embed_threads)
    from sectio.embed.minilm import MiniLMEmbedder

    return MiniLMEmbedder(
        settings.cache_dir,
        max_length=settings.embed_max_length,
        batch_size=settings.embed_batch_size,
        threads=settings.embed_threads,
        batch_tokens=settings.embed_batch_tokens,
    )


def build_cached_embedder(settings: Settings, inner: Embedder | None = None) -> CachedEmbedder:
    """The configured embedder behind the document cache (``SECTIO_HOME``) and the query LRU."""
    return CachedEmbedder(
        inner or build_embedder(settings),
        settings.cache_dir / "embeddings.sqlite",
        query_cache_size=settings.query_cache_size,
    )
