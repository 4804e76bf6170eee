"""Qdrant Edge layout: per-tenant HNSW graphs only, and a dense search outside a tenant scans."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sectio.index.edge.index import EdgeIndex
from sectio.index.filters import Where, tenant_where
from sectio.index.ids import point_id_for
from sectio.index.port import IndexSpec, PointData

N, TENANTS = 12_000, 3  # 18 MB of float32 vectors: over the full-scan threshold, so optimize
# builds HNSW; each tenant's 4,000 points are under it, so a tenant's search is exact.


def test_no_global_graph_yet_every_dense_search_finds_the_nearest(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    vecs = rng.standard_normal((N, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    index = EdgeIndex.create(tmp_path / "shard", IndexSpec(dimensions=384, sparse_names=()))
    try:
        for start in range(0, N, 1000):
            index.upsert(
                [
                    PointData(
                        id=point_id_for(f"c{i}"),
                        dense=vecs[i],
                        sparse={},
                        payload={"chunk_id": f"c{i}", "tenant": f"t{i % TENANTS}", "text": "x"},
                    )
                    for i in range(start, start + 1000)
                ]
            )
        index.optimize()
        for i in (0, 1, 4_000, 11_999):
            probe = vecs[i] + 0.05 * rng.standard_normal(384).astype(np.float32)
            mine = index.search_dense(probe, 5, tenant_where(f"t{i % TENANTS}"))
            assert mine[0].id == point_id_for(f"c{i}")
            assert {p.payload["tenant"] for p in mine} == {f"t{i % TENANTS}"}
            # no tenant named: there is no global graph to walk (m=0), so this scans
            for where in (None, Where()):
                assert index.search_dense(probe, 5, where)[0].id == point_id_for(f"c{i}")
    finally:
        index.close()
