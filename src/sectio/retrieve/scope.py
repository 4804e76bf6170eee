"""``ReadScope``: everything a route reads with, for one collection and one tenant.

One object instead of the parameters every route used to thread through:
the open collection, the caller's tenant, the :class:`TenantGuard` that
re-checks every point read (drops are counted on /metrics), the policy
numbers, the embedder, the fusion settings and the reranker (built on first
use, fail-open).

Example:
    >>> from sectio.retrieve.scope import no_reranker
    >>> no_reranker()
    (None, None)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from sectio.contract.profile import CorpusProfile
from sectio.embed.port import Embedder
from sectio.index.collection import Collection
from sectio.index.port import VectorIndex
from sectio.rerank import Reranker
from sectio.retrieve.fusion import FusionParams
from sectio.retrieve.policy import EvidencePolicy
from sectio.retrieve.reads import TenantGuard

#: Gives the configured reranker (or None) and the error that kept it from loading (or None).
RerankerProvider = Callable[[], tuple[Reranker | None, str | None]]


def no_reranker() -> tuple[Reranker | None, str | None]:
    """The provider of a scope without a reranker."""
    return None, None


@dataclass(frozen=True)
class ReadScope:
    """What a route reads with: one collection, one tenant (never changes during a turn).

    Attributes:
        collection: the open, gated collection.
        tenant: the caller's tenant; every engine query carries it.
        guard: the second tenant check of every point read.
        policy: the route numbers (profile ``[policy]`` over the seed defaults).
        embedder: the query embedder (its LRU makes a second embed of a question free).
        fusion: how fused queries weigh and widen their lists.
        reranker: the reranker provider (fail-open: ``(None, error)`` when it cannot load).
    """

    collection: Collection
    tenant: str
    guard: TenantGuard
    policy: EvidencePolicy
    embedder: Embedder
    fusion: FusionParams = field(default_factory=FusionParams)
    reranker: RerankerProvider = no_reranker

    @property
    def index(self) -> VectorIndex:
        return self.collection.index

    @property
    def profile(self) -> CorpusProfile:
        return self.collection.profile

    @property
    def page_size(self) -> int:
        """Scroll page size of complete reads (they page to the end)."""
        return self.policy.section_page_size

    def query_vector(self, question: str) -> npt.NDArray[np.float32]:
        """The question's dense vector (float32)."""
        return np.asarray(self.embedder.embed_query(question), dtype=np.float32)

    def query_vectors(self, questions: Sequence[str]) -> npt.NDArray[np.float32]:
        """Dense vectors of a fixed bank of questions (calibration, intent examples), in
        order: from the embedder's disk cache when it has one (``embed_query_bank``: the
        model runs once per ``SECTIO_HOME``), else one batched model call (its query
        cache's ``prefetch_queries``); each row equals :meth:`query_vector` of its question
        (to float rounding)."""
        bank = getattr(self.embedder, "embed_query_bank", None)
        if bank is not None:
            return np.asarray(bank(questions), dtype=np.float32)
        prefetch = getattr(self.embedder, "prefetch_queries", None)
        if prefetch is not None:
            prefetch(questions)
        return np.stack([self.query_vector(q) for q in questions])

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` with the embedder's own tokenizer (packing budgets)."""
        return self.embedder.count_tokens(text)
