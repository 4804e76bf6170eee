"""The reranker, as ``sectio.retrieve.rerank`` named it: it lives in :mod:`sectio.rerank`
(port, adapters, factory, fail-open), beside ``embed/`` and ``index/``."""

from __future__ import annotations

from sectio.rerank import (
    DEFAULT_TIMEOUT_S,
    CrossEncoderReranker,
    FakeReranker,
    HttpReranker,
    Reranked,
    Reranker,
    build_reranker,
    rerank_fail_open,
)

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "CrossEncoderReranker",
    "FakeReranker",
    "HttpReranker",
    "Reranked",
    "Reranker",
    "build_reranker",
    "rerank_fail_open",
]
