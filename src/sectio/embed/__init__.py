"""Embedding: one port, the default offline MiniLM adapter, a fake, and the cache."""

from sectio.embed.cache import CachedEmbedder, CacheStats
from sectio.embed.factory import build_cached_embedder, build_embedder
from sectio.embed.fake import FakeEmbedder
from sectio.embed.port import Embedder

__all__ = [
    "CacheStats",
    "CachedEmbedder",
    "Embedder",
    "FakeEmbedder",
    "build_cached_embedder",
    "build_embedder",
]
