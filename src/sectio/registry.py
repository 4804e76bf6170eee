"""Which routes answer a collection: chosen here, and only here, from the profile's ``engine``.

============================  ===============================================
``engine = "router"``         the section router: lookup, section, overview,
                              free-form, several documents' section, fallback
                              (:func:`sectio.retrieve.routes.section_routes`)
``engine = "docs_planner"``   lookup, then the docs planner
                              (:class:`sectio.plan.DocsPlanRoute`)
============================  ===============================================

A new engine is one entry here; a new route of the section router is one module
and one line in :func:`~sectio.retrieve.routes.section_routes`.

Example:
    >>> from sectio.contract.profile import load_profile
    >>> [r.name for r in routes_for(load_profile("docs"))]
    ['lookup', 'docs_plan']
"""

from __future__ import annotations

from collections.abc import Callable

from sectio.contract.profile import CorpusProfile
from sectio.plan import DocsPlanRoute
from sectio.retrieve.routes import Route, section_routes
from sectio.retrieve.routes.lookup import LookupRoute


def docs_routes() -> tuple[Route, ...]:
    """The docs planner's routes: ``turn_type="lookup"`` first, then the planner."""
    return (LookupRoute(), DocsPlanRoute())


#: Route factories per profile engine (fresh instances: routes may keep per-collection caches).
ENGINES: dict[str, Callable[[], tuple[Route, ...]]] = {
    "router": section_routes,
    "docs_planner": docs_routes,
}


def routes_for(profile: CorpusProfile) -> tuple[Route, ...]:
    """The routes that answer a collection with ``profile``, in the order they are tried."""
    return ENGINES[profile.engine]()
