"""One error root for everything sectio raises on purpose, and the HTTP status of each.

The tree, with the status and stable ``code`` the HTTP API answers each with
(:data:`HTTP_ERRORS`; the body is ``{"error": {"code", "message"}}``)::

    SectioError                  500 internal_error        (only if raised bare)
    ├── ConfigError              400 bad_request           settings or arguments that cannot
    │   │                                                  work together
    │   └── UnknownFilter        400 bad_request           a search filter key outside the set
    ├── ProfileError             500 profile_error         a corpus profile cannot be read
    │                                                      (the operator's configuration)
    ├── ContractError            400 bad_request           input breaks the corpus contract
    │   └── RecordError          400 bad_request           one record: names file, line, field
    ├── EmbeddingError           500 embedding_error       the model cannot be loaded or
    │                                                      produced a bad vector
    ├── IndexError_              503 index_error           the vector index refused an operation
    │   ├── CollectionNotFound   404 collection_not_found  no such collection
    │   ├── CorpusMismatch       503 index_error           a load conflicts with the manifest
    │   ├── ManifestMismatch     503 collection_not_ready  the embedder does not match the manifest
    │   ├── ManifestMissing      503 collection_not_ready  a collection without a manifest
    │   ├── VectorSizeError      503 index_error           a vector of the wrong length
    │   ├── CountMismatch        503 index_error           the count differs from the chunk count
    │   ├── CollectionBusy       409 collection_busy       another process writes (or serves) it:
    │   │                                                  the message names its pid and command
    │   └── InsufficientSpace    507 insufficient_storage  the disk lacks the bytes a write (or a
    │                                                      first read) needs: names needed and free
    ├── SnapshotError            422 invalid_snapshot      a snapshot file is unreadable or fails
    │                                                      its checksum (CLI only: no endpoint
    │                                                      restores a snapshot)
    ├── NotAvailable             501 not_available         a feature this build or configuration
    │                                                      does not provide
    ├── RemoteError              502 remote_error          sectio.client: the service answered an
    │   │                                                  error no class here names (401, 413,
    │   │                                                  422, ...); ``status`` and ``code`` say it
    │   └── ServiceUnreachable   503 service_unreachable   sectio.client: no answer (connection
    │                                                      failed or 503) after every retry
    └── StoreError               500 store_error           the operational store refused or
        │                                                  failed an operation
        ├── StoreUnavailable     503 store_unavailable     cannot connect, or a statement timed out
        ├── StoreNotMigrated     503 store_unavailable     the schema is behind (or ahead of) this
        │                                                  sectio: run `sectio migrate`
        ├── TraceNotFound        404 trace_not_found       no such trace for this tenant
        └── InvalidInput         422 invalid_request       a value the store will not keep
                                                           (rating, comment length, ids)

4xx: the caller can fix the request; 5xx: the server (its model, index, store
or configuration) failed, whatever the request. Trace writes on the retrieval
path never raise the store's errors: they are logged and counted (fail-open).

Lower-level exceptions are translated into the most specific one with
``raise ... from exc`` so callers (and the CLI, which prints one line and
exits 1 for any of them) can show a single line.

Example:
    >>> http_error(CollectionNotFound("no collection named 'x'"))
    (404, 'collection_not_found')
"""

from __future__ import annotations


class SectioError(Exception):
    """Root of every error sectio raises on purpose."""


class ConfigError(SectioError):
    """Settings or arguments that cannot work together."""


class UnknownFilter(ConfigError):
    """A search filter with an unknown key (or an unusable value)."""


class ProfileError(SectioError):
    """A corpus profile cannot be read or is inconsistent.

    The profile is the operator's configuration (a shipped name, a TOML file,
    or the copy stored in a collection's manifest), not a record of the
    corpus: hence a sibling of :class:`ContractError`, not a kind of it.
    """


class ContractError(SectioError):
    """Input breaks the corpus contract."""


class RecordError(ContractError):
    """One chunk record is invalid.

    Example:
        >>> str(RecordError("chunks.jsonl", 3, "part_index", "must be >= 0"))
        'chunks.jsonl:3: field part_index: must be >= 0'
    """

    def __init__(self, source: str, line: int, field: str, message: str) -> None:
        self.source = source
        self.line = line
        self.field = field
        self.message = message
        super().__init__(f"{source}:{line}: field {field}: {message}")


class EmbeddingError(SectioError):
    """The embedding model cannot be loaded or produced an unusable vector."""


class IndexError_(SectioError):
    """The vector index refused an operation."""


class CollectionNotFound(IndexError_):
    """No collection of that name."""


class CorpusMismatch(IndexError_):
    """A load conflicts with the collection's manifest.

    Attributes:
        fields: the manifest fields that differ, in manifest order.
    """

    def __init__(self, message: str, fields: list[str] | None = None) -> None:
        self.fields = list(fields or [])
        super().__init__(message)


