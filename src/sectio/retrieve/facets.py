"""Facet assessment: evidence about documents already chosen, one facet at a time.

It never creates candidates. For each candidate document and each facet the
caller asks about (the profile's ``[facets]``: interaction, warnings, dosage,
pregnancy, ...), a separate search runs only in that facet's own sections:

* a lexical facet runs a BM25 search with the facet's own terms, and a hit
  counts only if one of those terms occurs in it as a whole, word-boundary
  phrase (a real anchor, not overlap on generic words: "kidney function" does
  not anchor on "function"); a current medicine can select an interaction
  chunk only when *that medicine* is named inside the interaction section;
  a term made only of the profile's generic words (``[anchors] generic``:
  "function", "chức năng") is no anchor at all: it is not searched and the
  finding lists it in ``ignored_terms``;
* a ``direct`` facet (pregnancy, breastfeeding) is a section route: the whole
  sections, no anchor.

No hit is ``INSUFFICIENT_EVIDENCE``, never "safe". Each document's pooled
evidence goes through :func:`sectio.retrieve.decision.decide`, so quarantine
and provenance rules hold here too.

Example:
    >>> context = FacetContext({"interaction": ["warfarin"], "pregnancy": True})
    >>> context.facets()
    ['interaction', 'pregnancy']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from sectio.contract.profile import FacetSpec
from sectio.contract.result import Decision, Evidence
from sectio.errors import ConfigError
from sectio.index.filters import AnyOf, Eq, tenant_where
from sectio.index.port import StoredPoint
from sectio.retrieve.decision import decide
from sectio.retrieve.scan import book_order, prose_where, section_points
from sectio.retrieve.scope import ReadScope
from sectio.retrieve.text import find_phrase, tokens

FacetStatus = Literal["EVIDENCE_FOUND", "INSUFFICIENT_EVIDENCE"]
FOUND: FacetStatus = "EVIDENCE_FOUND"
INSUFFICIENT: FacetStatus = "INSUFFICIENT_EVIDENCE"


class FacetContext:
    """What to look for per facet: terms (a string or a list) or ``True`` for a direct facet."""

    def __init__(self, values: Mapping[str, str | Sequence[str] | bool]) -> None:
        self._terms: dict[str, list[str]] = {}
        for facet, value in values.items():
            if value is True:
                self._terms[facet] = []
            elif value is False or value is None:
                continue
            elif isinstance(value, str):
                self._terms[facet] = [value] if value.strip() else []
            else:
                self._terms[facet] = [str(v) for v in value if str(v).strip()]

    def facets(self) -> list[str]:
        return list(self._terms)

    def terms(self, facet: str) -> list[str]:
        return list(self._terms.get(facet, []))


class FacetFinding(BaseModel):
    """One facet of one candidate."""

    facet: str
    status: FacetStatus
    sections_searched: list[str]
    terms: list[str] = Field(default_factory=list)
    matched_terms: list[str] = Field(default_factory=list)
    ignored_terms: list[str] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)


class CandidateAssessment(BaseModel):
    """Every asked facet of one candidate document, and the decision on its evidence."""

    doc_id: str
    decision: Decision
    reason: str
    facets: list[FacetFinding]


class Assessment(BaseModel):
    """What ``assess`` returns."""

    collection: str
    tenant: str
    candidates: list[CandidateAssessment]
    skipped_candidates: list[str] = Field(default_factory=list)
    trace_id: str | None = None


def _anchors(text: str, terms: Sequence[str]) -> list[str]:
    words = tokens(text)
    return [t for t in terms if tokens(t) and find_phrase(words, tokens(t))]


def is_generic(term: str, generic: Sequence[str]) -> bool:
    """Whether ``term`` is made only of generic words or phrases (longest removed first).

    Example:
        >>> is_generic("Function", ["function"]), is_generic("kidney function", ["function"])
        (True, False)
        >>> is_generic("chức năng", ["chức năng"]), is_generic("chức", ["chức năng"])
        (True, False)
    """
    left = list(tokens(term))
    for phrase in sorted((tokens(g) for g in generic), key=len, reverse=True):
        n = len(phrase)
        i = 0
        while n and i + n <= len(left):
            if tuple(left[i : i + n]) == phrase:
                del left[i : i + n]
            else:
                i += 1
    return bool(tokens(term)) and not left


def _lexical_facet(
    scope: ReadScope, doc_id: str, name: str, spec: FacetSpec, terms: list[str]
) -> FacetFinding:
    collection, tenant = scope.collection, scope.tenant
    sections = list(spec.sections)
    generic = collection.profile.anchors.generic
    ignored = [t for t in terms if spec.require_anchor and is_generic(t, generic)]
    base = FacetFinding(
        facet=name,
        status=INSUFFICIENT,
        sections_searched=sections,
        terms=terms,
        ignored_terms=ignored,
    )
    terms = [t for t in terms if t not in ignored]
    vectors = collection.lexical.encode_query(" ".join(terms)) if terms else {}
    if not vectors:
        return base
    where = prose_where(tenant, Eq("doc_id", doc_id), AnyOf("section_key", tuple(sections)))
    best: dict[str, tuple[float, StoredPoint]] = {}
    for vname, vec in vectors.items():
        hits = collection.index.search_sparse(
            vname, vec, 50, where=where, idf_where=tenant_where(tenant)
        )
        for h in scope.guard.keep(hits, tenant, "assess"):
            if h.payload.get("doc_id") != doc_id or h.payload.get("section_key") not in sections:
                continue
            cid = str(h.payload.get("chunk_id"))
            if cid not in best or (h.score or 0.0) > best[cid][0]:
                best[cid] = (h.score or 0.0, h)
    per_section: dict[str, list[tuple[float, StoredPoint, list[str]]]] = {}
    for score, point in sorted(best.values(), key=lambda sp: -sp[0]):
        anchors = _anchors(str(point.payload.get("text") or ""), terms)
        if spec.require_anchor and not anchors:
            continue
        bucket = per_section.setdefault(str(point.payload.get("section_key")), [])
        if len(bucket) < scope.policy.safety_hits_per_section:
            bucket.append((score, point, anchors))
    evidence: list[Evidence] = []
    matched: list[str] = []
    for section in sections:
        for score, point, anchors in per_section.get(section, []):
            evidence.append(Evidence.from_payload(point.payload, score))
            matched.extend(a for a in anchors if a not in matched)
    if not evidence:
        return base
    return base.model_copy(update={"status": FOUND, "evidence": evidence, "matched_terms": matched})


def _direct_facet(scope: ReadScope, doc_id: str, name: str, spec: FacetSpec) -> FacetFinding:
    sections = list(spec.sections)
    points = section_points(scope, doc_id, sections, route="assess")
    evidence = book_order([Evidence.from_payload(p.payload, 1.0) for p in points], scope.profile)
    return FacetFinding(
        facet=name,
        status=FOUND if evidence else INSUFFICIENT,
        sections_searched=sections,
        evidence=evidence,
    )


def assess(scope: ReadScope, candidates: Sequence[str], context: FacetContext) -> Assessment:
    """Facet evidence for each candidate (up to ``patient_candidate_limit``).

    Every point read is tenant-checked by the scope's guard (drops are counted).

    Raises:
        ConfigError: a facet the collection's profile does not define.
    """
    collection, tenant, policy = scope.collection, scope.tenant, scope.policy
    facets = collection.profile.facets
    unknown = [f for f in context.facets() if f not in facets]
    if unknown:
        raise ConfigError(
            f"unknown facet(s) {unknown}; profile {collection.profile.name!r} defines "
            f"{sorted(facets)}"
        )
    chosen = list(dict.fromkeys(candidates))
    limit = max(policy.patient_candidate_limit, 0)
    out: list[CandidateAssessment] = []
    for doc_id in chosen[:limit]:
        findings: list[FacetFinding] = []
        for name in context.facets():
            spec = facets[name]
            if spec.direct:
                finding = _direct_facet(scope, doc_id, name, spec)
            else:
                finding = _lexical_facet(scope, doc_id, name, spec, context.terms(name))
            findings.append(finding)
        _cap_sections(findings, policy.safety_sections_per_candidate)
        pooled = [e for f in findings for e in f.evidence]
        decision, reason = decide(pooled)
        out.append(
            CandidateAssessment(doc_id=doc_id, decision=decision, reason=reason, facets=findings)
        )
    return Assessment(
        collection=collection.name,
        tenant=tenant,
        candidates=out,
        skipped_candidates=chosen[limit:],
    )


def _cap_sections(findings: list[FacetFinding], limit: int) -> None:
    """Keep lexical evidence from at most ``limit`` sections per candidate (not direct facets)."""
    seen: list[str] = []
    for finding in findings:
        if finding.status != FOUND or not finding.terms:
            continue
        kept = []
        for item in finding.evidence:
            if item.section_key not in seen and len(seen) >= limit:
                continue
            if item.section_key not in seen:
                seen.append(item.section_key)
            kept.append(item)
        finding.evidence = kept
        if not kept:
            finding.status = INSUFFICIENT
            finding.matched_terms = []
