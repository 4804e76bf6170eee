"""Plain records the store returns, and how a retrieval result becomes a trace row.

The trace keeps what the *service* resolved, never what a caller claimed:
tenant, intent, scope, route and decision all come from the result object
that retrieval produced (see :func:`trace_values`).

Example:
    >>> from sectio.contract.result import RetrievalResult
    >>> r = RetrievalResult(query="q", collection="c", tenant="t", decision="ABSTAIN",
    ...                     reason="no evidence", route="free_form")
    >>> summarize(r)
    'ABSTAIN via free_form: no evidence'
"""

from __future__ import annotations

import re
import uuid
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sectio.contract.result import Evidence, RetrievalResult, SearchResult
from sectio.ops.errors import InvalidInput
from sectio.ops.privacy import QueryTextPolicy, keep_text
from sectio.ops.schema import CONVERSATION_MAX, CORRELATION_MAX, TENANT_MAX

AnyResult = SearchResult | RetrievalResult

_KIND = re.compile(r"^[a-z][a-z0-9_]{0,15}$")
_OTEL = re.compile(r"^[0-9a-f]{32}$")


def _jsonable(value: Any) -> dict[str, Any]:
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in asdict(value).items()}


@dataclass(frozen=True)
class TraceEntry:
    """One trace to write: the result, and the ids of the request it answered."""

    kind: str
    result: AnyResult
    conversation_id: str | None = None
    correlation_id: str | None = None
    otel_trace_id: str | None = None


@dataclass(frozen=True)
class TraceSummary:
    """One row of ``sectio traces``: a trace with its feedback rating (if any)."""

    trace_id: str
    created_at: datetime
    kind: str
    tenant: str
    collection: str | None
    route: str | None
    decision: str | None
    query_text: str | None
    conversation_id: str | None
    rating: str | None

    def as_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return _jsonable(self)


@dataclass(frozen=True)
class Feedback:
    """Stored feedback on one trace; ``updated`` is True when it replaced earlier feedback."""

    feedback_id: str
    trace_id: str
    tenant: str
    conversation_id: str | None
    rating: str
    comment: str | None
    created_at: datetime
    updated_at: datetime
    updated: bool = False

    def as_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return _jsonable(self)


@dataclass(frozen=True)
class ConversationTurn:
    """One line of a conversation."""

    id: int
    conversation_id: str
    tenant: str
    role: str
    line: str | None
    trace_id: str | None
    created_at: datetime

    def as_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return _jsonable(self)


#: Another name of :class:`ConversationTurn`, for callers that import ``Turn`` from here
#: (the pipeline's turn is :class:`sectio.retrieve.routes.base.Turn`).
Turn = ConversationTurn


@dataclass(frozen=True)
class PurgeReport:
    """What a purge deleted. ``feedback`` counts rows removed by the cascade."""

    scope: str
    traces: int
    turns: int
    feedback: int
    cutoff: datetime | None = None
    conversation_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return _jsonable(self)


def canonical_uuid(value: str) -> str | None:
    """``value`` as a canonical lowercase dashed UUID, or None if it is not one."""
    try:
        return str(uuid.UUID(str(value)))
    except (ValueError, AttributeError, TypeError):
        return None


def check_conversation_id(value: str) -> str:
    """A conversation id the store will keep: 1 to 128 characters, not blank.

    Raises:
        InvalidInput: empty, blank or too long.
    """
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("a conversation id must not be empty")
    if len(value) > CONVERSATION_MAX:
        raise InvalidInput(f"a conversation id is at most {CONVERSATION_MAX} characters")
    check_storable("a conversation id", value)
    return value


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def check_storable(what: str, value: str) -> str:
    """``value``, if every dialect can store it: no NUL (PostgreSQL text refuses it) and
    no lone surrogate (not UTF-8).

    Raises:
        InvalidInput: ``what`` holds a NUL or a lone surrogate.
    """
    bad = _UNSTORABLE.search(value)
    if bad is not None:
        kind = "a NUL character" if bad.group() == "\x00" else "a lone surrogate"
        raise InvalidInput(f"{what} contains {kind}")
    return value


