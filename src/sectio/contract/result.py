"""Result models shared by the CLI (``--json``), the HTTP API and the Python API.

A retrieval result has at least: ``decision`` (ANSWERABLE | ABSTAIN |
VERIFY_SOURCE), ``reason``, ``route``, ``evidence`` (each with ``chunk_id``,
``doc_id``, ``section_key``, ``part_index``, ``text``, ``score``,
``source_refs``), ``omitted_evidence_ids`` and ``trace_id``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sectio.contract.diagnostics import Diagnostics, SearchDetails
from sectio.contract.record import SourceRef

Decision = Literal["ANSWERABLE", "ABSTAIN", "VERIFY_SOURCE"]


class ListScore(BaseModel):
    """A hit's place in one ranked list: its ``rank`` there (from 1) and that list's ``score``.

    Search names its lists ``fusion`` (the reciprocal rank fusion value; its rank
    is the hit's rank), ``dense`` (cosine similarity), ``bm25`` and
    ``bm25_folded`` (BM25 scores, exact and accent-folded).

    Example:
        >>> ListScore(rank=2, score=0.571).model_dump()
        {'rank': 2, 'score': 0.571}
    """

    model_config = ConfigDict(frozen=True)

    rank: int
    score: float


class Evidence(BaseModel):
    """One piece of evidence: a chunk, its score, its provenance."""

    model_config = ConfigDict(extra="allow")

    chunk_id: str
    doc_id: str
    section_key: str
    part_index: int
    text: str
    score: float
    #: Provenance: ``source`` and, where known, ``page`` and ``url`` (other keys kept).
    source_refs: list[SourceRef] = Field(default_factory=list)
    rank: int | None = None
    doc_title: str | None = None
    section_title: str | None = None
    chunk_kind: str = "prose"
    tenant: str = "default"
    path: str | None = None
    requires_visual_check: bool = False
    has_quarantined_content: bool = False
    parent_id: str | None = None
    pooled: bool = False
    #: Search hits: what ranked the hit, by list name (see :class:`ListScore`). Every list
    #: the search ran is a key; its value is None when the hit was not among that list's
    #: candidates (a BM25-only hit has ``dense: None``). None outside search.
    scores: dict[str, ListScore | None] | None = None

    @classmethod
    def from_payload(
        cls, payload: dict[str, Any], score: float, rank: int | None = None
    ) -> Evidence:
        """Evidence from a stored point's payload (the whole record)."""
        data = {
            k: payload.get(k)
            for k in (
                "chunk_id",
                "doc_id",
                "section_key",
                "part_index",
                "text",
                "doc_title",
                "section_title",
                "path",
                "parent_id",
            )
        }
        data["source_refs"] = list(payload.get("source_refs") or [])
        data["chunk_kind"] = payload.get("chunk_kind") or "prose"
        data["tenant"] = payload.get("tenant") or "default"
        data["requires_visual_check"] = bool(payload.get("requires_visual_check"))
        data["has_quarantined_content"] = bool(payload.get("has_quarantined_content"))
        data["score"] = float(score)
        data["rank"] = rank
        return cls.model_validate(data)


class SearchResult(BaseModel):
    """What ``search`` returns: the hits, best first, and ``details`` (what ranked them:
    :class:`~sectio.contract.diagnostics.SearchDetails`, the keys the search set)."""

    query: str
    mode: str
    collection: str
    tenant: str
    top_k_requested: int
    top_k: int
    clamped: bool
    hits: list[Evidence]
    details: SearchDetails = Field(default_factory=SearchDetails)
    trace_id: str | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)


class RetrievalResult(BaseModel):
    """What ``ask`` (and the docs planner) return: evidence plus a decision.

    ``route`` names the path taken (``section``, ``overview``, ``free_form``,
    ``fallback_search``, ``lookup``, ``docs_plan``, ...). ``details`` holds what
    each stage found (:class:`~sectio.contract.diagnostics.Diagnostics`: the
    resolution, pooled sections, rerank fail-open, packing, the answerability
    verdict, plan steps, ...); it serialises to the keys a stage set, and reads
    as a mapping of them too (``details["rerank"]["status"]``).
    """

    query: str
    collection: str
    tenant: str
    decision: Decision
    reason: str
    route: str
    resolved_doc_id: str | None = None
    resolved_section_key: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    omitted_evidence_ids: list[str] = Field(default_factory=list)
    details: Diagnostics = Field(default_factory=Diagnostics)
    trace_id: str | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)
