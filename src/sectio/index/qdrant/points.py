"""Points in and out: a :class:`PointData`'s vectors, a native record as a :class:`StoredPoint`.

Both client libraries return records with ``id``, ``payload``, ``vector`` (a dict
by vector name when vectors were asked for) and, for searches, ``score``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sectio.index.port import DENSE, PointData, SparseVec, StoredPoint, stored_dense
from sectio.index.qdrant.layout import ordinal, user_payload


def point_vectors(point: PointData, sparse: Callable[[SparseVec], Any]) -> dict[str, Any]:
    """The named vectors of ``point``: ``dense`` as floats, each sparse one through ``sparse``."""
    vector: dict[str, Any] = {DENSE: np.asarray(point.dense, dtype=np.float32).tolist()}
    for name, sv in point.sparse.items():
        vector[name] = sparse(sv)
    return vector


def stored_point(record: Any, sparse_type: type[Any], with_vectors: bool = False) -> StoredPoint:
    """A native record (scored or not) as a :class:`StoredPoint`.

    With ``with_vectors`` the dense value and every vector of ``sparse_type`` (the
    library's sparse vector class) are read back; a record whose vector is not a
    dict by name is read as a bare dense vector.
    """
    dense = None
    sparse: dict[str, SparseVec] | None = None
    vectors = getattr(record, "vector", None)
    if with_vectors and vectors is not None:
        vec = vectors.get(DENSE) if isinstance(vectors, dict) else vectors
        if vec is not None:
            dense = stored_dense(vec)
        if isinstance(vectors, dict):
            sparse = {
                name: SparseVec(tuple(int(i) for i in v.indices), tuple(float(x) for x in v.values))
                for name, v in vectors.items()
                if isinstance(v, sparse_type)
            }
    return StoredPoint(
        id=str(record.id),
        payload=user_payload(record.payload),
        score=getattr(record, "score", None),
        dense=dense,
        sparse=sparse,
        ordinal=ordinal(record.payload or {}),
    )
