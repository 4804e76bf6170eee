"""Bounded cross-section pooling: another section of the same document that matches strongly.

It exists for one measured case (seed): a caution question about a condition
whose real answer was filed only under contraindications. It is deliberately
narrow, and every bound comes from the profile's ``[pooling]``:

* it runs only when the routed section is in ``enabled_sections``;
* only the same document, only prose, never the routed section itself;
* ``excluded_sections`` are excluded outright (the known attractor scored 6
  matched terms against the true positive's 7: no threshold separates them);
* candidates come from real BM25 (the collection's encoder and sparse
  vectors, IDF over the tenant's chunks); a chunk pools only when it contains
  at least ``min_matched_terms`` distinct query terms (the seed's criterion: a
  count of terms, so it means the same whatever the corpus size; a raw BM25
  score grows with the collection's IDF);
* at most ``max_sections`` sections, the strongest first (most matched terms,
  then BM25).

Pooled evidence is the matching chunks of each pooled section, in part order,
appended after the main section and marked ``pooled=True``; its score is the
BM25 score.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sectio.contract.diagnostics import PooledSection, Pooling
from sectio.contract.profile import PoolingSettings
from sectio.contract.result import Evidence
from sectio.index.filters import AnyOf, Eq, tenant_where
from sectio.index.port import SparseVec, StoredPoint
from sectio.retrieve.scan import prose_where
from sectio.retrieve.scope import ReadScope


@dataclass
class Pooled:
    """Pooled evidence and what the pooling step decided."""

    evidence: list[Evidence] = field(default_factory=list)
    details: Pooling = field(default_factory=lambda: Pooling(enabled=False))


def pool_sections(
    scope: ReadScope,
    doc_id: str,
    section_key: str,
    question: str,
    settings: PoolingSettings | None = None,
    *,
    limit: int = 50,
) -> Pooled:
    """Evidence from other sections of ``doc_id`` that match ``question`` above the floor."""
    collection = scope.collection
    settings = settings or collection.profile.pooling
    if section_key not in settings.enabled_sections or settings.max_sections <= 0:
        return Pooled(details=Pooling(enabled=False))
    vectors = collection.lexical.encode_query(question)
    if not vectors:
        return Pooled(details=Pooling(enabled=True, sections=[], why="no_query_terms"))
    best = _best_hits(scope, doc_id, section_key, settings, vectors, limit)
    asked = collection.lexical.terms(question)
    matched = {
        key: len(asked & collection.lexical.terms(str(p.payload.get("text") or "")))
        for key, p in best.items()
    }
    ranked = _ranked_sections(best, matched, settings)
    return Pooled(
        _pooled_evidence(ranked),
        Pooling(
            enabled=True,
            min_matched_terms=settings.min_matched_terms,
            query_terms=len(asked),
            sections=[
                PooledSection(section_key=s.key, matched_terms=s.terms, score=round(s.score, 4))
                for s in ranked
            ],
        ),
    )


@dataclass
class _Section:
    """One candidate section: its matching chunks and its strength (terms, then BM25)."""

    key: str
    points: list[StoredPoint]
    terms: int
    score: float


def _best_hits(
    scope: ReadScope,
    doc_id: str,
    section_key: str,
    settings: PoolingSettings,
    vectors: dict[str, SparseVec],
    limit: int,
) -> dict[str, StoredPoint]:
    """Each chunk's best BM25 hit over the query's sparse vectors, by ``chunk_id``: the
    same document, prose, neither the routed section nor an excluded one."""
    collection, tenant = scope.collection, scope.tenant
    where = prose_where(tenant, Eq("doc_id", doc_id)).and_not(
        AnyOf("section_key", (section_key, *settings.excluded_sections))
    )
    best: dict[str, StoredPoint] = {}
    for name, vec in vectors.items():
        hits = collection.index.search_sparse(
            name, vec, limit, where=where, idf_where=tenant_where(tenant)
        )
        for hit in scope.guard.keep(hits, tenant, "pooling"):
            payload = hit.payload
            if (
                payload.get("doc_id") != doc_id
                or payload.get("section_key") == section_key
                or payload.get("section_key") in settings.excluded_sections
            ):
                continue  # the engine filtered already; this is the Python re-check
            key = str(payload.get("chunk_id"))
            if key not in best or (hit.score or 0.0) > (best[key].score or 0.0):
                best[key] = hit
    return best


def _ranked_sections(
    best: dict[str, StoredPoint], matched: dict[str, int], settings: PoolingSettings
) -> list[_Section]:
    """The sections whose chunks match at least ``min_matched_terms`` query terms, the
    strongest first (most matched terms, then BM25, then the key), at most
    ``max_sections``."""
    by_section: dict[str, list[StoredPoint]] = {}
    for key, p in best.items():
        if matched[key] >= settings.min_matched_terms:
            by_section.setdefault(str(p.payload.get("section_key")), []).append(p)
    sections = [
        _Section(
            key,
            points,
            max(matched[str(p.payload.get("chunk_id"))] for p in points),
            max(p.score or 0.0 for p in points),
        )
        for key, points in by_section.items()
    ]
    sections.sort(key=lambda s: (-s.terms, -s.score, s.key))
    return sections[: settings.max_sections]


def _pooled_evidence(ranked: list[_Section]) -> list[Evidence]:
    """Each pooled section's chunks in part order, section after section, marked pooled."""
    evidence: list[Evidence] = []
    for section in ranked:
        section.points.sort(key=lambda p: (int(p.payload.get("part_index") or 0), p.id))
        for p in section.points:
            item = Evidence.from_payload(p.payload, p.score or 0.0)
            item.pooled = True
            evidence.append(item)
    return evidence
