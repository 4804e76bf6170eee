"""The API's calls, as data: one function per endpoint builds its :class:`Call`.

Both clients take the same keyword options (typed here once) and parse the
same result models as the library (:mod:`sectio.contract.result`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict

from sectio.client._core import Call, make_call


class Correlation(TypedDict, total=False):
    """Per-call correlation: ``request_id`` (else a new one, kept across retries) and
    ``traceparent`` (else the active OpenTelemetry span's, if any)."""

    request_id: str | None
    traceparent: str | None


class AskOptions(Correlation, total=False):
    """Options of ``ask`` (``POST /v1/retrieve``); ``collection`` None is the server's default."""

    collection: str | None
    doc_id: str | None
    section_key: str | None
    turn_type: str | None
    top_k: int | None
    conversation_id: str | None


class SearchOptions(Correlation, total=False):
    """Options of ``search`` (``POST /v1/search``)."""

    collection: str | None
    top_k: int
    mode: Literal["hybrid", "dense", "lexical"]
    filters: dict[str, str | list[str]] | None


class LookupOptions(Correlation, total=False):
    """Options of ``lookup`` (``POST /v1/lookup``)."""

    collection: str | None


class FeedbackOptions(Correlation, total=False):
    """Options of ``feedback`` (``POST /v1/feedback``)."""

    comment: str | None
    conversation_id: str | None


def _post(path: str, body: dict[str, Any], opts: Correlation) -> Call:
    fields = {k: v for k, v in opts.items() if k not in ("request_id", "traceparent")}
    return make_call(
        "POST",
        path,
        {**body, **fields},
        request_id=opts.get("request_id"),
        traceparent=opts.get("traceparent"),
    )


def ask(question: str, opts: AskOptions) -> Call:
    """``POST /v1/retrieve``."""
    return _post("/v1/retrieve", {"query": question}, opts)


def search(query: str, opts: SearchOptions) -> Call:
    """``POST /v1/search``."""
    return _post("/v1/search", {"query": query}, opts)


def lookup(phrase: str, opts: LookupOptions) -> Call:
    """``POST /v1/lookup``."""
    return _post("/v1/lookup", {"phrase": phrase}, opts)


def feedback(trace_id: str, rating: str, opts: FeedbackOptions) -> Call:
    """``POST /v1/feedback``."""
    return _post("/v1/feedback", {"trace_id": trace_id, "rating": rating}, opts)


class AdminOptions(Correlation, total=False):
    """Options of the admin writes (``/v1/admin/...``, an admin key's tenant)."""

    collection: str | None


def documents(action: str, records: Sequence[Mapping[str, Any]], opts: AdminOptions) -> Call:
    """``POST /v1/admin/documents/{upsert|sync}`` or ``/v1/admin/tenant/replace``."""
    path = "/v1/admin/tenant/replace" if action == "replace" else f"/v1/admin/documents/{action}"
    return _post(path, {"records": [dict(r) for r in records]}, opts)


def delete_documents(doc_ids: Sequence[str], opts: AdminOptions) -> Call:
    """``POST /v1/admin/documents/delete``."""
    return _post("/v1/admin/documents/delete", {"doc_ids": list(doc_ids)}, opts)


def get(path: str) -> Call:
    """A ``GET`` (collections, traces, readiness)."""
    return make_call("GET", path)
