"""One open collection on a Qdrant server (or qdrant-client local mode): the VectorIndex.

Same data model as the edge adapter (:mod:`sectio.index.edge`): uuid5 point ids,
the whole record as payload plus the filterable ``_sectio`` copies, a ``dense``
vector and BM25 sparse vectors with the IDF modifier, the same payload indexes,
fusion inside the engine with ``RrfQuery(rrf=Rrf(k=...))`` (never the k=2
default of ``FusionQuery``).

Tenancy: payload-partitioned by default (a ``tenant`` keyword index with
``is_tenant``). With :class:`Sharding` (custom sharding), each large tenant has
its own shard key and every other tenant shares :data:`SHARED_SHARD_KEY`;
writes name the shard key of each point's tenant, reads scoped to one tenant
(an ``Eq("tenant", t)`` in ``must``) name that tenant's shard key, other reads
fan out to every shard.
"""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

import grpc
import httpx
import numpy as np
from qdrant_client import QdrantClient
from qdrant_client import models as m
from qdrant_client.http.exceptions import ApiException

from sectio.errors import IndexError_
from sectio.index.edge import FLAG_FIELDS, KEYWORD_FIELDS, RESERVED, engine_payload, flag_key
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

#: The shard key every tenant without a dedicated one is written to (custom sharding).
SHARED_SHARD_KEY = "_shared"


@dataclass(frozen=True)
class Sharding:
    """Custom sharding: one shard key per large tenant, the rest on :data:`SHARED_SHARD_KEY`.

    Example:
        >>> s = Sharding(tenant_keys=("acme",))
        >>> s.key_for("acme"), s.key_for("small-co")
        ('acme', '_shared')
        >>> s.read_selector(Where.of(Eq("tenant", "acme"))), s.read_selector(None)
        ('acme', None)
    """

    tenant_keys: tuple[str, ...]

    @property
    def all_keys(self) -> tuple[str, ...]:
        """Every shard key a collection with this sharding is created with."""
        return (*self.tenant_keys, SHARED_SHARD_KEY)

    def key_for(self, tenant: str | None) -> str:
        """The shard key a point of ``tenant`` is written to."""
        return tenant if tenant in self.tenant_keys else SHARED_SHARD_KEY

    def read_selector(self, where: Where | None) -> str | None:
        """The shard key a read under ``where`` can be limited to (None: all shards)."""
        if where is None:
            return None
        for cond in where.must:
            if isinstance(cond, Eq) and cond.key == "tenant" and isinstance(cond.value, str):
                return self.key_for(cond.value)
        return None


@contextmanager
def engine_errors(what: str) -> Iterator[None]:
    """Translate qdrant-client's transport and API errors into :class:`IndexError_`."""
    try:
        yield
    except (ApiException, httpx.HTTPError, grpc.RpcError) as exc:
        detail = " ".join(str(exc).split())[:300]
        raise IndexError_(f"{what}: {type(exc).__name__}: {detail}") from exc


P = ParamSpec("P")
R = TypeVar("R")


