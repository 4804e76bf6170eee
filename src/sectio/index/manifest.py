"""The manifest: the binding between a collection and its corpus, model and settings.

It is plain data (JSON), kept beside the collection and never as one of its
points. Two checks read it:

* load time (:func:`assert_compatible`): before anything is written, a load
  must match the existing manifest on every binding field, else
  :class:`CorpusMismatch` names the fields that differ;
* start-up (:func:`check_serving`): every query path compares the configured
  embedder (model id, dimensions) with the manifest and refuses on mismatch.

Example:
    >>> m = Manifest(collection="c", corpus_sha256="a", chunk_count=1, model_id="m",
    ...              dimensions=4, input_kind="passage", max_length=256,
    ...              bm25={"language": "english"}, profile_name="generic",
    ...              profile_sha256="p")
    >>> m.differences(m.model_copy(update={"chunk_count": 2}))
    ['chunk_count']
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sectio._version import __version__
from sectio.errors import CorpusMismatch, ManifestMismatch, ManifestMissing

#: Fields that bind a collection: a load must agree on all of them.
BINDING_FIELDS = (
    "corpus_sha256",
    "chunk_count",
    "model_id",
    "dimensions",
    "input_kind",
    "max_length",
    "distance",
    "bm25",
    "profile_name",
    "profile_sha256",
    "index_text",
    "quantization",
    "dense_window_tokens",
)

#: What every tenant sharing a collection must agree on (all but the corpus identity).
SETTINGS_FIELDS = tuple(f for f in BINDING_FIELDS if f not in ("corpus_sha256", "chunk_count"))

INDEX_TEXT_VERSION = "doc_title+section_title+text/v1"


class Manifest(BaseModel):
    """The binding record of one collection."""

    model_config = ConfigDict(extra="allow")

    format_version: int = 1
    collection: str
    corpus_sha256: str
    chunk_count: int = Field(ge=0)
    model_id: str
    dimensions: int = Field(ge=1)
    input_kind: str
    max_length: int
    distance: str = "Cosine"
    bm25: dict[str, Any]
    profile_name: str
    profile_sha256: str
    profile: dict[str, Any] = Field(default_factory=dict)
    index_text: str = INDEX_TEXT_VERSION
    quantization: str = "none"
    #: 0: one dense vector per chunk; N: windows of <= N tokens, scored by the best one.
    dense_window_tokens: int = 0
    embed_batch_size: int | None = None
    #: The embedding provider and its package versions (a record, not a binding field).
    provider: dict[str, str] = Field(default_factory=dict)
    source: str | None = None
    #: Each tenant's corpus in a collection that tenants share: tenant ->
    #: ``{"corpus_sha256", "chunk_count", "source"}``; ``corpus_sha256`` and ``chunk_count``
    #: above are then the whole collection's. Empty in manifests written before it.
    tenants: dict[str, dict[str, Any]] = Field(default_factory=dict)
    sectio_version: str = __version__
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())

    def differences(self, other: Manifest) -> list[str]:
        """Binding fields whose values differ, in :data:`BINDING_FIELDS` order."""
        return [f for f in BINDING_FIELDS if getattr(self, f) != getattr(other, f)]

    def setting_differences(self, other: Manifest) -> list[str]:
        """The :data:`SETTINGS_FIELDS` whose values differ (the corpus aside)."""
        return [f for f in SETTINGS_FIELDS if getattr(self, f) != getattr(other, f)]


def assert_compatible(existing: Manifest, incoming: Manifest) -> None:
    """Load-time gate.

    Raises:
        CorpusMismatch: naming every binding field that differs.
    """
    diff = existing.differences(incoming)
    if diff:
        detail = ", ".join(
            f"{f} ({_short(getattr(existing, f))} -> {_short(getattr(incoming, f))})" for f in diff
        )
        raise CorpusMismatch(
            f"collection {existing.collection!r} holds another corpus: {detail}; "
            "use --replace to load the new version",
            fields=diff,
        )


def check_serving(manifest: Manifest | None, name: str, model_id: str, dimensions: int) -> Manifest:
    """Start-up gate: the configured embedder must be the one the collection was built with.

    Raises:
        ManifestMissing: no manifest.
        ManifestMismatch: model id or dimensions differ.
    """
    if manifest is None:
        raise ManifestMissing(f"collection {name!r} has no manifest; refusing to serve it")
    problems = []
    if manifest.model_id != model_id:
        problems.append(f"model_id {manifest.model_id!r} != configured {model_id!r}")
    if manifest.dimensions != dimensions:
        problems.append(f"dimensions {manifest.dimensions} != configured {dimensions}")
    if problems:
        raise ManifestMismatch(f"collection {name!r}: " + "; ".join(problems))
    return manifest


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 24 else text[:12] + "…"
