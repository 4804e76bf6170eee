"""Settings: one object, built once from the environment (prefix ``SECTIO_``), passed down.

Example:
    >>> s = Settings(home="/tmp/sectio-example")
    >>> s.collections_dir.name
    'collections'
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from sectio.errors import ConfigError

EmbedderName = Literal["minilm", "e5", "fake"]


class Settings(BaseSettings):
    """Everything configurable. Adapters receive this object, never read ``os.environ``."""

    model_config = SettingsConfigDict(
        env_prefix="SECTIO_", env_nested_delimiter="__", extra="ignore"
    )

    home: Path = Field(default=Path(".sectio"), description="Folder for everything embedded.")

    # --- embedding ---------------------------------------------------------
    #: The embedding model: minilm (bundled all-MiniLM-L6-v2, int8 ONNX), e5
    #: (multilingual-e5-small, the [multilingual] extra) or fake (tests). Bound in the manifest.
    embedder: EmbedderName = "minilm"
    #: Tokens the model reads of one text (longer texts are cut, or windowed: see below).
    embed_max_length: int = Field(default=256, ge=16, le=512)
    #: Most texts per model batch.
    embed_batch_size: int = Field(default=32, ge=1, le=1024)
    #: Most padded tokens per model batch (texts x the widest): long passages go two at a
    #: time, short ones many. Small batches are faster on 2 cores (benchmarks/ingest.py).
    embed_batch_tokens: int = Field(default=512, ge=16, le=1_000_000)
    #: ONNX threads of the model; None: the runtime's choice (`sectio serve`: one).
    embed_threads: int | None = None
    #: Vector size of the fake embedder (tests only).
    fake_dimensions: int = Field(default=384, ge=2, le=4096)
    #: Query vectors kept in memory (LRU, exact text); 0 embeds every query.
    query_cache_size: int = Field(default=4096, ge=0, le=10_000_000)

    # --- ingest --------------------------------------------------------------
    #: Points per upsert batch at ingest.
    upsert_batch_size: int = Field(default=256, ge=1, le=10_000)
    #: Most model tokens in a chunk a reader cuts from a longer text (BEIR documents, Markdown).
    chunk_max_tokens: int = Field(default=256, ge=16, le=8192)
    #: 0: one dense vector per chunk, unless ``chunk_max_tokens`` exceeds what the model
    #: reads (``embed_max_length``): then windows of that length turn on by themselves, so
    #: no chunk's tail goes unembedded. N >= 16: a chunk longer than N tokens is embedded
    #: as windows of at most N tokens (each with the chunk's titles) and its dense score
    #: is the best window's cosine (Qdrant multivector, MaxSim). 128 is MiniLM's training
    #: length: SciFact hybrid nDCG@10 +0.0035 on train, at 1.5x the hybrid search and
    #: 1.6x the HNSW build cost, so not on by default (docs/benchmarks.md). Bound in the
    #: manifest.
    dense_window_tokens: int = Field(default=0, ge=0, le=8192)

    # --- input bounds: a source past one is refused with one line naming file, line, field ---
    #: Most characters in any one string of a record (``text``, titles, metadata values).
    max_text_chars: int = Field(default=1_000_000, ge=1_000, le=100_000_000)
    #: Most bytes in one JSON Lines record (one line), checked before it is decoded.
    max_record_bytes: int = Field(default=32 * 2**20, ge=4096, le=2**30)
    #: Deepest nesting of objects and lists in a record (the record itself is level 1).
    max_nesting: int = Field(default=32, ge=2, le=200)
    #: Largest ``.json`` array file (it is decoded whole).
    max_json_bytes: int = Field(default=2**30, ge=4096, le=2**34)
    #: Largest Markdown file of a docs tree.
    max_markdown_bytes: int = Field(default=8 * 2**20, ge=4096, le=2**30)

    # --- search (hybrid fusion; defaults chosen on SciFact train, see docs/decisions) ---
    #: Reciprocal rank fusion constant: score = sum(weight / (rrf_k + rank)), rank from 0.
    rrf_k: int = Field(default=2, ge=1, le=1000)
    #: Each of dense and BM25 takes max(pool_min, pool_factor * top_k) candidates (<= pool_max).
    hybrid_pool_factor: int = Field(default=5, ge=1, le=100)
    hybrid_pool_min: int = Field(default=50, ge=1, le=10_000)
    hybrid_pool_max: int = Field(default=1000, ge=1, le=10_000)
    #: RRF weights of the dense and the lexical (BM25) candidate lists.
    hybrid_dense_weight: float = Field(default=1.0, ge=0.0)
    hybrid_lexical_weight: float = Field(default=1.2, ge=0.0)
    #: Scale the dense weight per collection and tenant by how well the model finds
    #: the corpus's own chunks (pseudo-queries; measured once on first search).
    hybrid_calibrate: bool = True
    #: The dense/BM25 pseudo-query MRR ratio at or above which the dense weight stays whole.
    hybrid_reliability_reference: float = Field(default=0.5, ge=0.0, le=1.0)
    #: A question's BM25 weight shrinks over this cosine gap between the dense list's
    #: first hit and BM25's first pick (0 turns the per-query trust off), to the floor.
    hybrid_trust_span: float = Field(default=0.02, ge=0.0, le=2.0)
    hybrid_trust_floor: float = Field(default=0.1, ge=0.0, le=1.0)

    # --- rerank (ask's free-form and fallback routes; always fail-open) --------
    #: none (default) | cross_encoder (local folder) | http (Cohere-compatible API) | fake (tests)
    rerank: Literal["none", "cross_encoder", "http", "fake"] = "none"
    #: A local cross-encoder folder (ONNX + tokenizer) for fastembed's TextCrossEncoder.
    rerank_model_path: Path | None = None
    #: The fastembed model description the folder follows.
    rerank_model_name: str = "Xenova/ms-marco-MiniLM-L-6-v2"
    #: A Cohere-compatible rerank endpoint, e.g. https://api.cohere.com/v2/rerank
    rerank_url: str | None = None
    #: The API key of the rerank endpoint.
    rerank_api_key: SecretStr | None = None
    #: The model name sent to the rerank endpoint.
    rerank_model: str | None = None
    #: Seconds before a reranker is abandoned (the answer keeps its own order).
    rerank_timeout_s: float = Field(default=10.0, gt=0, le=300)

    # --- index ---------------------------------------------------------------
    #: A Qdrant server or cluster (http://host:6333); None: Qdrant Edge under the home.
    qdrant_url: str | None = None
    #: The Qdrant server's API key.
    qdrant_api_key: SecretStr | None = None
    #: qdrant-client local mode (a folder or ":memory:"): tests and experiments only.
    qdrant_location: str | None = None
    #: Dense vectors searched as scalar int8 (a RAM copy; the float32 originals stay on
    #: disk and rescore the candidates, so reported cosines are exact). Against float32
    #: on SciFact: nDCG@10 equal within 0.003; at 100k chunks serving RSS -28%, dense
    #: search ~1.7x and optimize ~1.4x faster (docs/benchmarks.md). Bound in the
    #: manifest: changing it is a rebuild (``ingest --replace`` or ``sectio import``).
    quantization: Literal["none", "int8"] = "int8"
    #: Tenants that get their own shard key (custom sharding; Qdrant server only).
    qdrant_tenant_shards: list[str] = Field(default_factory=list)
    #: Shards per collection (per shard key with custom sharding); None: the server default.
    qdrant_shard_number: int | None = Field(default=None, ge=1)
    #: Copies of each shard on a cluster; None: the server default.
    qdrant_replication_factor: int | None = Field(default=None, ge=1)
    #: Seconds before a Qdrant server request fails.
    qdrant_timeout_s: int = Field(default=60, ge=1)
    #: Check the free space before every write to a Qdrant Edge home (and before a first
    #: read on tmpfs). Off, a write on a full disk may die of SIGBUS (the live version
    #: stays whole; the next write collects the leftover).
    space_check: bool = True

    # --- operational store ---------------------------------------------------
    #: None: SQLite at $SECTIO_HOME/sectio.sqlite3; or postgresql+psycopg://user@host/db
    database_url: str | None = None
    #: Migrate on first use. None: only for the SQLite default, never for a configured URL.
    auto_migrate: bool | None = None
    #: Write a retrieval trace for every ask/search/lookup (fail-open).
    traces: bool = True
    #: What traces (and user conversation lines) keep of the query text.
    trace_query_text: Literal["plain", "hashed", "none"] = "plain"
    #: Days to keep traces and turns; applied by `sectio purge --auto` and the server.
    retention_days: int | None = Field(default=None, ge=1, le=36_500)
    #: Seconds to connect to the operational store.
    db_connect_timeout_s: float = Field(default=2.0, gt=0, le=60)
    #: Seconds one statement (or lock wait) of the operational store may take.
    db_statement_timeout_s: float = Field(default=2.0, gt=0, le=600)
    #: Connections kept open to the operational store (PostgreSQL).
    db_pool_size: int = Field(default=5, ge=1, le=100)
    #: Connections opened beyond the pool under load.
    db_max_overflow: int = Field(default=5, ge=0, le=100)
    #: After a failed connection, skip trace writes (counted) for this long.
    db_retry_after_s: float = Field(default=5.0, ge=0, le=3600)

    # --- HTTP service (sectio serve) ------------------------------------------
    #: Comma-separated ``key:tenant`` pairs; the tenant of a request is its key's.
    api_keys: SecretStr | None = None
    #: A file with one ``key:tenant`` a line (``#`` comments allowed).
    api_keys_file: Path | None = None
    #: The key a CLI write presents to the ``sectio serve`` holding the collection (an
    #: admin key, ``key:tenant:admin`` in the server's keys; None: no key is sent).
    admin_key: SecretStr | None = None
    #: Largest body of an admin request (``/v1/admin/...``: a document write's chunks).
    admin_max_body_bytes: int = Field(default=16 * 1024 * 1024, ge=1024, le=256 * 1024 * 1024)
    #: Collections the server serves (comma-separated); None: every collection present.
    serve_collections: str | None = None
    #: Largest request body (413 past it, also mid-stream for a chunked body).
    max_body_bytes: int = Field(default=64 * 1024, ge=1024, le=16 * 1024 * 1024)
    #: Longest question or query text (422 past it).
    max_query_chars: int = Field(default=2000, ge=16, le=100_000)
    #: Seconds between background readiness checks (the manifest gate).
    readiness_interval_s: float = Field(default=15.0, gt=0)
    #: The bearer token ``GET /metrics`` requires. None: /metrics answers loopback
    #: clients (and Unix sockets) only; behind a proxy on the same machine, set a token.
    metrics_token: SecretStr | None = None

    @field_validator("home", mode="before")
    @classmethod
    def _expand_home(cls, value: object) -> object:
        if isinstance(value, str):
            return Path(value).expanduser()
        return value

    @field_validator("dense_window_tokens")
    @classmethod
    def _window_size(cls, value: int) -> int:
        if 0 < value < 16:
            raise ValueError("must be 0 (one vector per chunk) or at least 16 tokens")
        return value

    @property
    def collections_dir(self) -> Path:
        """Qdrant Edge collections live here, one folder each."""
        return self.home / "collections"

    @property
    def cache_dir(self) -> Path:
        """The embedding cache and prepared model folders live here."""
        return self.home / "cache"


def load_settings() -> Settings:
    """Settings from the environment (and ``.env``), or one clear error.

    Raises:
        ConfigError: a ``SECTIO_*`` value that does not validate, named with the
            reason (``SECTIO_QUANTIZATION: Input should be 'none' or 'int8' (got 'foo')``).
    """
    try:
        return Settings()
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            name = "SECTIO_" + "__".join(str(p) for p in err["loc"]).upper()
            reason = str(err["msg"]).removeprefix("Value error, ")
            problems.append(f"{name}: {reason} (got {err.get('input')!r})")
        raise ConfigError("invalid setting " + "; ".join(problems)) from None
