"""The docs retrieval planner: intent router -> policy resolver -> plan executor.

Deterministic end to end (no LLM). For a Markdown (``docs`` profile) collection:

1. :class:`~sectio.plan.router.IntentRouter` reads the question into a route:
   intent, subintent and anchors found in the text and in the collection's D1
   (documents) and D3 (entities) catalogs;
2. :class:`~sectio.plan.policy.PolicyResolver` turns the route into exactly one
   :class:`~sectio.plan.models.RetrievalPlan` (profile, layers, limit, filters);
3. :class:`~sectio.plan.executor.PlanExecutor` runs it: exact-path seeds,
   substring fallback, hybrid retrieval with hard filters and soft boosts,
   ordered de-duplicating merge.

Entry points for other parts of sectio:

* :func:`answer` ``(sectio, question, *, collection, tenant) -> RetrievalResult``:
  ``Sectio.ask`` delegates here when the collection's profile is a docs profile
  (``profile.name == "docs"``; :func:`is_docs_profile` is the full test). The
  result has ``route = "docs_plan"``, the decision from ``decide()``, and in
  ``details`` the route, the plan and which rows each step produced (each
  evidence item also carries ``layer`` and ``plan_step``).
* :func:`ask`: the same with the optional ``doc_id`` (an extra exact hint),
  ``section_key`` (keep rows of that section) and ``top_k`` (the row limit),
  the signature ``sectio.retrieve.ask.docs_planner()`` looks up.
* :func:`plan_question`: the route and the plan without executing (``sectio plan``).

Example:
    >>> from sectio.plan import plan_question
    >>> route, plan = plan_question(None, "Which page documents GET /api/v1/session?")
    >>> route.subintent.value, plan.profile.value, plan.limit
    ('FIND_FILES', 'file_lookup', 12)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sectio.contract.result import RetrievalResult
from sectio.plan.models import (
    Anchors,
    Intent,
    Layer,
    PlanProfile,
    RetrievalPlan,
    Route,
    Signal,
    Subintent,
)
from sectio.plan.planner import DocsPlanner, is_docs_profile, planner_for
from sectio.plan.policy import DocsLayout, PolicyResolver, anchor_signal_types
from sectio.plan.router import IntentRouter

if TYPE_CHECKING:
    from sectio.engine import Sectio


def answer(sectio: Sectio, question: str, *, collection: str, tenant: str) -> RetrievalResult:
    """Answer ``question`` over a docs collection through the planner.

    Raises:
        CollectionNotFound: no such collection.
        ConfigError: an empty question, or a profile whose ``[docs]`` table is invalid.
    """
    return planner_for(sectio).answer(sectio, question, collection=collection, tenant=tenant)


def ask(
    sectio: Sectio,
    question: str,
    *,
    collection: str,
    tenant: str,
    doc_id: str | None = None,
    section_key: str | None = None,
    top_k: int | None = None,
) -> RetrievalResult:
    """:func:`answer` with ``Sectio.ask``'s optional overrides (see the module doc)."""
    return planner_for(sectio).answer(
        sectio,
        question,
        collection=collection,
        tenant=tenant,
        doc_id=doc_id,
        section_key=section_key,
        top_k=top_k,
    )


def plan_question(
    sectio: Sectio | None, question: str, *, collection: str = "default", tenant: str = "default"
) -> tuple[Route, RetrievalPlan]:
    """The route and plan of ``question`` (catalog anchors when ``sectio`` has the collection)."""
    if sectio is None:
        return DocsPlanner().plan(None, question, tenant)
    coll = sectio.collection(collection)
    return planner_for(sectio).plan(coll, question, tenant)


__all__ = [
    "Anchors",
    "DocsLayout",
    "DocsPlanner",
    "Intent",
    "IntentRouter",
    "Layer",
    "PlanProfile",
    "PolicyResolver",
    "RetrievalPlan",
    "Route",
    "Signal",
    "Subintent",
    "anchor_signal_types",
    "answer",
    "ask",
    "is_docs_profile",
    "plan_question",
]
