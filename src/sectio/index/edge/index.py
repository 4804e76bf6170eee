"""Qdrant Edge adapter: the embedded default, the Qdrant engine in-process.

Collections on disk (versions, manifests, snapshots) are in
:mod:`sectio.index.edge.store`. One process owns a shard folder at a time (edge
holds a WAL lock), and every call holds the GIL: optimize only at ingest.
The searches themselves are the shared skeletons of
:class:`sectio.index.qdrant.base.QdrantIndexBase`; this module renders their plans
as edge ``QueryRequest`` objects.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

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

from sectio.errors import CollectionBusy, IndexError_, InsufficientSpace
from sectio.index.edge import tally
from sectio.index.filters import Where
from sectio.index.port import (
    DENSE,
    IndexSpec,
    PointData,
    SparseVec,
    StoredPoint,
)
from sectio.index.qdrant import requests as rq
from sectio.index.qdrant.base import QdrantIndexBase
from sectio.index.qdrant.filters import names_tenant, to_filter
from sectio.index.qdrant.layout import (
    INT8_QUANTILE,
    PAYLOAD_INDEXES,
    PayloadIndex,
    engine_payload,
)
from sectio.index.qdrant.points import point_vectors

log = logging.getLogger(__name__)


class EdgeConditions:
    """:class:`sectio.index.qdrant.filters.ConditionBuilder` for ``qdrant_edge``."""

    def match_value(self, key: str, value: str | int) -> Any:
        return FieldCondition(key=key, match=MatchValue(value))

    def match_any(self, key: str, values: list[Any]) -> Any:
        return FieldCondition(key=key, match=MatchAny(values))

    def match_prefix(self, key: str, prefix: str) -> Any:
        return FieldCondition(key=key, match=MatchPrefix(prefix))

    def match_phrase(self, key: str, phrase: str) -> Any:
        return FieldCondition(key=key, match=MatchPhrase(phrase))

    def match_text_any(self, key: str, text: str) -> Any:
        return FieldCondition(key=key, match=MatchTextAny(text))

    def range(self, key: str, gte: float | None, lte: float | None) -> Any:
        return FieldCondition(key=key, range=RangeFloat(gte=gte, lte=lte))

    def has_ids(self, ids: Sequence[Any]) -> Any:
        return HasIdCondition(set(ids))

    def filter(self, must: list[Any] | None, must_not: list[Any] | None) -> Any:
        return Filter(must=must, must_not=must_not)


EDGE = EdgeConditions()


def edge_filter(where: Where | None, *extra_must: Any) -> Filter | None:
    """The edge ``Filter`` for ``where`` (None for no filter)."""
    return cast("Filter | None", to_filter(where, EDGE, *extra_must))


def _sparse(vec: SparseVec) -> SparseVector:
    return SparseVector(indices=list(vec.indices), values=list(vec.values))


def _idf_params(idf_where: Where | None) -> SearchParams | None:
    return SearchParams(idf=IdfParams(corpus=edge_filter(idf_where))) if idf_where else None


def _exact_params(exact: bool) -> SearchParams | None:
    return SearchParams(exact=True) if exact else None


def _query(nearest: rq.Nearest) -> Any:
    vector: Any = _sparse(nearest.sparse) if nearest.sparse is not None else nearest.dense
    return Query.Nearest(vector, using=nearest.using)


def _prefetch(p: rq.Prefetch) -> Prefetch:
    params = _idf_params(p.idf_where) if p.idf_where else _exact_params(p.exact)
    return Prefetch(
        limit=p.limit, query=_query(p.nearest), filter=edge_filter(p.where), params=params
    )


def _field_index(spec: PayloadIndex) -> Any:
    """The edge params of one payload index (only the tenant index builds HNSW links)."""
    if spec.kind == "tenant":
        return KeywordIndexParams(is_tenant=True, enable_hnsw=True)
    if spec.kind == "keyword":
        return KeywordIndexParams(enable_hnsw=False, prefix=spec.prefix or None)
    if spec.kind == "integer":
        return IntegerIndexParams(lookup=True, range=spec.range, enable_hnsw=False)
    return TextIndexParams(
        tokenizer=TokenizerType.Multilingual,
        lowercase=True,
        ascii_folding=True,
        phrase_matching=True,
        enable_hnsw=False,
    )


def edge_config(spec: IndexSpec) -> EdgeConfig:
    """The shard configuration of a collection of ``spec``."""
    quant = None
    if spec.quantization == "int8":
        quant = ScalarQuantizationConfig(
            type=ScalarType.Int8, quantile=INT8_QUANTILE, always_ram=True
        )
    return EdgeConfig(
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
        # :meth:`EdgeIndex._exact_for` for a search that names no tenant).
        hnsw_config=HnswIndexConfig(
            m=0, ef_construct=100, full_scan_threshold=10_000, payload_m=16
        ),
        # Search in the calling thread: a pool hand-off cost ~0.25 ms a query (demo
        # corpus: dense 0.58 -> 0.32 ms, hybrid 1.29 -> 0.84 ms), and a server runs
        # every engine call on one thread anyway.
        max_search_threads=1,
    )


class EdgeIndex(QdrantIndexBase):
    """One open EdgeShard. See :class:`sectio.index.port.VectorIndex`.

    Example:
        >>> import tempfile, pathlib
        >>> idx = EdgeIndex.create(pathlib.Path(tempfile.mkdtemp()) / "s", IndexSpec(4))
        >>> idx.count()
        0
        >>> idx.close()
    """

    sparse_type = SparseVector

    def __init__(self, shard: EdgeShard, spec: IndexSpec, path: Path) -> None:
        self._shard: EdgeShard | None = shard
        self.spec = spec
        self.path = path
        #: A private copy this index was opened from (removed on close; see
        #: :mod:`sectio.index.edge.readonly`), else None.
        self.owned_copy: Path | None = None
        #: The version folder in which :meth:`close` records the shard's point count
        #: (:mod:`sectio.index.edge.tally`; set by the store), else None.
        self.count_record: Path | None = None
        #: BM25 IDF per tenant (:func:`sectio.index.qdrant.requests.tenant_idf`), as the
        #: server adapter always does; no setting turns it off (benchmarks/tenant_idf.py
        #: switches it to measure its cost).
        self.tenant_idf = True

    @property
    def shard(self) -> EdgeShard:
        if self._shard is None:
            raise IndexError_(f"collection at {self.path} is closed")
        return self._shard

    @classmethod
    def create(cls, path: Path, spec: IndexSpec) -> EdgeIndex:
        """Create an empty shard with its vectors and payload indexes."""
        path.mkdir(parents=True, exist_ok=True)
        index = cls(EdgeShard.create(str(path), edge_config(spec)), spec, path)
        for field_index in PAYLOAD_INDEXES:
            index.shard.update(
                UpdateOperation.create_field_index(field_index.field, _field_index(field_index))
            )
        return index

    @classmethod
    def load(cls, path: Path, spec: IndexSpec) -> EdgeIndex:
        """Open an existing shard.

        Raises:
            CollectionBusy: another process has it open (Qdrant Edge's WAL lock).
            InsufficientSpace: the disk is full (opening writes a little).
            IndexError_: it cannot be opened (missing, damaged).
        """
        try:
            shard = EdgeShard.load(str(path))
        except Exception as exc:
            if "WouldBlock" in str(exc):  # the WAL lock: another process has it open
                raise CollectionBusy(f"collection at {path} is open in another process") from exc
            if "os error 28" in str(exc):  # ENOSPC: opening saves a little state
                raise InsufficientSpace(
                    f"cannot open collection at {path}: the disk is full; free some space "
                    "(`sectio gc` removes what crashed writes left)"
                ) from exc
            raise IndexError_(f"cannot open collection at {path}: {exc}") from exc
        return cls(shard, spec, path)

    # --- writes -----------------------------------------------------------------
    def upsert(self, points: Sequence[PointData]) -> None:
        edge_points = [
            Point(id=p.id, vector=point_vectors(p, _sparse), payload=engine_payload(p.payload))
            for p in points
        ]
        if edge_points:
            self.shard.update(UpdateOperation.upsert_points(edge_points))

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self.shard.update(UpdateOperation.delete_points(list(ids)))

    def optimize(self) -> None:
        self.shard.optimize()

    def flush(self) -> None:
        self.shard.flush()

    def close(self) -> None:
        """Close the shard; Qdrant Edge's ``close`` flushes it (an ``msync`` of every
        segment: a ``flush`` before it synced everything twice, ~0.25 s of a read-only
        command's exit on a busy disk). With :attr:`count_record` set, the count it
        holds is recorded for the next reader (every open rewrites a few of its files,
        so a record written before this close no longer holds)."""
        if self._shard is not None:
            count = self._final_count()
            self._shard.close()
            self._shard = None
            if count is not None and self.count_record is not None:
                tally.remember(self.count_record, count)
        if self.owned_copy is not None:
            shutil.rmtree(self.owned_copy, ignore_errors=True)
            self.owned_copy = None

    def _final_count(self) -> int | None:
        """The count to record at close; None when none is to be (or it cannot be read:
        a record is an optimisation, never a reason for a close to fail)."""
        if self.count_record is None:
            return None
        try:
            return self.count()
        except Exception as exc:  # the engine's errors have no common base
            log.debug("no count recorded for %s: %s", self.path, exc)
            return None

    # --- reads --------------------------------------------------------------------
    def _exact_for(self, where: Where | None) -> bool:
        """Exact when ``where`` names no tenant.

        Shards hold only per-tenant HNSW graphs (``m=0``, ``payload_m=16``), so a dense
        search that is not scoped to one tenant has no graph to walk; it scans instead,
        which is slow but right. Every read path of the library names a tenant.
        """
        return names_tenant(where) is None

    def _run(self, search: rq.Search) -> list[Any]:
        if self.tenant_idf:
            search = rq.tenant_idf(search)
        if search.nearest is not None:
            query = _query(search.nearest)
            params = (
                _idf_params(search.idf_where) if search.idf_where else _exact_params(search.exact)
            )
        else:
            query = cast(Any, Fusion.Rrf(k=search.rrf_k or 0, weights=search.weights))
            params = None
        return list(
            self.shard.query(
                QueryRequest(
                    limit=search.limit,
                    query=query,
                    prefetches=[_prefetch(p) for p in search.prefetches] or None,
                    filter=edge_filter(search.where),
                    params=params,
                    with_payload=search.with_payload,
                    with_vector=[DENSE] if search.with_dense else False,
                    score_threshold=search.score_threshold,
                )
            )
        )

    def count(self, where: Where | None = None) -> int:
        return int(self.shard.count(CountRequest(exact=True, filter=edge_filter(where))))

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
                filter=edge_filter(where),
                with_payload=True,
                with_vector=with_vectors,
            )
        )
        return self._stored(records, with_vectors), (str(next_offset) if next_offset else None)

    def retrieve(self, ids: Sequence[str], with_vectors: bool = False) -> list[StoredPoint]:
        if not ids:
            return []
        records = self.shard.retrieve(list(ids), with_payload=True, with_vector=with_vectors)
        return self._stored(records, with_vectors)
