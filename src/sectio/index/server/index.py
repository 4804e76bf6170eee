"""One open collection on a Qdrant server (or qdrant-client local mode): the VectorIndex.

Same data model as the edge adapter (:mod:`sectio.index.edge`; both over the
shared :mod:`sectio.index.qdrant` layer): uuid5 point ids, the whole record as
payload plus the filterable ``_sectio`` copies, a ``dense`` vector and BM25
sparse vectors with the IDF modifier, the same payload indexes, fusion inside
the engine with ``RrfQuery(rrf=Rrf(k=...))`` (never the k=2 default of
``FusionQuery``).

Tenancy: payload-partitioned by default (a ``tenant`` keyword index with
``is_tenant``). With :class:`Sharding` (custom sharding), each large tenant has
its own shard key and every other tenant shares :data:`SHARED_SHARD_KEY`;
writes name the shard key of each point's tenant, reads scoped to one tenant
(an ``Eq("tenant", t)`` in ``must``) name that tenant's shard key, other reads
fan out to every shard.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client import models as m

from sectio.errors import IndexError_
from sectio.index.filters import Where
from sectio.index.port import DENSE, IndexSpec, PointData, SparseVec, StoredPoint
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
from sectio.index.server.client import engine_errors, failed, translated

#: The shard key every tenant without a dedicated one is written to (custom sharding).
SHARED_SHARD_KEY = "_shared"


@dataclass(frozen=True)
class Sharding:
    """Custom sharding: one shard key per large tenant, the rest on :data:`SHARED_SHARD_KEY`.

    Example:
        >>> from sectio.index.filters import Eq, Where
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
        tenant = names_tenant(where)
        return None if tenant is None else self.key_for(tenant)


class ClientConditions:
    """:class:`sectio.index.qdrant.filters.ConditionBuilder` for ``qdrant_client.models``."""

    def match_value(self, key: str, value: str | int) -> Any:
        return m.FieldCondition(key=key, match=m.MatchValue(value=value))

    def match_any(self, key: str, values: list[Any]) -> Any:
        return m.FieldCondition(key=key, match=m.MatchAny(any=values))

    def match_prefix(self, key: str, prefix: str) -> Any:
        return m.FieldCondition(key=key, match=m.MatchPrefix(prefix=prefix))

    def match_phrase(self, key: str, phrase: str) -> Any:
        return m.FieldCondition(key=key, match=m.MatchPhrase(phrase=phrase))

    def match_text_any(self, key: str, text: str) -> Any:
        return m.FieldCondition(key=key, match=m.MatchTextAny(text_any=text))

    def range(self, key: str, gte: float | None, lte: float | None) -> Any:
        return m.FieldCondition(key=key, range=m.Range(gte=gte, lte=lte))

    def has_ids(self, ids: Sequence[Any]) -> Any:
        return m.HasIdCondition(has_id=list(ids))

    def filter(self, must: list[Any] | None, must_not: list[Any] | None) -> Any:
        return m.Filter(must=must, must_not=must_not)


CLIENT = ClientConditions()


def client_filter(where: Where | None) -> m.Filter | None:
    """The qdrant-client ``Filter`` for ``where`` (None for no filter)."""
    flt: m.Filter | None = to_filter(where, CLIENT)
    return flt


def _idf_params(idf_where: Where | None) -> m.SearchParams | None:
    corpus = client_filter(idf_where)
    return m.SearchParams(idf=m.IdfCorpusParams(corpus=corpus)) if corpus is not None else None


def _sparse(vec: SparseVec) -> m.SparseVector:
    return m.SparseVector(indices=list(vec.indices), values=list(vec.values))


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
                type=m.ScalarType.INT8, quantile=INT8_QUANTILE, always_ram=True
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


def _index_params(spec: PayloadIndex) -> Any:
    """The qdrant-client schema of one payload index."""
    if spec.kind == "tenant":
        return m.KeywordIndexParams(type=m.KeywordIndexType.KEYWORD, is_tenant=True)
    if spec.kind == "keyword":
        return m.KeywordIndexParams(
            type=m.KeywordIndexType.KEYWORD, enable_hnsw=False, prefix=True if spec.prefix else None
        )
    if spec.kind == "integer":
        return m.IntegerIndexParams(
            type=m.IntegerIndexType.INTEGER, lookup=True, range=spec.range, enable_hnsw=False
        )
    return m.TextIndexParams(
        type=m.TextIndexType.TEXT,
        tokenizer=m.TokenizerType.MULTILINGUAL,
        lowercase=True,
        ascii_folding=True,
        phrase_matching=True,
        enable_hnsw=False,
    )