@dataclass(frozen=True)
class PreviousSubject:
    """What a conversation's earlier turns say its subject is, as read before a new turn.

    Attributes:
        status: ``found`` (``doc_id`` is the last answered turn's document), ``none``
            (no earlier answered turn names one) or ``unavailable`` (the store could
            not be read in time, or is marked down: the question is a first turn).
        doc_id: the document, when ``found``.
    """

    status: str
    doc_id: str | None = None

    def as_details(self) -> dict[str, Any]:
        """The result's ``details["conversation"]``."""
        out: dict[str, Any] = {"previous_subject": self.status, "doc_id": self.doc_id}
        if self.status == "unavailable":
            out["answered_as"] = "first_turn"
        return out


def check_tenant(value: str) -> str:
    """Raises:
    InvalidInput: an empty or over-long tenant.
    """
    if not value or len(value) > TENANT_MAX:
        raise InvalidInput(f"a tenant is 1 to {TENANT_MAX} characters")
    return value


def citations(evidence: list[Evidence]) -> list[dict[str, Any]]:
    """The trace's citations: which chunks, in which order, with which score (no text)."""
    return [
        {
            "chunk_id": e.chunk_id,
            "doc_id": e.doc_id,
            "section_key": e.section_key,
            "part_index": e.part_index,
            "score": e.score,
            "rank": e.rank,
        }
        for e in evidence
    ]


def summarize(result: AnyResult, *, max_docs: int = 5) -> str:
    """A one-line answer summary for the assistant's conversation turn."""
    if isinstance(result, SearchResult):
        docs = _doc_list(result.hits, max_docs)
        return f"{len(result.hits)} hit(s) via search:{result.mode}" + (f": {docs}" if docs else "")
    head = f"{result.decision} via {result.route}"
    if not result.evidence:
        return f"{head}: {result.reason}"
    return f"{head}: {_doc_list(result.evidence, max_docs)} ({len(result.evidence)} chunk(s))"


def _doc_list(evidence: list[Evidence], max_docs: int) -> str:
    seen: list[str] = []
    for e in evidence:
        key = f"{e.doc_id}/{e.section_key}"
        if key not in seen:
            seen.append(key)
    more = f" +{len(seen) - max_docs} more" if len(seen) > max_docs else ""
    return ", ".join(seen[:max_docs]) + more


def trace_values(
    kind: str,
    result: AnyResult,
    *,
    trace_id: str,
    created_at: datetime,
    policy: QueryTextPolicy,
    conversation_id: str | None = None,
    correlation_id: str | None = None,
    otel_trace_id: str | None = None,
) -> dict[str, Any]:
    """The ``retrieval_trace`` row for ``result``.

    Tenant, intent, scope, route and decision are read from the result (the
    values the service resolved). A malformed ``otel_trace_id`` is dropped and
    an over-long ``correlation_id`` cut, so that header noise never loses a
    trace.

    Raises:
        InvalidInput: an unknown kind shape, a bad tenant or conversation id.
    """
    if not _KIND.match(kind):
        raise InvalidInput(f"trace kind {kind!r} is not a short lowercase identifier")
    check_tenant(result.tenant)
    if conversation_id is not None:
        check_conversation_id(conversation_id)
    otel = (otel_trace_id or "").strip().lower()
    row: dict[str, Any] = {
        "trace_id": trace_id,
        "kind": kind,
        "collection": result.collection,
        "query_text": keep_text(result.query, policy),
        "tenant": result.tenant,
        "timings": dict(result.timings_ms),
        "conversation_id": conversation_id,
        "correlation_id": correlation_id[:CORRELATION_MAX] if correlation_id else None,
        "otel_trace_id": otel if _OTEL.match(otel) else None,
        "created_at": created_at,
    }
    if isinstance(result, SearchResult):
        row.update(
            route=f"search:{result.mode}",
            query_intent="search",
            subject_scope=None,
            decision=None,
            reason=None,
            resolved_doc_id=None,
            resolved_section_key=None,
            citations=citations(result.hits),
            omitted_evidence_ids=[],
        )
        return row
    details = result.details
    intent = details.query_intent or details.intent or result.route
    scope = details.subject_scope or result.resolved_doc_id
    row.update(
        route=result.route,
        query_intent=intent if isinstance(intent, str) else str(intent.model_dump()),
        subject_scope=str(scope) if scope is not None else None,
        decision=result.decision,
        reason=result.reason,
        resolved_doc_id=result.resolved_doc_id,
        resolved_section_key=result.resolved_section_key,
        citations=citations(result.evidence),
        omitted_evidence_ids=list(result.omitted_evidence_ids),
    )
    return row
