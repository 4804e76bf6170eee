"""Qdrant Edge adapter: the embedded default, the Qdrant engine in-process.

Collections on disk (versions, manifests, snapshots) are in
:mod:`sectio.index.edge_store`. One process owns a shard folder at a time (edge
holds a WAL lock), and every call holds the GIL: optimize only at ingest.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
from qdrant_edge import (
    CountRequest,
    Distance,
    EdgeConfig,
    EdgeShard,
    EdgeSparseVectorParams,
    EdgeVectorParams,
    FieldCondition,
    Filter,
    Fusion,
    HasIdCondition,
    HnswIndexConfig,
    IdfParams,
    IntegerIndexParams,
    KeywordIndexParams,
    MatchAny,
    MatchPhrase,
    MatchPrefix,
    MatchTextAny,
    MatchValue,
    Modifier,
    MultiVectorComparator,
    MultiVectorConfig,
    Point,
    Prefetch,
    Query,
    QueryRequest,
    RangeFloat,
    ScalarQuantizationConfig,
    ScalarType,
    ScrollRequest,
    SearchParams,
    SparseVector,
    TextIndexParams,
    TokenizerType,
    UpdateOperation,
)

from sectio.errors import IndexError_
from sectio.index.filters import AnyOf, Condition, Eq, HasIds, Phrase, Prefix, Range, TextAny, Where
from sectio.index.port import (
    DENSE,
    DenseVector,
    IndexSpec,
    PointData,
    SparseVec,
    StoredPoint,
    stored_dense,
)

#: Payload indexes created with every collection. ``enable_hnsw=False`` except on the
#: tenant index keeps optimize() affordable (ENGINE-NOTES: 79 s vs 475 s per 100k).
KEYWORD_FIELDS = (
    "chunk_id",
    "doc_id",
    "section_key",
    "chunk_kind",
    "tags",
    "path",
    "parent_id",
    "layer",
    "metadata.domain",
    "metadata.subdomain",
)
#: Flags are indexed as 0/1 integers under ``_sectio``: bool filters never match in edge.
FLAG_FIELDS = ("requires_visual_check", "has_quarantined_content")
RESERVED = "_sectio"


def flag_key(flag: str) -> str:
    """The payload key of a flag's filterable 0/1 copy."""
    return f"{RESERVED}.{flag}"


def _to_condition(cond: Condition) -> Any:
    if isinstance(cond, Eq):
        return FieldCondition(key=cond.key, match=MatchValue(cond.value))
    if isinstance(cond, AnyOf):
        values: Any = list(cond.values)  # all str or all int by construction
        return FieldCondition(key=cond.key, match=MatchAny(values))
    if isinstance(cond, Prefix):
        return FieldCondition(key=cond.key, match=MatchPrefix(cond.prefix))
    if isinstance(cond, Phrase):
        return FieldCondition(key=cond.key, match=MatchPhrase(cond.phrase))
    if isinstance(cond, TextAny):
        return FieldCondition(key=cond.key, match=MatchTextAny(cond.text))
    if isinstance(cond, Range):
        return FieldCondition(key=cond.key, range=RangeFloat(gte=cond.gte, lte=cond.lte))
    if isinstance(cond, HasIds):
        return HasIdCondition(set(cond.ids))
    raise IndexError_(f"unsupported filter condition {cond!r}")


def to_filter(where: Where | None) -> Filter | None:
    """Translate the neutral filter into an edge ``Filter`` (None for no filter)."""
    if where is None or (not where.must and not where.must_not):
        return None
    return Filter(
        must=[_to_condition(c) for c in where.must] or None,
        must_not=[_to_condition(c) for c in where.must_not] or None,
    )


