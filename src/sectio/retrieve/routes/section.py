"""Section route: a known document and section, answered exactly, in full, in order.

A ``scroll`` under a payload filter (tenant, document, section, prose), never a
top-k search: it pages until the engine says there is nothing left, because a
silently truncated section reads as a complete answer. The chunks are re-sorted
by ``part_index`` (engine order is uuid order, i.e. random). There is no
evidence limit, and the score is 1.0 by construction: an exact match, not a
similarity, never to be compared with one. Bounded pooling
(:mod:`sectio.retrieve.pooling`) may add strongly matching chunks of another
section of the same document.

Two routes live here:

* :class:`SectionRoute`: the document and the section are known. A section
  the question named but the document lacks declines (the pipeline tries the
  next route and ``details.section_fallback`` says why); a section the caller
  forced does not (its absence is the answer: no evidence, ``ABSTAIN``).
* :class:`CandidateSectionsRoute`: the question names several documents (or a
  name two documents share) and a section: that section of each, at most
  :data:`MAX_SECTION_DOCS` documents.

A question that asks two things ("metformin indications and
contraindications": two phrases of different sections joined by one of the
profile's ``[intent] joiners``) names a second section (``Resolution.also``):
both routes answer it too, whole, after the first (every chunk carries its
``section_key``; ``details.sections`` lists them in answer order).
"""

from __future__ import annotations

from sectio.contract.diagnostics import Diagnostics, SectionFallback
from sectio.contract.result import Evidence
from sectio.retrieve.pooling import pool_sections
from sectio.retrieve.routes.base import Outcome, Turn
from sectio.retrieve.scan import flagged_blocks, section_points
from sectio.retrieve.scope import ReadScope

SECTION_SCORE = 1.0
#: Documents a multi-document section answer reads at most.
MAX_SECTION_DOCS = 3


def section_evidence(scope: ReadScope, doc_id: str, section_key: str) -> list[Evidence]:
    """Every prose chunk of ``doc_id`` / ``section_key`` (the scope's tenant), by ``part_index``.

    The section's flagged ``block`` chunks (a quarantined table, a figure to
    check visually) come with them, marked ``chunk_kind: block``: their flags
    reach ``decide`` (``VERIFY_SOURCE``) instead of being dropped silently.
    """
    points = section_points(scope, doc_id, [section_key], route="section")
    points = [p for p in points if p.payload.get("section_key") == section_key]
    points += flagged_blocks(scope, doc_id, section_key, route="section")
    points.sort(key=lambda p: (int(p.payload.get("part_index") or 0), str(p.payload["chunk_id"])))
    return [
        Evidence.from_payload(p.payload, SECTION_SCORE, rank=i + 1) for i, p in enumerate(points)
    ]


class SectionRoute:
    """The whole named section of the named document, plus bounded pooling."""

    name = "section"
    needs_resolution = True

    def run(self, scope: ReadScope, turn: Turn) -> Outcome | None:
        res = turn.resolved
        if not (res.doc_id and res.section_key) or turn.request.overview:
            return None
        evidence = section_evidence(scope, res.doc_id, res.section_key)
        if not evidence and not res.section_forced:
            turn.details.section_fallback = SectionFallback(
                section_key=res.section_key, why="section_absent"
            )
            return None
        pooled = pool_sections(scope, res.doc_id, res.section_key, turn.question)
        have = {e.chunk_id for e in evidence}
        evidence += [e for e in pooled.evidence if e.chunk_id not in have]
        details = Diagnostics(pooling=pooled.details)
        if res.also:
            evidence += section_evidence(scope, res.doc_id, res.also)
            details.sections = list(res.sections)
            for i, e in enumerate(evidence, start=1):
                e.rank = i
        return Outcome(self.name, evidence, details, doc_id=res.doc_id, section_key=res.section_key)


class CandidateSectionsRoute:
    """The named section of each document an ambiguous question names, in candidate order."""

    name = "section"
    needs_resolution = True

    def run(self, scope: ReadScope, turn: Turn) -> Outcome | None:
        res = turn.resolved
        if res.doc_id or not res.ambiguous or not res.section_key:
            return None
        assert res.named is not None  # ambiguous implies a resolver reading
        docs = list(res.named.candidates[:MAX_SECTION_DOCS])
        evidence: list[Evidence] = []
        for key in res.sections:
            for candidate in docs:
                evidence += section_evidence(scope, candidate, key)
        details = Diagnostics(documents=docs)
        if res.also:
            details.sections = list(res.sections)
            for i, e in enumerate(evidence, start=1):
                e.rank = i
        return Outcome(self.name, evidence, details, section_key=res.section_key)
