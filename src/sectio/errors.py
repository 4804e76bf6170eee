"""One error root for everything sectio raises on purpose.

The tree::

    SectioError
    ├── ConfigError              settings or arguments that cannot work together
    │   └── UnknownFilter        a search filter key outside the known set
    ├── ContractError            a chunk record or a profile breaks the corpus contract
    │   └── RecordError          one record: names file, line and field
    ├── ProfileError             a corpus profile cannot be read
    ├── EmbeddingError           the model cannot be loaded or produced a bad vector
    ├── IndexError_              the vector index refused an operation
    │   ├── CollectionNotFound   no such collection
    │   ├── CorpusMismatch       a load conflicts with the collection's manifest
    │   ├── ManifestMismatch     the configured embedder does not match the manifest
    │   ├── ManifestMissing      a collection without a manifest (never served, never written)
    │   ├── VectorSizeError      a vector of the wrong length
    │   └── CountMismatch        the collection's count differs from the chunk count
    └── SnapshotError            a snapshot file is unreadable or fails its checksum

Lower-level exceptions are translated into the most specific one with
``raise ... from exc`` so callers (and the CLI) can show a single line.
"""

from __future__ import annotations


class SectioError(Exception):
    """Root of every error sectio raises on purpose."""


class ConfigError(SectioError):
    """Settings or arguments that cannot work together."""


class UnknownFilter(ConfigError):
    """A search filter with an unknown key (or an unusable value)."""


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


class ProfileError(ContractError):
    """A corpus profile cannot be read or is inconsistent."""


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
    """The configured embedder does not match the collection's manifest."""


class ManifestMissing(IndexError_):
    """A collection has no manifest: it is neither served nor written to."""


class VectorSizeError(IndexError_):
    """A vector has the wrong number of dimensions."""


class CountMismatch(IndexError_):
    """After a load the collection's point count differs from the chunk count."""


class SnapshotError(SectioError):
    """A snapshot file is unreadable, incomplete or fails its checksum."""


class NotAvailable(SectioError):
    """A feature that this build or configuration does not provide."""
