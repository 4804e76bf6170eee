"""Routed retrieval: resolve the document and the section, pick the route, decide.

One :class:`Router` per open collection holds what is worth keeping between
questions: the profile's compiled section phrases, the policy numbers and,
per tenant, the catalog of document names (read once).

Routes, in the order they are tried:

=================  ==========================================================
``section``        document and section known: the whole section by scroll,
                   in part order, score 1.0; plus bounded pooling. Several
                   documents named and a section known: each one's section.
``overview``       a bare document name (or ``turn_type="overview"``): the
                   intro sections, book order, a name marker per section.
``free_form``      a document but no section: its chunks by hybrid relevance
                   (or a reranker, fail-open), top ``rerank_top_k``, packed.
``fallback_search``  no document: hybrid search over the collection (inside
                   the named section if any), top ``rerank_top_k``, packed.
``lookup``         a phrase -> the documents that mention it (``lookup``).
=================  ==========================================================

A section the question named but the document lacks falls back to
``free_form`` (noted in details); a section given by flag does not (its
absence is the answer: ``ABSTAIN``). Every route is tenant-scoped, and every
result's decision comes from :func:`sectio.retrieve.decision.decide`.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sectio.contract.result import Evidence, RetrievalResult
from sectio.embed.port import Embedder
from sectio.errors import ConfigError
from sectio.index.collection import Collection
from sectio.retrieve.decision import decide
from sectio.retrieve.facets import Assessment, FacetContext, assess
from sectio.retrieve.free_form import rank_in_document, search_collection
from sectio.retrieve.hydrate import hydrate_parents
from sectio.retrieve.lookup import reverse_lookup
from sectio.retrieve.overview import is_bare, overview_evidence
from sectio.retrieve.packing import pack
from sectio.retrieve.policy import EvidencePolicy
from sectio.retrieve.pooling import pool_sections
from sectio.retrieve.reads import TenantGuard
from sectio.retrieve.rerank import Reranker
from sectio.retrieve.resolve_doc import DocCatalog, DocResolution
from sectio.retrieve.resolve_section import SectionMatch, SectionResolver
from sectio.retrieve.section_route import section_evidence

#: ``turn_type`` values ``ask`` accepts (``drug_overview`` is the seed's name for ``overview``).
TURN_TYPES = ("overview", "drug_overview", "section", "free_form", "lookup")
#: Documents a multi-document section answer reads at most.
MAX_SECTION_DOCS = 3
TOP_K_MAX = 50

RerankerProvider = Callable[[], tuple[Reranker | None, str | None]]

#: The docs planner hook: a ``docs``-profile collection is answered by
#: ``sectio.plan.ask(sectio, question, *, collection, tenant, doc_id, section_key, top_k)``
#: (returning a :class:`RetrievalResult`) when that module and function exist.
PLAN_MODULE = "sectio.plan"
PLAN_ENTRY = "ask"


def docs_planner() -> Callable[..., RetrievalResult] | None:
    """The docs planner's entry point, or None when it is not installed."""
    try:
        module = importlib.import_module(PLAN_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name == PLAN_MODULE:
            return None
        raise
    entry = getattr(module, PLAN_ENTRY, None)
    return entry if callable(entry) else None


def _no_reranker() -> tuple[Reranker | None, str | None]:
    return None, None


class Router:
    """Routed retrieval over one open collection.

    ``guard`` is the second tenant check of every route (the owning
    :class:`sectio.Sectio` passes its ``tenant_guard``, so drops are counted
    on /metrics); a router built alone gets a guard of its own.

    Example:
        >>> router = Router(sectio.collection("labels"), sectio.embedder)  # doctest: +SKIP
        >>> router.ask("who should not take metformin", tenant="default").route  # doctest: +SKIP
        'section'
    """

    def __init__(
        self,
        collection: Collection,
        embedder: Embedder,
        *,
        reranker: RerankerProvider | None = None,
        policy: EvidencePolicy | None = None,
        guard: TenantGuard | None = None,
    ) -> None:
        self.collection = collection
        self.guard = guard if guard is not None else TenantGuard()
        self.embedder = embedder
        self.policy = policy or EvidencePolicy.from_profile(collection.profile)
        self.sections = SectionResolver(collection.profile)
        self._reranker = reranker or _no_reranker
        self._catalogs: dict[str, DocCatalog] = {}

    # --- caches -----------------------------------------------------------------
    def catalog(self, tenant: str) -> DocCatalog:
        """The tenant's document names (read once per collection open)."""
        if tenant not in self._catalogs:
            self._catalogs[tenant] = DocCatalog.build(
                self.collection.index,
                tenant,
                protected=self.sections.vocabulary(),
                guard=self.guard,
            )
        return self._catalogs[tenant]

    # --- ask ----------------------------------------------------------------------
    def ask(
        self,
        question: str,
        *,
        tenant: str,
        doc_id: str | None = None,
        section_key: str | None = None,
        turn_type: str | None = None,
        top_k: int | None = None,
    ) -> RetrievalResult:
        """Resolve, route, retrieve and decide (see the module doc).

        Raises:
            ConfigError: an empty question or an unknown ``turn_type``.
        """
        started = time.perf_counter()
        text = question.strip()
        if not text:
            raise ConfigError("the question is empty")
        if turn_type is not None and turn_type not in TURN_TYPES:
            raise ConfigError(f"unknown turn_type {turn_type!r} ({', '.join(TURN_TYPES)})")
        if turn_type == "lookup":
            return self.lookup(text, tenant=tenant)

        catalog = self.catalog(tenant)
        resolution = catalog.resolve(text)
        t_resolved = time.perf_counter()
        doc = doc_id or (resolution.doc_id if resolution else None)
        spans = resolution.spans if resolution else ()
        matches = [] if section_key else self.sections.resolve_all(text, exclude=spans)
        if doc:
            docs_named: tuple[str, ...] = (doc,)
        else:
            docs_named = resolution.candidates if resolution is not None else ()
        match = _first_present(matches, [catalog.sections_of(d) for d in docs_named])
        section = section_key or (match.key if match else None)
        details: dict[str, Any] = {
            "doc_resolution": _doc_details(doc_id, resolution, catalog),
            "section_resolution": _section_details(section_key, match, matches),
        }
        budget = self.policy.max_context_tokens
        keep = min(max(top_k or self.policy.rerank_top_k, 1), TOP_K_MAX)

        route, evidence, omitted = "", [], []
        resolved_section: str | None = None
        overview = turn_type in ("overview", "drug_overview")
        if turn_type == "free_form" and not section_key:
            section = None  # the caller asked for a free-form answer: phrases do not route
        if doc and section and not overview:
            evidence = section_evidence(
                self.collection.index,
                tenant,
                doc,
                section,
                guard=self.guard,
                page_size=self.policy.section_page_size,
            )
            if evidence or section_key:
                route, resolved_section = "section", section
                pooled = pool_sections(
                    self.collection, tenant, doc, section, text, guard=self.guard
                )
                details["pooling"] = pooled.details
                have = {e.chunk_id for e in evidence}
                evidence += [e for e in pooled.evidence if e.chunk_id not in have]
            else:
                details["section_fallback"] = {"section_key": section, "why": "section_absent"}
        bare = turn_type != "free_form" and section is None and is_bare(text, spans)
        if not route and doc and (overview or bare):
            route = "overview"
            intro = overview_evidence(
                self.collection.index,
                self.collection.profile,
                tenant,
                doc,
                catalog.display_name(doc),
                guard=self.guard,
                page_size=self.policy.section_page_size,
            )
            packed = pack(intro, budget, self.embedder.count_tokens)
            evidence, omitted = packed.kept, packed.omitted_ids
            details["packing"] = packed.details()
        elif not route and doc:
            route = "free_form"
            reranker, error = self._reranker()
            ranked = rank_in_document(
                self.collection,
                self.embedder,
                tenant,
                doc,
                text,
                guard=self.guard,
                reranker=reranker,
                rerank_timeout_s=self.policy.rerank_timeout_s,
                page_size=self.policy.section_page_size,
            )
            details["ranking"], details["rerank"] = _split_rerank(ranked.details, error)
            evidence, omitted = self._finish_ranked(ranked.evidence, tenant, keep, budget, details)
        elif not route and resolution is not None and resolution.ambiguous and section:
            evidence = []
            docs = list(resolution.candidates[:MAX_SECTION_DOCS])
            for candidate in docs:
                evidence += section_evidence(
                    self.collection.index,
                    tenant,
                    candidate,
                    section,
                    guard=self.guard,
                    page_size=self.policy.section_page_size,
                )
            route, resolved_section = "section", section
            details["documents"] = docs
        elif not route:
            route = "fallback_search"
            reranker, error = self._reranker()
            ranked = search_collection(
                self.collection,
                self.embedder,
                tenant,
                text,
                guard=self.guard,
                section_key=section,
                candidates=max(keep * 4, keep),
                pool=max(self.policy.candidate_limit * 10, keep * 4),
                minimum_score=self.policy.minimum_score,
                reranker=reranker,
                rerank_timeout_s=self.policy.rerank_timeout_s,
            )
            if (
                section
                and not ranked.evidence
                and "discarded_below_minimum_score" not in (ranked.details)
            ):
                details["section_filter_empty"] = section
                ranked = search_collection(
                    self.collection,
                    self.embedder,
                    tenant,
                    text,
                    guard=self.guard,
                    candidates=max(keep * 4, keep),
                    pool=max(self.policy.candidate_limit * 10, keep * 4),
                    minimum_score=self.policy.minimum_score,
                    reranker=reranker,
                    rerank_timeout_s=self.policy.rerank_timeout_s,
                )
            details["ranking"], details["rerank"] = _split_rerank(ranked.details, error)
            evidence, omitted = self._finish_ranked(ranked.evidence, tenant, keep, budget, details)

        for i, item in enumerate(evidence):
            item.rank = i + 1
        decision, reason = decide(evidence)
        finished = time.perf_counter()
        return RetrievalResult(
            query=text,
            collection=self.collection.name,
            tenant=tenant,
            decision=decision,
            reason=reason,
            route=route,
            resolved_doc_id=doc,
            resolved_section_key=resolved_section,
            evidence=evidence,
            omitted_evidence_ids=omitted,
            details=details,
            timings_ms={
                "resolve": round((t_resolved - started) * 1000, 3),
                "total": round((finished - started) * 1000, 3),
            },
        )

    def _finish_ranked(
        self,
        ranked: list[Evidence],
        tenant: str,
        keep: int,
        budget: int,
        details: dict[str, Any],
    ) -> tuple[list[Evidence], list[str]]:
        """Hydrate parents, keep the top ``keep``, pack to the budget."""
        hydrated = hydrate_parents(self.collection.index, ranked, tenant, guard=self.guard)
        if hydrated.parents or hydrated.missing:
            details["hydration"] = {"parents": hydrated.parents, "missing": hydrated.missing}
        top = hydrated.evidence[:keep]
        packed = pack(top, budget, self.embedder.count_tokens)
        details["packing"] = {**packed.details(), "top_k": keep}
        return packed.kept, packed.omitted_ids

    # --- lookup ---------------------------------------------------------------------
    def lookup(self, phrase: str, *, tenant: str) -> RetrievalResult:
        """Reverse lookup (phrase -> documents); see :mod:`sectio.retrieve.lookup`.

        Raises:
            ConfigError: an empty phrase.
        """
        started = time.perf_counter()
        text = phrase.strip()
        if not text:
            raise ConfigError("the lookup phrase is empty")
        outcome = reverse_lookup(
            self.collection, self.embedder, tenant, text, self.policy, guard=self.guard
        )
        decision, reason = decide(outcome.evidence)
        return RetrievalResult(
            query=text,
            collection=self.collection.name,
            tenant=tenant,
            decision=decision,
            reason=reason,
            route="lookup",
            resolved_section_key=outcome.details.get("section_key"),
            evidence=outcome.evidence,
            details={**outcome.details, "documents": outcome.documents},
            timings_ms={"total": round((time.perf_counter() - started) * 1000, 3)},
        )

    # --- assess ---------------------------------------------------------------------
    def assess(
        self,
        candidates: Sequence[str],
        context: Mapping[str, str | Sequence[str] | bool] | FacetContext,
        *,
        tenant: str,
    ) -> Assessment:
        """Facet evidence for documents already chosen; see :mod:`sectio.retrieve.facets`."""
        ctx = context if isinstance(context, FacetContext) else FacetContext(context)
        return assess(self.collection, tenant, candidates, ctx, self.policy, guard=self.guard)


def _doc_details(
    flag: str | None, resolution: DocResolution | None, catalog: DocCatalog
) -> dict[str, Any]:
    if flag:
        out: dict[str, Any] = {"doc_id": flag, "how": "flag", "known": flag in catalog}
        if resolution is not None:
            out["question_named"] = resolution.as_dict()
        return out
    if resolution is None:
        return {"doc_id": None, "how": "none"}
    return resolution.as_dict()


def _first_present(
    matches: list[SectionMatch], doc_sections: list[frozenset[str]]
) -> SectionMatch | None:
    """The best match whose section a named document has (else the best match at all)."""
    for m in matches:
        if any(m.key in keys for keys in doc_sections):
            return m
    return matches[0] if matches else None


def _section_details(
    flag: str | None, match: SectionMatch | None, matches: list[SectionMatch]
) -> dict[str, Any]:
    if flag:
        return {"section_key": flag, "how": "flag"}
    if match is None:
        return {"section_key": None, "how": "none"}
    out: dict[str, Any] = {
        "section_key": match.key,
        "how": "folded" if match.folded else "phrase",
        "phrase": match.phrase,
    }
    if len(matches) > 1:
        out["candidates"] = [{"section_key": m.key, "phrase": m.phrase} for m in matches]
    return out


def _split_rerank(
    ranking: dict[str, Any], error: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ranking details and the rerank outcome (``status``, ``failed``: fail-open happened)."""
    ranking = dict(ranking)
    rerank = dict(ranking.pop("rerank", {"status": "off"}))
    if error:
        rerank = {"status": "unavailable", "error": error}
    rerank["failed"] = rerank.get("status") in ("error", "timeout", "unavailable")
    return ranking, rerank
