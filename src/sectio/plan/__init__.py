"""The docs retrieval planner: intent router -> policy resolver -> plan executor.

Deterministic end to end (no LLM). For a Markdown (``docs`` profile) collection:

1. :class:`~sectio.plan.router.IntentRouter` reads the question into a route:
   intent, subintent and anchors found in the text and in the collection's D1
   (documents) and D3 (entities) catalogs;
2. :class:`~sectio.plan.resolver.PolicyResolver` turns the route into exactly one
   :class:`~sectio.plan.models.RetrievalPlan` (profile, layers, limit, filters);
3. :class:`~sectio.plan.executor.PlanExecutor` runs it: exact-path seeds,
   substring fallback, hybrid retrieval with hard filters and soft boosts,
   ordered de-duplicating merge.

Entry points for other parts of sectio:

* :class:`DocsPlanRoute`: the pipeline route of every collection whose profile
  says ``engine = "docs_planner"`` (``sectio.registry``): ``Sectio.ask`` on
  such a collection runs it, and the pipeline decides on its rows. The result
  has ``route = "docs_plan"``, and in ``details`` the route, the plan and which
  rows each step produced (each evidence item also carries ``layer`` and
  ``plan_step``).
* :func:`plan_question`: the route and the plan of a question without a
  collection (text anchors only); ``Sectio.plan`` does it with the
  collection's catalogs (``sectio plan``).

Example:
    >>> from sectio.plan import plan_question
    >>> route, plan = plan_question("Which page documents GET /api/v1/session?")
    >>> route.subintent.value, plan.profile.value, plan.limit
    ('FIND_FILES', 'file_lookup', 12)
"""

from __future__ import annotations

from sectio.plan.models import (
    Anchors,
    DocsIntent,
    Intent,
    Layer,
    PlanProfile,
    RetrievalPlan,
    Route,
    Signal,
    Subintent,
)
from sectio.plan.planner import DocsPlanner, DocsPlanRoute
from sectio.plan.resolver import DocsLayout, PolicyResolver, anchor_signal_types
from sectio.plan.router import IntentRouter


def plan_question(question: str) -> tuple[DocsIntent, RetrievalPlan]:
    """The route and plan of ``question`` from its own text (no collection, default layout)."""
    return DocsPlanner().plan(None, question)


__all__ = [
    "Anchors",
    "DocsIntent",
    "DocsLayout",
    "DocsPlanRoute",
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
    "plan_question",
]
