"""How hybrid lists are widened and fused: one :class:`FusionParams`, read by every fused query.

Reciprocal rank fusion inside the engine: each list contributes
``1 / (rank / weight + rrf_k - 1)`` (rank from 1; Qdrant's weighted RRF, which
is the paper's ``1 / (rrf_k + rank - 1)`` at weight 1) to a point's fusion
value; search shows each hit's rank in each list (``Evidence.scores``). The
values come from settings (``SECTIO_RRF_K``, ``SECTIO_HYBRID_*``), chosen on
SciFact train (see the README's results table).

Example:
    >>> FusionParams(pool_factor=5, pool_min=50).pool(20)
    100
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sectio.settings import Settings


@dataclass(frozen=True)
class FusionParams:
    """How hybrid search widens and fuses its candidate lists.

    Example:
        >>> FusionParams(rrf_k=2).weights(sparse_names=("bm25", "bm25_folded"))
        [1.0, 0.6, 0.6]
    """

    rrf_k: int = 2
    pool_factor: int = 5
    pool_min: int = 50
    pool_max: int = 1000
    dense_weight: float = 1.0
    lexical_weight: float = 1.2

    @classmethod
    def from_settings(cls, settings: Settings) -> FusionParams:
        return cls(
            rrf_k=settings.rrf_k,
            pool_factor=settings.hybrid_pool_factor,
            pool_min=settings.hybrid_pool_min,
            pool_max=settings.hybrid_pool_max,
            dense_weight=settings.hybrid_dense_weight,
            lexical_weight=settings.hybrid_lexical_weight,
        )

    def pool(self, limit: int) -> int:
        """Candidates each list takes for a final cut of ``limit`` (never fewer than ``limit``)."""
        return max(limit, min(self.pool_max, max(self.pool_min, self.pool_factor * limit)))

    def top_value(self, *, sparse_names: Sequence[str] = ()) -> float:
        """The fusion value of a point first in every list (a unit for score boosts).

        Example:
            >>> FusionParams(rrf_k=2).top_value(sparse_names=("bm25",))
            1.1
        """
        return sum(self.weights(sparse_names=sparse_names)) / self.rrf_k

    def weights(self, *, dense: bool = True, sparse_names: Sequence[str] = ()) -> list[float]:
        """RRF weights in prefetch order: dense first, then the BM25 variants.

        Exact and accent-folded BM25 share the lexical weight, so a document
        both rank first counts as much as one plain BM25 list would.
        """
        out = [self.dense_weight] if dense else []
        if sparse_names:
            out.extend([self.lexical_weight / len(sparse_names)] * len(sparse_names))
        return out
