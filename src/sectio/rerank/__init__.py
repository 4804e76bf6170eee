"""The Reranker port, its adapters, its factory and fail-open reranking (beside ``embed/``
and ``index/``).

Adapters (chosen in one place, :func:`build_reranker`, from settings):

* :class:`CrossEncoderReranker`: a fastembed ``TextCrossEncoder`` loaded from a
  local model folder (``SECTIO_RERANK_MODEL_PATH``; nothing is downloaded, and
  no cross-encoder with bundled weights exists on PyPI);
* :class:`HttpReranker`: a Cohere-compatible ``/rerank`` HTTP API
  (``SECTIO_RERANK_URL``, ``SECTIO_RERANK_API_KEY``, ``SECTIO_RERANK_MODEL``);
* :class:`FakeReranker`: deterministic word overlap, library code for tests; it
  can be told to fail or to be slow.

The default is no reranker. Reranking is an ordering aid and always fails
open: an error or a timeout leaves the original order and is recorded in the
result's details; it never removes evidence and never lifts the token budget.
The timeout is one setting, ``SECTIO_RERANK_TIMEOUT_S`` (:data:`DEFAULT_TIMEOUT_S`
its default; a profile's ``[policy] rerank_timeout_s`` overrides it for a
collection).

Example:
    >>> r = FakeReranker()
    >>> r.rerank("kidney dose", ["liver", "kidney dose adjustment"])
    [0.0, 2.0]
"""

from __future__ import annotations

from sectio.rerank.adapters import CrossEncoderReranker, HttpReranker
from sectio.rerank.factory import build_reranker
from sectio.rerank.fail_open import Reranked, rerank_fail_open
from sectio.rerank.fake import FakeReranker
from sectio.rerank.port import DEFAULT_TIMEOUT_S, Reranker

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
