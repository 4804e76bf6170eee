"""The VectorIndex port and the IndexBackend that owns collections.

A *collection* is one corpus: one point per chunk (id = uuid5 of the chunk id,
payload = the whole record), a dense vector named ``dense`` (or, in a
windowed collection, one per window, scored by the best: MaxSim) and one or more
BM25 sparse vectors (``bm25``, and ``bm25_folded`` for accent-insensitive
matching), plus a manifest kept beside it, never as a point of it.

Ordering: search methods return best first. ``scroll`` and ``retrieve``
return points in engine order, which is NOT meaningful (uuid order): callers
re-sort (by ``part_index``, or into the ranking the ids came from).
Errors: adapters raise :class:`sectio.errors.IndexError_` subclasses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

from sectio.index.filters import Where
from sectio.index.manifest import Manifest

# numpy is imported where a function needs it: the store commands (``sectio info``)
# read manifests and counts and never touch a vector.
if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    DenseVector: TypeAlias = Sequence[float] | npt.NDArray[np.float32]
else:
    DenseVector = Sequence[float]  # annotations only; the checker sees numpy's arrays too
#: A point's dense value: one vector, or (windowed collections) one vector per window.
PointDense = DenseVector | Sequence[Sequence[float]]

DENSE = "dense"
BM25 = "bm25"
BM25_FOLDED = "bm25_folded"


@dataclass(frozen=True)
class SparseVec:
    """A sparse vector: parallel token ids and weights."""

    indices: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True)
class IndexSpec:
    """What a collection's vectors look like (mirrors the manifest)."""

    dimensions: int
    distance: str = "Cosine"
    sparse_names: tuple[str, ...] = (BM25,)
    quantization: str = "none"
    #: True: the dense vector holds one vector per window, scored by the best (MaxSim).
    multivector: bool = False

    @classmethod
    def from_manifest(cls, manifest: Manifest) -> IndexSpec:
        """The spec a manifest describes (its BM25 vector names, quantization, windows)."""
        return cls(
            dimensions=manifest.dimensions,
            distance=manifest.distance,
            sparse_names=tuple(manifest.bm25.get("vectors", [BM25])),
            quantization=manifest.quantization,
            multivector=manifest.dense_window_tokens > 0,
        )


@dataclass(frozen=True)
class WriteSize:
    """What a write will hold, for a backend's free-space check (see ``IndexBackend.writing``).

    ``vectors`` is the dense vectors per point (windows); ``payload_bytes`` the
    payloads' total JSON size; ``kept`` the live version's points a staged version
    copies besides them (the other tenants' in a one-tenant replace), whose payload
    size the backend estimates from the live version.
    """

    points: int
    dimensions: int
    payload_bytes: int = 0
    vectors: int = 1
    kept: int = 0


@dataclass(frozen=True)
class PointData:
    """One point to write. ``dense`` is a matrix (a row per window) in a multivector index."""

    id: str
    dense: PointDense
    sparse: dict[str, SparseVec]
    payload: dict[str, Any]


@dataclass(frozen=True)
class StoredPoint:
    """One point read back. ``score`` is set by searches, None for scroll/retrieve.

    ``dense`` and ``sparse`` are set only when vectors were asked for. ``ordinal``: the
    record's place among its document's as its source listed them (None: written before
    records kept one).
    """

    id: str
    payload: dict[str, Any]
    score: float | None = None
    dense: StoredDense | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    sparse: dict[str, SparseVec] | None = None
    ordinal: int | None = None


@dataclass(frozen=True)
class ListRank:
    """A point's place in one ranked candidate list: ``rank`` from 1, and that list's score.

    Example:
        >>> ListRank(rank=1, score=0.82)
        ListRank(rank=1, score=0.82)
    """

    rank: int
    score: float


def list_ranks(points: Sequence[StoredPoint]) -> dict[str, ListRank]:
    """Each point's :class:`ListRank` in ``points`` (best first), by point id."""
    return {p.id: ListRank(i + 1, float(p.score or 0.0)) for i, p in enumerate(points)}