def payload_indexes() -> list[tuple[str, Any]]:
    """The payload indexes every collection gets: the same set the edge adapter creates."""
    return [(spec.field, _index_params(spec)) for spec in PAYLOAD_INDEXES]


class ServerIndex(QdrantIndexBase):
    """One collection on a Qdrant server. See :class:`sectio.index.port.VectorIndex`.

    The client belongs to the backend; :meth:`close` only marks this view closed.
    Searches are the shared skeletons of :class:`QdrantIndexBase`, rendered here as
    ``query_points`` calls (fusion as ``RrfQuery(rrf=Rrf(k=...))``, never the k=2
    default of ``FusionQuery``).

    Example:
        >>> idx = ServerIndex.create(QdrantClient(":memory:"), "c", IndexSpec(dimensions=4))
        >>> idx.count()
        0
    """

    sparse_type = m.SparseVector

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

    def _selector(self, where: Where | None) -> str | None:
        return self.sharding.read_selector(where) if self.sharding else None

    def _errors(self, what: str) -> AbstractContextManager[None]:
        return engine_errors(failed(what, self.endpoint))

    # --- writes -----------------------------------------------------------------
    @translated
    def upsert(self, points: Sequence[PointData]) -> None:
        groups: dict[str | None, list[m.PointStruct]] = {}
        for p in points:
            key = (
                self.sharding.key_for(p.payload.get("tenant", "default")) if self.sharding else None
            )
            groups.setdefault(key, []).append(
                m.PointStruct(
                    id=p.id, vector=point_vectors(p, _sparse), payload=engine_payload(p.payload)
                )
            )
        for key, batch in groups.items():
            self.client.upsert(self.collection, batch, wait=True, shard_key_selector=key)

    @translated
    def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        keys: list[int | str] | None = list(self.sharding.all_keys) if self.sharding else None
        self.client.delete(
            self.collection,
            points_selector=m.PointIdsList(points=list(ids)),
            wait=True,
            shard_key_selector=keys,
        )

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
    def _query(self, nearest: rq.Nearest) -> Any:
        """A nearest query as the field takes it: a multivector field takes a list of one."""
        if nearest.sparse is not None:
            return _sparse(nearest.sparse)
        return [nearest.dense] if self.spec.multivector else nearest.dense

    def _prefetch(self, p: rq.Prefetch) -> m.Prefetch:
        return m.Prefetch(
            query=self._query(p.nearest),
            using=p.nearest.using,
            filter=client_filter(p.where),
            limit=p.limit,
            params=_idf_params(p.idf_where),
        )

    def _run(self, search: rq.Search) -> list[Any]:
        search = rq.tenant_idf(search)  # as on the edge: a tenant's BM25 IDF is its own
        if search.nearest is not None:
            query: Any = self._query(search.nearest)
            using: str | None = search.nearest.using
        else:
            query = m.RrfQuery(rrf=m.Rrf(k=search.rrf_k, weights=search.weights))
            using = None
        res = self.client.query_points(
            self.collection,
            query=query,
            using=using,
            prefetch=[self._prefetch(p) for p in search.prefetches] or None,
            query_filter=client_filter(search.where),
            search_params=_idf_params(search.idf_where),
            limit=search.limit,
            with_payload=search.with_payload,
            with_vectors=[DENSE] if search.with_dense else False,
            score_threshold=search.score_threshold,
            shard_key_selector=self._selector(search.where),
        )
        return list(res.points)

    @translated
    def count(self, where: Where | None = None) -> int:
        return int(
            self.client.count(
                self.collection,
                count_filter=client_filter(where),
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
            scroll_filter=client_filter(where),
            limit=limit,
            offset=offset,
            with_payload=True,
            with_vectors=with_vectors,
            shard_key_selector=self._selector(where),
        )
        return (
            self._stored(records, with_vectors),
            str(next_offset) if next_offset is not None else None,
        )

    @translated
    def retrieve(self, ids: Sequence[str], with_vectors: bool = False) -> list[StoredPoint]:
        if not ids:
            return []
        records = self.client.retrieve(
            self.collection, list(ids), with_payload=True, with_vectors=with_vectors
        )
        return self._stored(records, with_vectors)
