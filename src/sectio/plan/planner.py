"""The docs planner facade: route -> plan -> execution -> :class:`RetrievalResult`.

One :class:`DocsPlanner` per :class:`~sectio.Sectio` (see :func:`planner_for`)
keeps the D1/D3 catalogs of each open collection and tenant, loaded once.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from sectio.contract.profile import CorpusProfile
from sectio.contract.result import Evidence, RetrievalResult
from sectio.errors import ConfigError
from sectio.index.collection import Collection
from sectio.plan.catalog import CatalogCache, DocsCatalog
from sectio.plan.executor import Execution, PlanExecutor
from sectio.plan.models import Anchors, RetrievalPlan, Route
from sectio.plan.policy import DocsLayout, PolicyResolver, dedupe
from sectio.plan.router import IntentRouter
from sectio.retrieve.decision import decide

if TYPE_CHECKING:
    from sectio.engine import Sectio

ROUTE_NAME = "docs_plan"
_ATTR = "_sectio_docs_planner"


def is_docs_profile(profile: CorpusProfile) -> bool:
    """Whether a collection's profile is a docs profile (answered by the planner)."""
    return profile.name == "docs" or profile.name.startswith("docs_") or bool(profile.docs)


def layout_of(profile: CorpusProfile | None) -> DocsLayout:
    """The docs layout of a profile (defaults when it has no ``[docs]`` table).

    Raises:
        ConfigError: the profile's ``[docs]`` table has an unknown key.
    """
    try:
        return DocsLayout.from_table(profile.docs if profile is not None else None)
    except ValueError as exc:
        raise ConfigError(f"profile [docs] table: {exc}") from exc


class DocsPlanner:
    """Routes, plans and executes docs questions; caches catalogs per open collection."""

    def __init__(self) -> None:
        self.catalogs = CatalogCache()

    def catalog(self, collection: Collection, tenant: str) -> DocsCatalog:
        return self.catalogs.get(collection, tenant)

    def route(self, collection: Collection | None, question: str, tenant: str) -> Route:
        """The route of ``question`` (text anchors only when there is no collection)."""
        catalog = self.catalog(collection, tenant) if collection is not None else None
        return IntentRouter(catalog).route(question)

    def plan(
        self, collection: Collection | None, question: str, tenant: str
    ) -> tuple[Route, RetrievalPlan]:
        """Route and plan, with the collection's docs layout."""
        route = self.route(collection, question, tenant)
        layout = layout_of(collection.profile if collection is not None else None)
        return route, PolicyResolver(layout).resolve(route)

    def answer(
        self,
        sectio: Sectio,
        question: str,
        *,
        collection: str,
        tenant: str,
        doc_id: str | None = None,
        section_key: str | None = None,
        top_k: int | None = None,
    ) -> RetrievalResult:
        """Plan and execute ``question``; evidence in merge order with a decision."""
        if not question or not question.strip():
            raise ConfigError("the question is empty")
        t0 = time.perf_counter()
        coll = sectio.collection(collection)
        catalog = self.catalog(coll, tenant)
        route = IntentRouter(catalog).route(question)
        if doc_id:
            route = route.model_copy(
                update={
                    "anchors": Anchors(
                        **{
                            **route.anchors.model_dump(),
                            "target_doc_hints": tuple(
                                dedupe([doc_id, *route.anchors.target_doc_hints])
                            ),
                        }
                    )
                }
            )
        plan = PolicyResolver(layout_of(coll.profile)).resolve(route)
        if top_k:
            plan = plan.model_copy(update={"limit": max(1, min(int(top_k), 50))})
        t1 = time.perf_counter()
        execution = PlanExecutor(coll, sectio.embedder, catalog, tenant).execute(plan, question)
        if section_key:
            execution.rows = [
                r
                for r in execution.rows
                if r.payload.get("section_key") == section_key
                or r.payload.get("source_section_key") == section_key
            ]
        t2 = time.perf_counter()
        return build_result(
            question,
            collection,
            tenant,
            route,
            plan,
            execution,
            timings={"plan": (t1 - t0) * 1000, "execute": (t2 - t1) * 1000},
        )


def build_result(
    question: str,
    collection: str,
    tenant: str,
    route: Route,
    plan: RetrievalPlan,
    execution: Execution,
    timings: dict[str, float] | None = None,
) -> RetrievalResult:
    """The retrieval result of an executed plan (decision by :func:`decide`)."""
    evidence: list[Evidence] = []
    for rank, row in enumerate(execution.rows, start=1):
        base = Evidence.from_payload(row.payload, row.score, rank=rank)
        data: dict[str, Any] = base.model_dump()
        data["layer"] = row.payload.get("layer")
        data["plan_step"] = row.step
        if row.hint:
            data["plan_hint"] = row.hint
        evidence.append(Evidence.model_validate(data))
    decision, reason = decide(evidence)
    seeds = [r for r in execution.rows if r.step != "hybrid"]
    return RetrievalResult(
        query=question,
        collection=collection,
        tenant=tenant,
        decision=decision,
        reason=reason,
        route=ROUTE_NAME,
        resolved_doc_id=str(seeds[0].payload.get("doc_id")) if seeds else None,
        evidence=evidence,
        omitted_evidence_ids=execution.omitted,
        details={
            "intent": route.intent.value,
            "query_intent": f"{route.intent.value}/{route.subintent.value}",
            "route": route.model_dump(mode="json"),
            "plan": plan.model_dump(mode="json"),
            "steps": execution.steps,
            "documents": list(dict.fromkeys(str(e.doc_id) for e in evidence)),
        },
        timings_ms={k: round(v, 3) for k, v in (timings or {}).items()},
    )


def planner_for(sectio: Sectio) -> DocsPlanner:
    """The planner kept on a :class:`~sectio.Sectio` (created on first use)."""
    planner = getattr(sectio, _ATTR, None)
    if not isinstance(planner, DocsPlanner):
        planner = DocsPlanner()
        setattr(sectio, _ATTR, planner)
    return planner


__all__ = [
    "ROUTE_NAME",
    "DocsPlanner",
    "build_result",
    "is_docs_profile",
    "layout_of",
    "planner_for",
]
