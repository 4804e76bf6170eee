"""The search skeletons both Qdrant adapters share (see :class:`QdrantIndexBase`)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from sectio.index.filters import Where
from sectio.index.port import DenseVector, IndexSpec, SparseVec, StoredPoint
from sectio.index.qdrant.points import stored_point
from sectio.index.qdrant.requests import Search, dense_search, fused_search, sparse_search


class QdrantIndexBase:
    """The read side of a :class:`sectio.index.port.VectorIndex` on Qdrant, written once.

    Searches are built as neutral :class:`~sectio.index.qdrant.requests.Search` plans
    and handed to :meth:`_run`, the one method an adapter must implement for them;
    :meth:`_exact_for` and :meth:`_errors` are the adapter's hooks. Results come back
    best first, as :class:`StoredPoint` with the ``_sectio`` copies removed.

    Errors: whatever :meth:`_errors` translates the client's errors into
    (:class:`sectio.errors.IndexError_` in both adapters).
    """

    spec: IndexSpec
    #: The client library's sparse vector class (how vectors read back are recognised).
    sparse_type: type[Any]

    def _run(self, search: Search) -> list[Any]:
        """Run one plan; native hits, best first."""
        raise NotImplementedError

    def _exact_for(self, where: Where | None) -> bool:
        """Whether a dense search under ``where`` must be exact (default: never)."""
        return False

    def _errors(self, what: str) -> AbstractContextManager[None]:
        """A context translating the client's errors in ``what`` (default: none)."""
        return contextlib.nullcontext()

    def _stored(self, hits: Sequence[Any], with_vectors: bool = False) -> list[StoredPoint]:
        return [stored_point(h, self.sparse_type, with_vectors) for h in hits]

    def search_dense(
        self,
        vector: DenseVector,
        limit: int,
        where: Where | None = None,
        score_threshold: float | None = None,
        with_payload: bool = True,
    ) -> list[StoredPoint]:
        """See :meth:`sectio.index.port.VectorIndex.search_dense`."""
        plan = dense_search(
            vector,
            limit,
            where,
            exact=self._exact_for(where),
            score_threshold=score_threshold,
            with_payload=with_payload,
        )
        with self._errors("search_dense"):
            return self._stored(self._run(plan))

    def search_sparse(
        self,
        name: str,
        vector: SparseVec,
        limit: int,
        where: Where | None = None,
        idf_where: Where | None = None,
        with_payload: bool = True,
    ) -> list[StoredPoint]:
        """See :meth:`sectio.index.port.VectorIndex.search_sparse`."""
        plan = sparse_search(name, vector, limit, where, idf_where, with_payload=with_payload)
        with self._errors("search_sparse"):
            return self._stored(self._run(plan))

    def search_fused(
        self,
        dense: DenseVector | None,
        sparse: dict[str, SparseVec],
        pool: int,
        limit: int,
        where: Where | None,
        rrf_k: int,
        weights: Sequence[float] | None = None,
        with_vectors: bool = False,
        idf_where: Where | None = None,
    ) -> list[StoredPoint]:
        """See :meth:`sectio.index.port.VectorIndex.search_fused`."""
        plan = fused_search(
            dense,
            sparse,
            pool=pool,
            limit=limit,
            where=where,
            rrf_k=rrf_k,
            weights=weights,
            with_dense=with_vectors,
            idf_where=idf_where,
            exact=self._exact_for(where),
        )
        if plan is None:
            return []
        with self._errors("search_fused"):
            return self._stored(self._run(plan), with_vectors)
