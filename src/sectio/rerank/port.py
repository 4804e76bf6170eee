"""The Reranker port and its one timeout default."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from sectio.settings import Settings

#: Seconds before a reranker is abandoned: the default of ``SECTIO_RERANK_TIMEOUT_S``,
#: defined once (in :class:`~sectio.settings.Settings`).
DEFAULT_TIMEOUT_S: float = float(Settings.model_fields["rerank_timeout_s"].default)


@runtime_checkable
class Reranker(Protocol):
    """Scores documents against a query; higher is more relevant.

    ``rerank`` returns one score per document, in the order given. It may raise
    anything: callers go through :func:`rerank_fail_open`.
    """

    name: str

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        """One relevance score per document, same order as ``documents``."""
        ...
