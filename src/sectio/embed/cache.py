"""Embedding caches: documents on disk, queries in memory.

Document vectors: one SQLite file under ``SECTIO_HOME/cache`` keyed by (model
id, input kind, sha256 of text). A second ingest of the same corpus computes no
embeddings. The key includes the truncation length, since it changes the vector.

Query vectors: a bounded in-process LRU keyed by the tenant and the exact
query text (``SECTIO_QUERY_CACHE_SIZE``, 0 turns it off). An assistant's users
repeat questions; a repeated one costs a dictionary lookup instead of a model
pass (~3-5 ms for MiniLM on 2 cores). The vector is the same either way. The
tenant is part of the key (:data:`query_scope`, set by each retrieval call), so
one tenant's question never makes another's faster or changes its counters: a
tenant cannot learn from a cache hit what another has asked.

Fixed question banks (the answerability calibration's 256 questions, a
profile's intent examples) are queries too, but the same in every process:
:meth:`CachedEmbedder.embed_query_bank` keeps them in the SQLite file (input
kind ``query``), so only the first process of a ``SECTIO_HOME`` embeds them;
before, every cold ``sectio ask`` on a docs collection embedded the 256
calibration questions again (seconds on 2 cores).

A read-only ``SECTIO_HOME`` (a read-only mount, a snapshot served as is) still
serves reads: the cache file is then opened read-only (or, if that fails too,
not at all), vectors are computed but not stored, and one warning says so.

Example:
    >>> from sectio.embed.fake import FakeEmbedder
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> c = CachedEmbedder(FakeEmbedder(dimensions=4), d / "e.sqlite")
    >>> _ = c.embed_documents(["x"]); _ = c.embed_documents(["x"])
    >>> (c.stats.computed, c.stats.cached)
    (1, 1)
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sectio import telemetry
from sectio.context import query_scope
from sectio.embed.port import Embedder, Matrix, QueryBatch, TokenStarts, Vector
from sectio.errors import EmbeddingError

log = logging.getLogger(__name__)

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS embedding ("
    " model_id TEXT NOT NULL, input_kind TEXT NOT NULL, sha256 TEXT NOT NULL,"
    " dims INTEGER NOT NULL, vector BLOB NOT NULL,"
    " PRIMARY KEY (model_id, input_kind, sha256)) WITHOUT ROWID"
)


def _open_writable(path: Path) -> sqlite3.Connection:
    """The cache file, created if absent, in WAL mode.

    Raises:
        OSError, sqlite3.Error: the folder or the file cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(path), check_same_thread=False)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(_SCHEMA)
        db.commit()
    except sqlite3.Error:
        db.close()
        raise
    return db


def _open_read_only(path: Path) -> sqlite3.Connection | None:
    """The existing cache file opened read-only (``immutable``: a WAL file on a read-only
    medium cannot get its shared-memory index), or None if there is none usable."""
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True, check_same_thread=False
        )
        db.execute("SELECT 1 FROM embedding LIMIT 1").fetchall()
    except sqlite3.Error:
        return None
    return db


QueryKey = tuple[str, str]


@dataclass
class CacheStats:
    """How many document vectors were computed vs read from the cache; the same for queries."""

    computed: int = 0
    cached: int = 0
    queries_computed: int = 0
    queries_cached: int = 0