def _dense_params(where: Where | None) -> SearchParams | None:
    """Search parameters for a dense query: exact when ``where`` names no tenant.

    Shards hold only per-tenant HNSW graphs (``m=0``, ``payload_m=16``), so a dense
    search that is not scoped to one tenant has no graph to walk; it scans instead,
    which is slow but right. Every read path of the library names a tenant.
    """
    if where is not None and any(isinstance(c, Eq) and c.key == "tenant" for c in where.must):
        return None
    return SearchParams(exact=True)


def _sparse(vec: SparseVec) -> SparseVector:
    return SparseVector(indices=list(vec.indices), values=list(vec.values))


def _stored(point: Any, with_vectors: bool = False) -> StoredPoint:
    payload = dict(point.payload or {})
    payload.pop(RESERVED, None)
    dense = None
    sparse: dict[str, SparseVec] | None = None
    if with_vectors and point.vector is not None:
        vec = point.vector.get(DENSE) if isinstance(point.vector, dict) else point.vector
        if vec is not None:
            dense = stored_dense(vec)
        if isinstance(point.vector, dict):
            sparse = {
                name: SparseVec(tuple(int(i) for i in v.indices), tuple(float(x) for x in v.values))
                for name, v in point.vector.items()
                if isinstance(v, SparseVector)
            }
    return StoredPoint(
        id=str(point.id),
        payload=payload,
        score=getattr(point, "score", None),
        dense=dense,
        sparse=sparse,
    )


def engine_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """The stored payload: the whole record, plus filterable copies under ``_sectio``."""
    out = dict(payload)
    out[RESERVED] = {flag: 1 if payload.get(flag) else 0 for flag in FLAG_FIELDS}
    return out


