"""Request and response bodies. Unknown request fields are rejected; the tenant is never
a body field. Every route declares its response model (the OpenAPI schema); the
retrieval routes answer with :class:`~sectio.contract.result.RetrievalResult` and
:class:`~sectio.contract.result.SearchResult`."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sectio.contract.request import AskRequest

#: What no store can keep: a NUL (PostgreSQL text refuses it) or a lone surrogate.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _storable(value: str | None) -> str | None:
    """``value`` unless it holds a NUL or a lone surrogate (then a 422 names the field)."""
    if value is not None and _UNSTORABLE.search(value):
        raise ValueError("contains a NUL character or a lone surrogate")
    return value


def _conversation(value: str | None) -> str | None:
    """A conversation id: not blank, storable."""
    if value is not None and not value.strip():
        raise ValueError("a conversation id must not be blank")
    return _storable(value)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RetrieveRequest(_Body):
    """``POST /v1/retrieve``: the ``ask`` pipeline."""

    query: str = Field(min_length=1, description="The question.")
    collection: str | None = Field(default=None, description="Collection (default: `default`).")
    doc_id: str | None = Field(default=None, description="Force the document.")
    section_key: str | None = Field(default=None, description="Force the section.")
    turn_type: str | None = Field(default=None, description="e.g. `drug_overview`.")
    top_k: int | None = Field(default=None, description="Clamped to [1, 50].")
    conversation_id: str | None = Field(default=None, max_length=128)

    def ask_request(self, query: str) -> AskRequest:
        """The engine's request for ``query`` (this body's checked ``query``).

        Raises:
            ConfigError: an empty question or an unknown ``turn_type``.
        """
        return AskRequest.of(
            query,
            doc_id=self.doc_id,
            section_key=self.section_key,
            turn_type=self.turn_type,
            top_k=self.top_k,
        )

    _check_conversation = field_validator("conversation_id")(_conversation)


class SearchRequest(_Body):
    """``POST /v1/search``."""

    query: str = Field(min_length=1)
    collection: str | None = None
    top_k: int = Field(default=10, description="Clamped to [1, 50]; the result says so.")
    mode: Literal["hybrid", "dense", "lexical"] = "hybrid"
    filters: dict[str, str | list[str]] | None = Field(
        default=None,
        description="doc_id, section_key, chunk_kind, tags, metadata.domain, "
        "metadata.subdomain, path (prefix).",
    )


class LookupRequest(_Body):
    """``POST /v1/lookup``: phrase -> documents (e.g. condition -> drugs)."""

    phrase: str = Field(min_length=1)
    collection: str | None = None


class FeedbackRequest(_Body):
    """``POST /v1/feedback``: one per trace; a second submission updates it."""

    trace_id: str = Field(min_length=1, max_length=64)
    rating: Literal["helpful", "not_helpful"]
    comment: str | None = Field(default=None, max_length=2000)
    conversation_id: str | None = Field(default=None, max_length=128)

    _check_comment = field_validator("comment", "trace_id")(_storable)
    _check_conversation = field_validator("conversation_id")(_conversation)


class ErrorBody(BaseModel):
    """Every error response: ``{"error": {"code": ..., "message": ...}}``."""

    error: dict[str, str]


# --- response bodies (the OpenAPI schema of every route) -----------------------------
class _Response(BaseModel):
    """A response body; keys beyond the declared ones are kept (documented where they are)."""

    model_config = ConfigDict(extra="allow")


class Health(_Response):
    """``GET /healthz``: the process is alive."""

    status: Literal["ok"]


class CollectionReadiness(_Response):
    """One collection's readiness: ``ready`` and, when not, why (``reason``)."""

    ready: bool
    reason: str | None = None


class Readiness(_Response):
    """``GET /readyz``: every configured collection's readiness (503 when one is not)."""

    ready: bool
    collections: dict[str, CollectionReadiness]
    reason: str | None = Field(default=None, description="`starting`, or no collections.")


class CollectionSummary(_Response):
    """A served collection as the caller's tenant sees it."""

    name: str
    ready: bool
    reason: str | None = None
    count: int = Field(description="The caller's tenant's chunks.")
    model_id: str | None = None
    profile_name: str | None = None


class Collections(_Response):
    """``GET /v1/collections``: the collections served here, by name."""

    collections: list[CollectionSummary]


class CollectionDetail(_Response):
    """``GET /v1/collections/{name}``: readiness, the caller's chunk count (``count``,
    also ``tenant_count``) and the manifest's public fields (``manifest``)."""

    name: str
    ready: bool
    reason: str | None = None
    tenant: str
    count: int | None = None
    tenant_count: int | None = None
    manifest: dict[str, Any] | None = None


class FeedbackStored(_Response):
    """``POST /v1/feedback``: the stored feedback (``updated``: it replaced earlier feedback)."""

    feedback_id: str
    trace_id: str
    tenant: str
    conversation_id: str | None = None
    rating: str
    comment: str | None = None
    created_at: str
    updated_at: str
    updated: bool = False


class TraceRecord(_Response):
    """``GET /v1/traces/{trace_id}``: one stored retrieval trace (the operational
    store's row: route, decision, citations, timings, ...)."""

    trace_id: str
    tenant: str
    route: str | None = None
    decision: str | None = None


# --- admin (document writes; an admin key's tenant) ----------------------------------
class DocumentsRequest(_Body):
    """``POST /v1/admin/documents/upsert|sync`` and ``/v1/admin/tenant/replace``: chunk
    records (the corpus contract, one object each). A record without ``tenant`` is the
    key's tenant's; one naming another tenant is refused (403)."""

    records: list[dict[str, Any]] = Field(min_length=1, description="Chunk records.")
    collection: str | None = Field(default=None, description="Collection (default: `default`).")


class DeleteRequest(_Body):
    """``POST /v1/admin/documents/delete``: the doc ids to remove from the key's tenant."""

    doc_ids: list[str] = Field(min_length=1, max_length=10_000)
    collection: str | None = None


class DocumentWrite(_Response):
    """A document write's report: the doc ids ``added``, ``changed`` and ``deleted``
    (sorted), how many were ``unchanged``, the chunks written (``upserted``) and
    ``removed``, the collection's count after, and ``counts`` (of documents)."""

    collection: str
    tenant: str
    action: Literal["upsert", "delete", "sync", "replace"]
    added: list[str]
    changed: list[str]
    deleted: list[str]
    unchanged: int
    upserted: int
    removed: int
    collection_count: int
    embeddings_computed: int = 0
    embeddings_cached: int = 0
    seconds: float = 0.0
    counts: dict[str, int]