def translated(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorator: the call's qdrant-client errors become :class:`IndexError_` (one line)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        where = getattr(args[0], "endpoint", None) if args else None
        what = f"Qdrant {fn.__name__.lstrip('_')} failed" + (f" ({where})" if where else "")
        with engine_errors(what):
            return fn(*args, **kwargs)

    return wrapper


def _match_condition(cond: Condition) -> m.Condition:
    if isinstance(cond, Eq):
        return m.FieldCondition(key=cond.key, match=m.MatchValue(value=cond.value))
    if isinstance(cond, AnyOf):
        values: Any = list(cond.values)
        return m.FieldCondition(key=cond.key, match=m.MatchAny(any=values))
    if isinstance(cond, Prefix):
        return m.FieldCondition(key=cond.key, match=m.MatchPrefix(prefix=cond.prefix))
    if isinstance(cond, Phrase):
        return m.FieldCondition(key=cond.key, match=m.MatchPhrase(phrase=cond.phrase))
    if isinstance(cond, TextAny):
        return m.FieldCondition(key=cond.key, match=m.MatchTextAny(text_any=cond.text))
    if isinstance(cond, Range):
        return m.FieldCondition(key=cond.key, range=m.Range(gte=cond.gte, lte=cond.lte))
    if isinstance(cond, HasIds):
        return m.HasIdCondition(has_id=list(cond.ids))
    raise IndexError_(f"unsupported filter condition {cond!r}")


def to_filter(where: Where | None) -> m.Filter | None:
    """Translate the neutral filter into a qdrant-client ``Filter`` (None for no filter)."""
    if where is None or (not where.must and not where.must_not):
        return None
    return m.Filter(
        must=[_match_condition(c) for c in where.must] or None,
        must_not=[_match_condition(c) for c in where.must_not] or None,
    )


def _idf_params(idf_where: Where | None) -> m.SearchParams | None:
    corpus = to_filter(idf_where)
    return m.SearchParams(idf=m.IdfCorpusParams(corpus=corpus)) if corpus is not None else None


def _sparse(vec: SparseVec) -> m.SparseVector:
    return m.SparseVector(indices=list(vec.indices), values=list(vec.values))


def _stored(point: Any, with_vectors: bool = False) -> StoredPoint:
    payload = dict(point.payload or {})
    payload.pop(RESERVED, None)
    dense = None
    sparse: dict[str, SparseVec] | None = None
    vectors = getattr(point, "vector", None)
    if with_vectors and isinstance(vectors, dict):
        vec = vectors.get(DENSE)
        if vec is not None:
            dense = stored_dense(vec)
        sparse = {
            name: SparseVec(tuple(int(i) for i in v.indices), tuple(float(x) for x in v.values))
            for name, v in vectors.items()
            if isinstance(v, m.SparseVector)
        }
    return StoredPoint(
        id=str(point.id),
        payload=payload,
        score=getattr(point, "score", None),
        dense=dense,
        sparse=sparse,
    )


def collection_params(
    spec: IndexSpec,
    *,
    sharding: Sharding | None = None,
    shard_number: int | None = None,
    replication_factor: int | None = None,
) -> dict[str, Any]:
    """Keyword arguments of ``create_collection`` for a collection of ``spec``."""
    if spec.distance != "Cosine":
        raise IndexError_(f"distance {spec.distance!r} is not supported (Cosine only)")
    # int8: the quantized copy stays in RAM (searched), the float32 originals go on disk
    # (read only to rescore the top candidates): the memory saving int8 is for.
    quant = None
    if spec.quantization == "int8":
        quant = m.ScalarQuantization(
            scalar=m.ScalarQuantizationConfig(
                type=m.ScalarType.INT8, quantile=0.99, always_ram=True
            )
        )
    params: dict[str, Any] = {
        "vectors_config": {
            DENSE: m.VectorParams(
                size=spec.dimensions,
                distance=m.Distance.COSINE,
                on_disk=True if quant is not None else None,
                multivector_config=m.MultiVectorConfig(comparator=m.MultiVectorComparator.MAX_SIM)
                if spec.multivector
                else None,
            )
        },
        "sparse_vectors_config": {
            name: m.SparseVectorParams(modifier=m.Modifier.IDF) for name in spec.sparse_names
        },
        "quantization_config": quant,
        "shard_number": shard_number,
        "replication_factor": replication_factor,
    }
    if sharding is not None:
        params["sharding_method"] = m.ShardingMethod.CUSTOM
    return params


def payload_indexes() -> list[tuple[str, Any]]:
    """The payload indexes every collection gets: the same set the edge adapter creates."""
    out: list[tuple[str, Any]] = [
        ("tenant", m.KeywordIndexParams(type=m.KeywordIndexType.KEYWORD, is_tenant=True))
    ]
    for name in KEYWORD_FIELDS:
        out.append(
            (
                name,
                m.KeywordIndexParams(
                    type=m.KeywordIndexType.KEYWORD,
                    enable_hnsw=False,
                    prefix=True if name == "path" else None,
                ),
            )
        )
    out.append(
        (
            "part_index",
            m.IntegerIndexParams(
                type=m.IntegerIndexType.INTEGER, lookup=True, range=True, enable_hnsw=False
            ),
        )
    )
    for flag in FLAG_FIELDS:
        out.append(
            (
                flag_key(flag),
                m.IntegerIndexParams(
                    type=m.IntegerIndexType.INTEGER, lookup=True, range=False, enable_hnsw=False
                ),
            )
        )
    out.append(
        (
            "text",
            m.TextIndexParams(
                type=m.TextIndexType.TEXT,
                tokenizer=m.TokenizerType.MULTILINGUAL,
                lowercase=True,
                ascii_folding=True,
                phrase_matching=True,
                enable_hnsw=False,
            ),
        )
    )
    return out


class ServerIndex:
    """One collection on a Qdrant server. See :class:`sectio.index.port.VectorIndex`.

    The client belongs to the backend; :meth:`close` only marks this view closed.
    """

    def __init__(
        self,
        client: QdrantClient,
        collection: str,
        spec: IndexSpec,
        *,
        sharding: Sharding | None = None,
        optimize_timeout_s: float = 600.0,
    ) -> None:
        self._client: QdrantClient | None = client
        self.collection = collection
        self.spec = spec
        self.sharding = sharding
        self.optimize_timeout_s = optimize_timeout_s

    @property
    def endpoint(self) -> str:
        """What error messages name: the collection."""
        return f"collection {self.collection!r}"

    @property
    def client(self) -> QdrantClient:
        if self._client is None:
            raise IndexError_(f"collection {self.collection!r} is closed")
        return self._client

    @classmethod
    def create(
        cls,
        client: QdrantClient,
        collection: str,
        spec: IndexSpec,
        *,
        sharding: Sharding | None = None,
        shard_number: int | None = None,
        replication_factor: int | None = None,
    ) -> ServerIndex:
        """Create an empty collection with its vectors, shard keys and payload indexes."""
        client.create_collection(
            collection,
            **collection_params(
                spec,
                sharding=sharding,
                shard_number=shard_number,
                replication_factor=replication_factor,
            ),
        )
        if sharding is not None:
            for key in sharding.all_keys:
                client.create_shard_key(collection, key)
        with warnings.catch_warnings():
            # local mode: "Payload indexes have no effect in the local Qdrant"
            warnings.simplefilter("ignore", UserWarning)
            for field_name, schema in payload_indexes():
                client.create_payload_index(collection, field_name, field_schema=schema, wait=True)
        return cls(client, collection, spec, sharding=sharding)

    def _dense_query(self, vector: DenseVector) -> list[float] | list[list[float]]:
        """The query as the dense field takes it: a multivector field takes a list of one."""
        query = [float(x) for x in vector]
        return [query] if self.spec.multivector else query

    def _selector(self, where: Where | None) -> str | None:
        return self.sharding.read_selector(where) if self.sharding else None

    # --- writes -----------------------------------------------------------------
    @translated
    def upsert(self, points: Sequence[PointData]) -> None:
        groups: dict[str | None, list[m.PointStruct]] = {}
        for p in points:
            vector: dict[str, Any] = {DENSE: np.asarray(p.dense, dtype=np.float32).tolist()}
            for name, sv in p.sparse.items():
                vector[name] = _sparse(sv)
            key = (
                self.sharding.key_for(p.payload.get("tenant", "default")) if self.sharding else None
            )
            groups.setdefault(key, []).append(
                m.PointStruct(id=p.id, vector=vector, payload=engine_payload(p.payload))
            )
        for key, batch in groups.items():
            self.client.upsert(self.collection, batch, wait=True, shard_key_selector=key)

    @translated
    def optimize(self) -> None:
        """Wait (bounded) until the server has finished indexing; local mode returns at once."""
        deadline = time.monotonic() + self.optimize_timeout_s
        while time.monotonic() < deadline:
            status = self.client.get_collection(self.collection).status
            if status != m.CollectionStatus.YELLOW:
                return
            time.sleep(0.5)

    def flush(self) -> None:
        """Writes are sent with ``wait=True``: nothing is pending."""

    def close(self) -> None:
        self._client = None

    # --- reads --------------------------------------------------------------------
    @translated
    def count(self, where: Where | None = None) -> int:
        return int(
            self.client.count(
                self.collection,
                count_filter=to_filter(where),
                exact=True,
                shard_key_selector=self._selector(where),
            ).count
        )

    @translated
    def scroll(
        self,
        where: Where | None,
        limit: int = 256,
        offset: str | None = None,
        with_vectors: bool = False,
    ) -> tuple[list[StoredPoint], str | None]:
        records, next_offset = self.client.scroll(
            self.collection,
            scroll_filter=to_filter(where),
            limit=limit,
            offset=offset,
            with_payload=True,
            with_vectors=with_vectors,
            shard_key_selector=self._selector(where),
        )
        return (
            [_stored(r, with_vectors) for r in records],
            str(next_offset) if next_offset is not None else None,
        )

    @translated
    def retrieve(self, ids: Sequence[str], with_vectors: bool = False) -> list[StoredPoint]:
        if not ids:
            return []
        records = self.client.retrieve(
            self.collection, list(ids), with_payload=True, with_vectors=with_vectors
        )
        return [_stored(r, with_vectors) for r in records]

    @translated
    def search_dense(
        self,
        vector: DenseVector,
        limit: int,
        where: Where | None = None,
        score_threshold: float | None = None,
        with_payload: bool = True,
    ) -> list[StoredPoint]:
        res = self.client.query_points(
            self.collection,
            query=self._dense_query(vector),
            using=DENSE,
            query_filter=to_filter(where),
            limit=limit,
            with_payload=with_payload,
            with_vectors=False,
            score_threshold=score_threshold,
            shard_key_selector=self._selector(where),
        )
        return [_stored(h) for h in res.points]

    @translated
    def search_sparse(
        self,
        name: str,
        vector: SparseVec,
        limit: int,
        where: Where | None = None,
        idf_where: Where | None = None,
    ) -> list[StoredPoint]:
        res = self.client.query_points(
            self.collection,
            query=_sparse(vector),
            using=name,
            query_filter=to_filter(where),
            search_params=_idf_params(idf_where),
            limit=limit,
            with_payload=True,
            with_vectors=False,
            shard_key_selector=self._selector(where),
        )
        return [_stored(h) for h in res.points]

    @translated
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
        params = _idf_params(idf_where)
        prefetches: list[m.Prefetch] = []
        if dense is not None:
            prefetches.append(
                m.Prefetch(query=self._dense_query(dense), using=DENSE, filter=flt, limit=pool)
            )
        for name, vec in sparse.items():
            prefetches.append(
                m.Prefetch(query=_sparse(vec), using=name, filter=flt, limit=pool, params=params)
            )
        if not prefetches:
            return []
        res = self.client.query_points(
            self.collection,
            prefetch=prefetches,
            query=m.RrfQuery(rrf=m.Rrf(k=rrf_k, weights=list(weights) if weights else None)),
            query_filter=flt,
            limit=limit,
            with_payload=True,
            with_vectors=[DENSE] if with_vectors else False,
            shard_key_selector=self._selector(where),
        )
        return [_stored(h, with_vectors) for h in res.points]
