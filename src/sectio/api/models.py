"""Request bodies. Unknown fields are rejected; the tenant is never a body field."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

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