#: A dense value read back: a vector, or a tuple of window vectors (multivector index).
StoredDense = tuple[float, ...] | tuple[tuple[float, ...], ...]


def stored_dense(value: Sequence[Any]) -> StoredDense:
    """An engine's dense value (a vector, or a list of window vectors) as tuples."""
    import numpy as np

    if len(value) and isinstance(value[0], Sequence | np.ndarray):
        return tuple(tuple(float(x) for x in row) for row in value)
    return tuple(float(x) for x in value)


def dense_rows(value: PointDense | StoredDense) -> npt.NDArray[np.float32]:
    """A dense value as a matrix: one row per window (a single vector is one row)."""
    import numpy as np

    rows = np.asarray(value, dtype=np.float32)
    return rows.reshape(1, -1) if rows.ndim == 1 else rows


def best_cosine(query: DenseVector, value: PointDense | StoredDense | None) -> float:
    """Cosine similarity of ``query`` with a point's dense value: its best window's."""
    if value is None:
        return 0.0
    import numpy as np

    rows = dense_rows(value)
    q = np.asarray(query, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1) * float(np.linalg.norm(q))
    sims = np.divide(rows @ q, norms, out=np.zeros(len(rows), dtype=np.float32), where=norms > 0)
    return float(sims.max()) if len(sims) else 0.0


class VectorIndex(Protocol):
    """One open collection's data. Not thread-safe: one caller at a time."""

    spec: IndexSpec

    def upsert(self, points: Sequence[PointData]) -> None:
        """Insert or replace points by id (idempotent)."""
        ...

    def delete(self, ids: Sequence[str]) -> None:
        """Remove points by id (unknown ids are ignored; idempotent)."""
        ...

    def count(self, where: Where | None = None) -> int:
        """Exact number of points matching ``where`` (all points if None)."""
        ...

    def scroll(
        self,
        where: Where | None,
        limit: int = 256,
        offset: str | None = None,
        with_vectors: bool = False,
    ) -> tuple[list[StoredPoint], str | None]:
        """One page of matching points (engine order) and the next offset (None at the end).

        With ``with_vectors`` each point carries its dense and sparse vectors (a
        collection copy between backends reads them this way, without re-embedding).
        """
        ...

    def retrieve(self, ids: Sequence[str], with_vectors: bool = False) -> list[StoredPoint]:
        """Points by id, in engine order (not the order of ``ids``); unknown ids are absent."""
        ...

    def search_dense(
        self,
        vector: DenseVector,
        limit: int,
        where: Where | None = None,
        score_threshold: float | None = None,
        with_payload: bool = True,
    ) -> list[StoredPoint]:
        """Nearest points by the dense vector, best first; ``score`` is the similarity.

        ``with_payload=False`` returns ids and scores only (payload ``{}``): hybrid
        search asks which points were dense candidates this way, cheaply.
        """
        ...

    def search_sparse(
        self,
        name: str,
        vector: SparseVec,
        limit: int,
        where: Where | None = None,
        idf_where: Where | None = None,
        with_payload: bool = True,
    ) -> list[StoredPoint]:
        """Best BM25 matches on sparse vector ``name``; IDF over ``idf_where`` if given.

        ``with_payload=False`` returns ids and scores only (payload ``{}``): hybrid
        search ranks each BM25 list this way to say where a fused hit came from.
        """
        ...

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
        """Reciprocal rank fusion, inside the engine, of a dense and sparse prefetch.

        Each prefetch takes ``pool`` candidates under ``where``; the fused list is
        cut to ``limit``. ``score`` is the fusion value (a ranking signal only).
        Equal fusion values come back in no fixed order (the engine's, which can
        differ between processes); sectio's routes fuse the ranked lists themselves
        (:func:`sectio.retrieve.search.fused_top`), which settles them.
        """
        ...

    def optimize(self) -> None:
        """Build indexes. Never call on a serving path."""
        ...

    def flush(self) -> None:
        """Persist pending writes."""
        ...

    def close(self) -> None:
        """Release the collection (idempotent)."""
        ...