class ManifestMismatch(IndexError_):
    """The configured embedder does not match the collection's manifest (or the manifest
    does not match the collection's own points: its BM25 ``avg_len``)."""


class ManifestMissing(IndexError_):
    """A collection has no manifest: it is neither served nor written to."""


class VectorSizeError(IndexError_):
    """A vector has the wrong number of dimensions."""


class CountMismatch(IndexError_):
    """After a load the collection's point count differs from the chunk count."""


class CollectionBusy(IndexError_):
    """Another process holds the collection (a writer's lock, or a server's open shard).

    The message names the holder's pid and command when it is known.
    """


class InsufficientSpace(IndexError_):
    """The disk lacks the bytes an operation needs; the message names needed and free."""


class SnapshotError(SectioError):
    """A snapshot file is unreadable, incomplete or fails its checksum."""


class NotAvailable(SectioError):
    """A feature that this build or configuration does not provide."""


class RemoteError(SectioError):
    """The sectio service answered with an error that no other class names.

    Raised by :mod:`sectio.client` for an HTTP error whose code maps to no
    class of this tree (a missing key: 401 ``unauthorized``; a body over the
    cap: 413; a malformed request: 422 ``invalid_request``; ...).

    Attributes:
        status: the HTTP status (0 when no response came).
        code: the body's ``error.code``.
        request_id: the ``X-Request-ID`` the request was sent with.
    """

    def __init__(
        self, message: str, *, status: int = 0, code: str = "", request_id: str | None = None
    ) -> None:
        self.status, self.code, self.request_id = status, code, request_id
        super().__init__(message)


class ServiceUnreachable(RemoteError):
    """No usable answer from the service (connection error or 503) after every retry."""


class StoreError(SectioError):
    """The operational store refused or failed an operation."""


class StoreUnavailable(StoreError):
    """The database cannot be reached, or a statement ran past its timeout."""


class StoreNotMigrated(StoreError):
    """The database schema does not match this sectio's migrations."""


class TraceNotFound(StoreError):
    """No trace with this id for this tenant (another tenant's trace reads as unknown)."""


class InvalidInput(StoreError):
    """A value the store will not keep: an unknown rating, a comment too long, a bad id."""


#: The HTTP answer to each error: ``(status, code)``. Every class of the tree is
#: listed (a test checks it), so a new error class needs a decision here.
HTTP_ERRORS: dict[type[SectioError], tuple[int, str]] = {
    SectioError: (500, "internal_error"),
    ConfigError: (400, "bad_request"),
    UnknownFilter: (400, "bad_request"),
    ProfileError: (500, "profile_error"),
    ContractError: (400, "bad_request"),
    RecordError: (400, "bad_request"),
    EmbeddingError: (500, "embedding_error"),
    IndexError_: (503, "index_error"),
    CollectionNotFound: (404, "collection_not_found"),
    CorpusMismatch: (503, "index_error"),
    ManifestMismatch: (503, "collection_not_ready"),
    ManifestMissing: (503, "collection_not_ready"),
    VectorSizeError: (503, "index_error"),
    CountMismatch: (503, "index_error"),
    CollectionBusy: (409, "collection_busy"),
    InsufficientSpace: (507, "insufficient_storage"),
    SnapshotError: (422, "invalid_snapshot"),
    NotAvailable: (501, "not_available"),
    RemoteError: (502, "remote_error"),
    ServiceUnreachable: (503, "service_unreachable"),
    StoreError: (500, "store_error"),
    StoreUnavailable: (503, "store_unavailable"),
    StoreNotMigrated: (503, "store_unavailable"),
    TraceNotFound: (404, "trace_not_found"),
    InvalidInput: (422, "invalid_request"),
}


def http_error(exc: SectioError) -> tuple[int, str]:
    """``(status, code)`` of ``exc``: its class's row of :data:`HTTP_ERRORS`, else its
    nearest listed ancestor's (a subclass defined outside this module)."""
    for cls in type(exc).__mro__:
        found = HTTP_ERRORS.get(cls)
        if found is not None:
            return found
    return HTTP_ERRORS[SectioError]


def public_message(exc: SectioError) -> str:
    """What a remote caller (HTTP, MCP) may read of ``exc``: a store's own failure names no
    URL, user, host, port, database or driver message (the server's log has them).

    Example:
        >>> public_message(StoreUnavailable("operational store postgresql://u@h:5432/d down"))
        'operational store unavailable; try again shortly'
    """
    if isinstance(exc, StoreUnavailable):
        return "operational store unavailable; try again shortly"
    if isinstance(exc, StoreNotMigrated):
        return "operational store not migrated; the operator must run `sectio migrate`"
    if isinstance(exc, StoreError) and not isinstance(exc, InvalidInput | TraceNotFound):
        return "operational store error; see the server log"
    return str(exc)
