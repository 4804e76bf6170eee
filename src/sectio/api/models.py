"""Request bodies. Unknown fields are rejected; the tenant is never a body field."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


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


class ErrorBody(BaseModel):
    """Every error response: ``{"error": {"code": ..., "message": ...}}``."""

    error: dict[str, str]