@runtime_checkable
class LocalStore(Protocol):
    """Optional capability of an :class:`IndexBackend` whose files are on this machine
    (Qdrant Edge): crash leftovers it can remove, and one server per store."""

    def hold_serving(self) -> Any:
        """Claim the store for this process's life (``sectio serve``); returns the claim.

        Raises:
            CollectionBusy: another process holds it (the message names its pid).
        """
        ...

    def collect_garbage(self, names: Sequence[str] | None = None) -> dict[str, Any]:
        """Remove stale staged versions and temp folders (of ``names``, default all) never
        a live one or one a running writer holds; report ``removed``, ``skipped``,
        ``bytes_freed``."""
        ...


@runtime_checkable
class Journaled(Protocol):
    """Capability of an :class:`IndexBackend` whose live collection is written in place,
    document by document (:mod:`sectio.ingest.lifecycle`): one journal entry per
    collection, kept with its live version until the write it describes is done, and
    the live manifest written alone. Both backends here have it.
    """

    def read_journal(self, name: str) -> dict[str, Any] | None:
        """The live version's pending journal entry, None when none is.

        Raises:
            IndexError_: the entry cannot be read.
        """
        ...

    def write_journal(self, name: str, entry: dict[str, Any] | None) -> None:
        """Record ``entry`` (plain JSON data) atomically for the live version; None clears it.

        Raises:
            CollectionNotFound: no live collection ``name``.
        """
        ...

    def write_live_manifest(self, name: str, manifest: Manifest) -> None:
        """Replace the live version's manifest (atomically), its points untouched.

        Raises:
            CollectionNotFound: no live collection ``name``.
        """
        ...


class LoadTarget(Protocol):
    """Where a load writes: the live collection (same corpus) or a staged new version."""

    @property
    def index(self) -> VectorIndex:
        """The index being written."""
        ...

    @property
    def staged(self) -> bool:
        """True when this is a new version built beside the live one."""
        ...

    def write_manifest(self, manifest: Manifest) -> None:
        """Record the manifest for this target (before any point is written)."""
        ...

    def commit(self) -> None:
        """Make the target the live collection (atomic for a staged version)."""
        ...

    def abort(self) -> None:
        """Give up: a staged version is removed, the live one is untouched."""
        ...


class IndexBackend(Protocol):
    """Owns the collections of one store (a SECTIO_HOME, or a Qdrant server)."""

    kind: str

    def list_collections(self) -> list[str]:
        """Names of collections that exist, sorted."""
        ...

    def exists(self, name: str) -> bool:
        """Whether a live collection of that name exists."""
        ...

    def read_manifest(self, name: str) -> Manifest | None:
        """The live collection's manifest, or None if it has none (or does not exist)."""
        ...

    def point_count(self, name: str) -> int:
        """Points in the live collection (0 if absent); needs no manifest."""
        ...

    def open(self, name: str) -> VectorIndex:
        """Open the live collection for reading and in-place writes.

        Raises:
            CollectionNotFound: no such collection.
        """
        ...

    def load_target(self, name: str, spec: IndexSpec, *, staged: bool) -> LoadTarget:
        """A target to load into: in place (``staged=False``) or a new version beside."""
        ...

    def writing(
        self, name: str, purpose: str, size: WriteSize | None = None
    ) -> AbstractContextManager[None]:
        """Hold ``name`` for one write (``purpose``: ingest, restore, import...) while the
        block runs: the only writer of it, its crash leftovers collected, ``size`` checked
        against the free space. Re-entrant within one backend object.

        Raises:
            CollectionBusy: another process writes it (the message names its pid).
            InsufficientSpace: ``size`` does not fit (the message names needed and free).
        """
        ...

    def drop(self, name: str) -> None:
        """Remove a collection and everything it holds."""
        ...

    def snapshot(self, name: str, out_file: Path) -> Manifest:
        """Write one file holding the flushed collection and its manifest."""
        ...

    def restore(
        self, in_file: Path, name: str, verify: Callable[[Manifest], None] | None = None
    ) -> Manifest:
        """Bring a snapshot back as collection ``name`` (a staged switch).

        ``verify`` sees the snapshot's manifest before anything is installed and may
        raise to refuse it (the start-up gate).
        """
        ...
