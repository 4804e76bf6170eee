"""The routes of the section router, one module each, and their order.

:func:`section_routes` is where a route is registered: the pipeline
(:class:`sectio.retrieve.pipeline.Pipeline`) tries them in this order and the
first with an outcome answers.

=====================  ========================================================
``lookup``             ``turn_type="lookup"``: phrase -> documents (nothing resolved).
``section``            document and section known: the whole section, in order.
``overview``           a bare document name (or ``turn_type="overview"``).
``section`` (intent)   a document (or several), no section phrase: the section its examples say.
``free_form``          a document, no section: its chunks by relevance.
``section`` (several)  several documents named and a section: each one's section.
``fallback_search``    no document: hybrid search over the collection (always answers).
=====================  ========================================================

Adding a route: one module with a class that has ``name``, ``needs_resolution``
and ``run(scope, turn)`` (:class:`~sectio.retrieve.routes.base.Route`), and one
line below.
"""

from __future__ import annotations

from sectio.retrieve.routes.base import Outcome, Resolution, Route, Turn
from sectio.retrieve.routes.fallback import FallbackRoute
from sectio.retrieve.routes.free_form import FreeFormRoute
from sectio.retrieve.routes.intent import IntentRoute
from sectio.retrieve.routes.lookup import LookupRoute
from sectio.retrieve.routes.overview import OverviewRoute
from sectio.retrieve.routes.section import CandidateSectionsRoute, SectionRoute


def section_routes() -> tuple[Route, ...]:
    """The section router's routes, in the order they are tried (fresh instances)."""
    return (
        LookupRoute(),
        SectionRoute(),
        OverviewRoute(),
        IntentRoute(),
        FreeFormRoute(),
        CandidateSectionsRoute(),
        FallbackRoute(),
    )


__all__ = ["Outcome", "Resolution", "Route", "Turn", "section_routes"]