class EdgeIndex:
    """One open EdgeShard. See :class:`sectio.index.port.VectorIndex`."""

    def __init__(self, shard: EdgeShard, spec: IndexSpec, path: Path) -> None:
        self._shard: EdgeShard | None = shard
        self.spec = spec
        self.path = path

    @property
    def shard(self) -> EdgeShard:
        if self._shard is None:
            raise IndexError_(f"collection at {self.path} is closed")
        return self._shard

    @classmethod
    def create(cls, path: Path, spec: IndexSpec) -> EdgeIndex:
        """Create an empty shard with its vectors and payload indexes."""
        quant = None
        if spec.quantization == "int8":
            quant = ScalarQuantizationConfig(type=ScalarType.Int8, quantile=0.99, always_ram=True)
        config = EdgeConfig(
            vectors={
                # int8: the quantized copy in RAM is searched; the float32 originals live
                # on disk (mmap) and are read only to rescore (benchmarks/capacity.py: with
                # originals in RAM, int8 cost 9% more memory instead of 27% less).
                DENSE: EdgeVectorParams(
                    size=spec.dimensions,
                    distance=Distance.Cosine,
                    quantization_config=quant,
                    on_disk=True if quant is not None else None,
                    multivector_config=MultiVectorConfig(MultiVectorComparator.MaxSim)
                    if spec.multivector
                    else None,
                )
            },
            sparse_vectors={
                name: EdgeSparseVectorParams(modifier=Modifier.Idf) for name in spec.sparse_names
            },
            # No global graph: one HNSW graph per tenant (Qdrant's multitenancy layout).
            # Every read path filters by tenant, so a global graph was never walked
            # alone, and it cost a second build (100k chunks in 3 tenants: optimize
            # 98 -> 72 s) while filtered recall got better (see
            # :func:`_dense_params` for a search that names no tenant).
            hnsw_config=HnswIndexConfig(
                m=0, ef_construct=100, full_scan_threshold=10_000, payload_m=16
            ),
            # Search in the calling thread: a pool hand-off cost ~0.25 ms a query (demo
            # corpus: dense 0.58 -> 0.32 ms, hybrid 1.29 -> 0.84 ms), and a server runs
            # every engine call on one thread anyway.
            max_search_threads=1,
        )
        path.mkdir(parents=True, exist_ok=True)
        shard = EdgeShard.create(str(path), config)
        index = cls(shard, spec, path)
        index._create_payload_indexes()
        return index

    @classmethod
    def load(cls, path: Path, spec: IndexSpec) -> EdgeIndex:
        try:
            shard = EdgeShard.load(str(path))
        except Exception as exc:
            raise IndexError_(f"cannot open collection at {path}: {exc}") from exc
        return cls(shard, spec, path)

    def _create_payload_indexes(self) -> None:
        ops = [
            UpdateOperation.create_field_index(
                "tenant", KeywordIndexParams(is_tenant=True, enable_hnsw=True)
            )
        ]
        for name in KEYWORD_FIELDS:
            prefix = name == "path"
            ops.append(
                UpdateOperation.create_field_index(
                    name, KeywordIndexParams(enable_hnsw=False, prefix=prefix or None)
                )
            )
        ops.append(
            UpdateOperation.create_field_index(
                "part_index", IntegerIndexParams(lookup=True, range=True, enable_hnsw=False)
            )
        )
        for flag in FLAG_FIELDS:
            ops.append(
                UpdateOperation.create_field_index(
                    flag_key(flag), IntegerIndexParams(lookup=True, range=False, enable_hnsw=False)
                )
            )
        ops.append(
            UpdateOperation.create_field_index(
                "text",
                TextIndexParams(
                    tokenizer=TokenizerType.Multilingual,
                    lowercase=True,
                    ascii_folding=True,
                    phrase_matching=True,
                    enable_hnsw=False,
                ),
            )
        )
        for op in ops:
            self.shard.update(op)

    # --- writes -----------------------------------------------------------------
    def upsert(self, points: Sequence[PointData]) -> None:
        edge_points = []
        for p in points:
            vector: dict[str, Any] = {DENSE: np.asarray(p.dense, dtype=np.float32).tolist()}
            for name, sv in p.sparse.items():
                vector[name] = _sparse(sv)
            edge_points.append(Point(id=p.id, vector=vector, payload=engine_payload(p.payload)))
        if edge_points:
            self.shard.update(UpdateOperation.upsert_points(edge_points))

    def optimize(self) -> None:
        self.shard.optimize()

    def flush(self) -> None:
        self.shard.flush()

    def close(self) -> None:
        if self._shard is not None:
            with contextlib.suppress(Exception):
                self._shard.flush()
            self._shard.close()
            self._shard = None

    # --- reads --------------------------------------------------------------------
    def count(self, where: Where | None = None) -> int:
        return int(self.shard.count(CountRequest(exact=True, filter=to_filter(where))))

    def scroll(
        self,
        where: Where | None,
        limit: int = 256,
        offset: str | None = None,
        with_vectors: bool = False,
    ) -> tuple[list[StoredPoint], str | None]:
        records, next_offset = self.shard.scroll(
            ScrollRequest(
                offset=offset,
                limit=limit,
                filter=to_filter(where),
                with_payload=True,
                with_vector=with_vectors,
            )
        )
        return [_stored(r, with_vectors) for r in records], (
            str(next_offset) if next_offset else None
        )

    def retrieve(self, ids: Sequence[str], with_vectors: bool = False) -> list[StoredPoint]:
        if not ids:
            return []
        records = self.shard.retrieve(list(ids), with_payload=True, with_vector=with_vectors)
        return [_stored(r, with_vectors) for r in records]

    def search_dense(
        self,
        vector: DenseVector,
        limit: int,
        where: Where | None = None,
        score_threshold: float | None = None,
        with_payload: bool = True,
    ) -> list[StoredPoint]:
        hits = self.shard.query(
            QueryRequest(
                limit=limit,
                query=Query.Nearest([float(x) for x in vector], using=DENSE),
                filter=to_filter(where),
                params=_dense_params(where),
                with_payload=with_payload,
                with_vector=False,
                score_threshold=score_threshold,
            )
        )
        return [_stored(h) for h in hits]

    def search_sparse(
        self,
        name: str,
        vector: SparseVec,
        limit: int,
        where: Where | None = None,
        idf_where: Where | None = None,
    ) -> list[StoredPoint]:
        params = SearchParams(idf=IdfParams(corpus=to_filter(idf_where))) if idf_where else None
        hits = self.shard.query(
            QueryRequest(
                limit=limit,
                query=Query.Nearest(_sparse(vector), using=name),
                filter=to_filter(where),
                with_payload=True,
                with_vector=False,
                params=params,
            )
        )
        return [_stored(h) for h in hits]

    def search_fused_dense_scored(
        self,
        dense: DenseVector,
        sparse: dict[str, SparseVec],
        pool: int,
        limit: int,
        where: Where | None,
        rrf_k: int,
        weights: Sequence[float] | None = None,
    ) -> tuple[list[StoredPoint], dict[str, float]]:
        """Hybrid fusion with one graph traversal (see :class:`DenseScoredFusion`).

        The dense candidates are found first (ids and scores only); the fusion's
        dense prefetch then re-ranks exactly those ids, an exact search over
        ``pool`` points, so the fused ranking equals :meth:`search_fused`'s.
        """
        vector = [float(x) for x in dense]
        flt = to_filter(where)
        first = self.shard.query(
            QueryRequest(
                limit=pool,
                query=Query.Nearest(vector, using=DENSE),
                filter=flt,
                params=_dense_params(where),
                with_payload=False,
                with_vector=False,
            )
        )
        # keyed by the engine's own ids: only the returned hits are turned into strings
        candidates = {h.id: float(h.score) for h in first}
        fusion_weights = list(weights) if weights else None
        prefetches = []
        if candidates:
            base = where or Where()
            scope = Filter(
                must=[*map(_to_condition, base.must), HasIdCondition(set(candidates))],
                must_not=[_to_condition(c) for c in base.must_not] or None,
            )
            prefetches.append(
                Prefetch(
                    limit=pool,
                    query=Query.Nearest(vector, using=DENSE),
                    filter=scope,
                    params=_dense_params(where),
                )
            )
        elif fusion_weights:
            fusion_weights = fusion_weights[1:]  # no dense candidates, no dense list
        for name, vec in sparse.items():
            prefetches.append(
                Prefetch(limit=pool, query=Query.Nearest(_sparse(vec), using=name), filter=flt)
            )
        if not prefetches:
            return [], {}
        hits = self.shard.query(
            QueryRequest(
                limit=limit,
                prefetches=prefetches,
                query=cast(Any, Fusion.Rrf(k=rrf_k, weights=fusion_weights)),
                filter=flt,
                with_payload=True,
                with_vector=False,
            )
        )
        points = [_stored(h) for h in hits]
        cosines = {
            p.id: candidates[h.id] for p, h in zip(points, hits, strict=True) if h.id in candidates
        }
        return points, cosines

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
        flt = to_filter(where)
        params = SearchParams(idf=IdfParams(corpus=to_filter(idf_where))) if idf_where else None
        prefetches = []
        if dense is not None:
            prefetches.append(
                Prefetch(
                    limit=pool,
                    query=Query.Nearest([float(x) for x in dense], using=DENSE),
                    filter=flt,
                    params=_dense_params(where),
                )
            )
        for name, vec in sparse.items():
            prefetches.append(
                Prefetch(
                    limit=pool,
                    query=Query.Nearest(_sparse(vec), using=name),
                    filter=flt,
                    params=params,
                )
            )
        if not prefetches:
            return []
        hits = self.shard.query(
            QueryRequest(
                limit=limit,
                prefetches=prefetches,
                query=cast(Any, Fusion.Rrf(k=rrf_k, weights=list(weights) if weights else None)),
                filter=flt,
                with_payload=True,
                with_vector=[DENSE] if with_vectors else False,
            )
        )
        return [_stored(h, with_vectors) for h in hits]
