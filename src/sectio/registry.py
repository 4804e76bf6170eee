"""Which routes and answerability rules answer a collection: chosen here, and only here,
from the profile's ``engine`` (and the domain packs its profile turns on).

============================  ===============================================
``engine = "router"``         the section router: lookup, section, overview,
                              free-form, several documents' section, fallback
                              (:func:`sectio.retrieve.routes.section_routes`)
``engine = "docs_planner"``   lookup, then the docs planner
                              (:class:`sectio.plan.DocsPlanRoute`)
============================  ===============================================

A new engine is one entry here; a new route of the section router is one module
and one line in :func:`~sectio.retrieve.routes.section_routes`; a new
answerability rule is one module and one line in its engine's chain
(:data:`RULES`, :mod:`sectio.retrieve.answerability.rules`); a new domain is a
pack (:mod:`sectio.domains`) and one line in :func:`domains_for`.

Example:
    >>> from sectio.contract.profile import load_profile
    >>> [r.name for r in routes_for(load_profile("docs"))]
    ['lookup', 'docs_plan']
    >>> [p.name for p in domains_for(load_profile("en_drug_label"))]
    ['drug_labels']
"""

from __future__ import annotations

from collections.abc import Callable

from sectio.contract.profile import CorpusProfile
from sectio.domains.drug_labels import DrugLabels
from sectio.plan import DocsPlanRoute
from sectio.retrieve.answerability import Rule, docs_rules, section_rules
from sectio.retrieve.domain import DomainPack
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


#: Answerability chains per profile engine (fresh instances, in the order they run).
RULES: dict[str, Callable[[], tuple[Rule, ...]]] = {
    "router": section_rules,
    "docs_planner": docs_rules,
}


def rules_for(profile: CorpusProfile) -> tuple[Rule, ...]:
    """The answerability chain of a collection with ``profile`` (its domain packs' rules
    are added by the pipeline, before ``compound_name``)."""
    return RULES[profile.engine]()


def domains_for(profile: CorpusProfile) -> tuple[DomainPack, ...]:
    """The domain packs ``profile`` turns on (``[names] brand_table``: the drug labels')."""
    return (DrugLabels(),) if profile.names.brand_table else ()