def text_key(text: str) -> str:
    """sha256 of the text, the cache key's last part."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CachedEmbedder:
    """Wraps an :class:`Embedder`: documents through the disk cache, queries through an LRU.

    ``query_cache_size`` bounds the query LRU (least recently used evicted
    first); 0 embeds every query. Safe to share between threads.
    """

    def __init__(self, inner: Embedder, path: Path, query_cache_size: int = 4096) -> None:
        if query_cache_size < 0:
            raise ValueError("query_cache_size must be >= 0")
        self.inner = inner
        self.query_cache_size = query_cache_size
        self._queries: OrderedDict[QueryKey, Vector] = OrderedDict()
        self._queries_lock = threading.Lock()
        #: Prefetched vectors not yet asked for (their first hit is not a cache hit).
        self._fresh: set[QueryKey] = set()
        self.model_id = inner.model_id
        self.dimensions = inner.dimensions
        self.input_kind = inner.input_kind
        self.max_length = inner.max_length
        #: The inner embedder's batched token offsets, when it has them (MiniLM does).
        self.token_starts: TokenStarts | None = getattr(inner, "token_starts", None)
        self.stats = CacheStats()
        self._model_key = f"{inner.model_id}@{inner.max_length}"
        #: False when the cache file could not be opened for writing (a read-only home).
        self.writable = True
        self._db: sqlite3.Connection | None
        try:
            self._db = _open_writable(path)
        except (OSError, sqlite3.Error) as exc:
            self.writable = False
            self._db = _open_read_only(path)
            mode = "read-only" if self._db is not None else "off"
            log.warning("embedding cache %s: %s (%s); new vectors are not stored", mode, path, exc)

    def _lookup(self, keys: list[str], kind: str | None = None) -> dict[str, Vector]:
        """Stored vectors by key (sha256) of ``kind`` (default: the documents' input kind)."""
        found: dict[str, Vector] = {}
        if self._db is None:
            return found
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT sha256, dims, vector FROM embedding WHERE model_id=? AND input_kind=?"
                f" AND sha256 IN ({marks})",
                [self._model_key, kind or self.input_kind, *part],
            )
            for sha, dims, blob in rows:
                if dims == self.dimensions:
                    found[sha] = np.frombuffer(blob, dtype=np.float32)
        return found

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        """Vectors for ``texts`` in input order; misses are computed and stored.

        Raises:
            EmbeddingError: the model returned vectors of the wrong shape.
        """
        keys = [text_key(t) for t in texts]
        found = self._lookup(keys)
        missing = [i for i, k in enumerate(keys) if k not in found]
        todo: dict[str, int] = {}
        for i in missing:
            todo.setdefault(keys[i], i)
        if todo:
            computed = self.inner.embed_documents([texts[i] for i in todo.values()])
            if computed.ndim != 2 or computed.shape[0] != len(todo):
                raise EmbeddingError(
                    f"embedder returned shape {computed.shape} for {len(todo)} texts"
                )
            found.update(self._store(list(todo), computed, kind=self.input_kind))
        self.stats.computed += len(todo)
        self.stats.cached += len(texts) - len(todo)
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.stack([found[k] for k in keys])

    def embed_query(self, text: str) -> Vector:
        """The query's vector; a text repeated in the same :data:`query_scope` (tenant) is
        served from the LRU (a read-only array).

        A vector put there by :meth:`prefetch_queries` counts as computed (once),
        not as a cache hit.
        """
        if self.query_cache_size == 0:
            self.stats.queries_computed += 1
            with telemetry.span("sectio.embed", {"sectio.embed.cached": False}):
                return self.inner.embed_query(text)
        key = (query_scope.get(), text)
        with self._queries_lock:
            vec = self._queries.get(key)
            if vec is not None:
                self._queries.move_to_end(key)
                if key in self._fresh:
                    self._fresh.discard(key)
                else:
                    self.stats.queries_cached += 1
                return vec
        with telemetry.span("sectio.embed", {"sectio.embed.cached": False}):
            vec = self.inner.embed_query(text)
        with self._queries_lock:
            kept = self._remember(key, vec)
            self.stats.queries_computed += 1
        return kept

    def embed_query_bank(self, texts: Sequence[str]) -> Matrix:
        """Query vectors of a fixed bank, in order, through the disk cache (input kind ``query``).

        Misses are embedded in one model call (the inner embedder's
        ``embed_queries`` when it has one) and stored; a read-only cache
        computes them without storing. Row i is :meth:`embed_query` of text i
        (to float rounding when batched). Not counted in :attr:`stats` (these are
        not a caller's questions).

        Raises:
            EmbeddingError: the model returned vectors of the wrong shape.
        """
        keys = [text_key(t) for t in texts]
        found = self._lookup(keys, kind="query")
        todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in found}
        if todo:
            batch: QueryBatch | None = getattr(self.inner, "embed_queries", None)
            misses = list(todo.values())
            vecs = batch(misses) if batch else np.stack([self.inner.embed_query(t) for t in misses])
            if vecs.shape != (len(todo), self.dimensions):
                raise EmbeddingError(
                    f"embedder returned shape {vecs.shape} for {len(todo)} queries"
                )
            found.update(self._store(list(todo), vecs, kind="query"))
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.stack([found[k] for k in keys])

    def _store(self, keys: list[str], vecs: Matrix, *, kind: str) -> dict[str, Vector]:
        """Write ``vecs`` under ``keys`` (when the cache is writable); return them as float32."""
        out = {
            k: np.ascontiguousarray(v, dtype=np.float32) for k, v in zip(keys, vecs, strict=True)
        }
        if self.writable and self._db is not None:
            rows = [(self._model_key, kind, k, v.shape[0], v.tobytes()) for k, v in out.items()]
            self._db.executemany("INSERT OR REPLACE INTO embedding VALUES (?,?,?,?,?)", rows)
            self._db.commit()
        return out

    def prefetch_queries(self, texts: Sequence[str], scopes: Sequence[str] | None = None) -> int:
        """Embed the questions not in the LRU in one model call, and keep them there.

        The server calls this with the questions of concurrent requests, outside
        the engine thread, each with its tenant (``scopes``, in the order of
        ``texts``; None: the current :data:`query_scope` for all); each request's
        own :meth:`embed_query` then finds its vector. Does nothing when the LRU
        is off or the inner embedder has no batch capability
        (:data:`sectio.embed.port.QueryBatch`).

        Returns:
            how many vectors were computed.

        Raises:
            EmbeddingError: the model returned vectors of the wrong shape.
        """
        batch: QueryBatch | None = getattr(self.inner, "embed_queries", None)
        if self.query_cache_size == 0 or batch is None:
            return 0
        if scopes is None:
            scopes = [query_scope.get()] * len(texts)
        if len(scopes) != len(texts):
            raise ValueError("prefetch_queries: one scope per text")
        keys = list(dict.fromkeys(zip(scopes, texts, strict=True)))
        with self._queries_lock:
            todo = [k for k in keys if k not in self._queries]
        if not todo:
            return 0
        vecs = batch([text for _, text in todo])
        if vecs.shape != (len(todo), self.dimensions):
            raise EmbeddingError(f"embedder returned shape {vecs.shape} for {len(todo)} queries")
        with self._queries_lock:
            for key, vec in zip(todo, vecs, strict=True):
                if key not in self._queries:
                    self._remember(key, vec)
                    self._fresh.add(key)
                    self.stats.queries_computed += 1
        return len(todo)

    def _remember(self, key: QueryKey, vec: Vector) -> Vector:
        """Keep ``vec`` (as a read-only copy) for ``key``; evict the least recently used."""
        kept = np.array(vec, dtype=np.float32)
        kept.flags.writeable = False  # shared by every later hit: nobody may change it
        self._queries[key] = kept
        self._queries.move_to_end(key)
        while len(self._queries) > self.query_cache_size:
            old, _ = self._queries.popitem(last=False)
            self._fresh.discard(old)
        return kept

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
