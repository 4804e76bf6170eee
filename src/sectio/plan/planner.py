"""The docs planner: route -> plan -> execution -> an :class:`Outcome` of the pipeline.

:class:`DocsPlanRoute` is the route a ``docs_planner`` profile's collection is
answered by (``sectio.registry``); it holds one :class:`DocsPlanner`, which
keeps the D1/D3 catalogs of each tenant of its collection, loaded once. The
pipeline then decides on the rows like on any other route's evidence.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from sectio.contract.diagnostics import Diagnostics, RowLimit, SectionFacts, SectionPick
from sectio.contract.layers import Layer
from sectio.contract.profile import CorpusProfile
from sectio.contract.request import AskRequest
from sectio.contract.result import Evidence
from sectio.errors import ConfigError
from sectio.index.filters import Eq, tenant_where
from sectio.plan.catalog import CatalogCache, DocsCatalog
from sectio.plan.executor import MAX_ROWS_PER_DOC, SECTION, Execution, PlanExecutor
from sectio.plan.models import Anchors, DocsIntent, RetrievalPlan
from sectio.plan.resolver import DocsLayout, PolicyResolver, dedupe
from sectio.plan.router import IntentRouter
from sectio.plan.sections import DocsVocabulary, VocabularyCache
from sectio.retrieve.definitions import definition_first
from sectio.retrieve.learned import LearnedMatch
from sectio.retrieve.routes.base import Outcome, Turn
from sectio.retrieve.scope import ReadScope
from sectio.retrieve.text import find_phrase, tokens

ROUTE_NAME = "docs_plan"


def layout_of(profile: CorpusProfile | None) -> DocsLayout:
    """The docs layout of a profile (defaults when it has no ``[docs]`` table).

    Raises:
        ConfigError: the profile's ``[docs]`` table has an unknown key.
    """
    try:
        return DocsLayout.from_table(profile.docs if profile is not None else None)
    except ValueError as exc:
        raise ConfigError(f"profile [docs] table: {exc}") from exc


def fit_to_pages(
    route: DocsIntent, plan: RetrievalPlan, catalog: DocsCatalog | None, layout: DocsLayout
) -> tuple[DocsIntent, RetrievalPlan]:
    """``plan`` without the layout's hard ``path_prefixes`` that hold none of the
    catalog's pages (a tree ingested from inside its ``docs/`` folder has
    ``reference/api.md``, not ``docs/api/...``): such a filter would drop every row.
    A prefix the question itself gave (a folder it names) is kept. The route's
    notes say which prefixes were not applied."""
    prefixes = [str(p) for p in plan.filters.get("path_prefixes") or ()]
    if not prefixes or catalog is None or not catalog.docs:
        return route, plan
    ours = {p for name, value in layout if name.endswith("_prefixes") for p in value}
    paths = [d.path for d in catalog.docs.values()]
    kept = [p for p in prefixes if p not in ours or any(path.startswith(p) for path in paths)]
    if kept == prefixes:
        return route, plan
    filters = dict(plan.filters)
    if kept:
        filters["path_prefixes"] = kept
    else:
        filters.pop("path_prefixes")
    dropped = ", ".join(p for p in prefixes if p not in kept)
    note = f"path prefixes {dropped} hold no page of this collection: not applied"
    route = route.model_copy(update={"notes": (*route.notes, note)})
    return route, plan.model_copy(update={"filters": filters})


def resolved(
    route: DocsIntent, catalog: DocsCatalog | None, profile: CorpusProfile | None
) -> tuple[DocsIntent, RetrievalPlan]:
    """``route``'s one plan under ``profile``'s layout, fitted to the catalog's pages
    (:func:`fit_to_pages`; the route's notes say what was not applied)."""
    layout = layout_of(profile)
    return fit_to_pages(route, PolicyResolver(layout).resolve(route), catalog, layout)


class DocsPlanner:
    """Routes, plans and executes docs questions; caches catalogs (and the headings the
    pages teach, :mod:`sectio.plan.sections`) per open collection."""

    def __init__(self) -> None:
        self.catalogs = CatalogCache()
        self.vocabularies = VocabularyCache()

    def catalog(self, scope: ReadScope) -> DocsCatalog:
        """The scope's tenant's D1/D3 catalog (read once per open collection)."""
        return self.catalogs.get(scope)

    def plan(self, scope: ReadScope | None, question: str) -> tuple[DocsIntent, RetrievalPlan]:
        """The route and plan of ``question`` (text anchors only when there is no scope)."""
        catalog = self.catalog(scope) if scope is not None else None
        route = IntentRouter(catalog).route(question)
        return resolved(route, catalog, scope.profile if scope is not None else None)

    def run(self, scope: ReadScope, request: AskRequest) -> Outcome:
        """Plan and execute ``request``; rows in merge order.

        ``doc_id`` is one more exact hint; ``section_key`` reads that section whole
        (:func:`caller_section`: its page) and keeps only its rows; ``top_k`` is the
        row limit (clamped to [1, 50]).
        """
        t0 = time.perf_counter()
        catalog = self.catalog(scope)
        route = IntentRouter(catalog).route(request.question)
        found = self.named_section(scope, request, route.anchors.target_doc_hints)
        if found is None and route.anchors.target_doc_hints and not request.doc_id:
            wider = self.named_section(scope, request)  # a heading of any page
            if wider is not None and names_alias(wider.phrase, page_names(catalog, route)):
                found = wider
        named = [request.doc_id] if request.doc_id else []
        if found is not None and found.doc_id is not None:
            named.append(found.doc_id)  # a section named by its heading names its page
        if named:
            hints = tuple(dedupe([*named, *route.anchors.target_doc_hints]))
            anchors = Anchors(**{**route.anchors.model_dump(), "target_doc_hints": hints})
            route = route.model_copy(update={"anchors": anchors})
        route, plan = resolved(route, catalog, scope.profile)
        if request.top_k:
            plan = plan.model_copy(update={"limit": max(1, min(int(request.top_k), 50))})
        t1 = time.perf_counter()
        section = (found.doc_id, found.key) if found is not None and found.doc_id else None
        also = found.also if found is not None and section is not None else None
        second = (section[0], also.key) if section is not None and also is not None else None
        if request.section_key:
            section = caller_section(scope, request, route.anchors.target_doc_hints)
        titled = (
            self.titled_sections(scope, request, route.anchors.target_doc_hints)
            if section is None
            else frozenset()
        )
        execution = PlanExecutor(scope, catalog).execute(
            plan, request.question, section, second, titled=titled
        )
        if request.section_key:
            execution.rows = [
                r
                for r in execution.rows
                if request.section_key
                in (r.payload.get("section_key"), r.payload.get("source_section_key"))
            ]
        t2 = time.perf_counter()
        outcome = build_outcome(
            route, plan, execution, timings={"plan": (t1 - t0) * 1000, "execute": (t2 - t1) * 1000}
        )
        if not any(r.step == SECTION for r in execution.rows):
            return outcome
        if found is not None:
            outcome.section_key = found.key
            outcome.details.section_resolution = SectionFacts(
                section_key=found.key, how="phrase", phrase=found.phrase, via=found.via
            )
            if second is not None and also is not None:
                outcome.details.section_resolution.also = SectionPick(
                    section_key=also.key, phrase=also.phrase
                )
                outcome.details.sections = [found.key, also.key]
        elif section is not None:  # the caller's section, read whole
            outcome.section_key = section[1]
            outcome.details.section_resolution = SectionFacts(section_key=section[1], how="flag")
        return outcome

    def named_section(
        self, scope: ReadScope, request: AskRequest, pages: Sequence[str] = ()
    ) -> LearnedMatch | None:
        """The section the question names by a heading of the tenant's pages (None: none,
        a caller's ``section_key``, or ``[learning] enabled = false``). Only the caller's
        page, else the ``pages`` the question names (when it names any), are candidates."""
        read = self._headings(scope, request, pages)
        return None if read is None else read[0].match(request.question, read[1])

    def titled_sections(
        self, scope: ReadScope, request: AskRequest, pages: Sequence[str] = ()
    ) -> frozenset[tuple[str, str]]:
        """The sections whose own title the question writes though it names none of them
        (:meth:`~sectio.plan.sections.DocsVocabulary.titled`; of the caller's page, else of
        the ``pages`` the question names when it names any): the executor puts their
        rows first when retrieval finds them (:func:`~sectio.plan.executor.titled_first`)."""
        read = self._headings(scope, request, pages)
        return frozenset() if read is None else read[0].titled(request.question, read[1])

    def _headings(
        self, scope: ReadScope, request: AskRequest, pages: Sequence[str]
    ) -> tuple[DocsVocabulary, tuple[str, ...]] | None:
        """The tenant's learned headings and the pages whose headings are candidates (the
        caller's page, else ``pages``); None with a caller's ``section_key`` or learning off."""
        vocab = None if request.section_key else self.vocabularies.get(scope)
        if vocab is None:
            return None
        return vocab, ((request.doc_id,) if request.doc_id else tuple(pages))


def page_names(catalog: DocsCatalog, route: DocsIntent) -> list[str]:
    """The names the question gave the pages it names: the aliases it matched and the
    titles of those pages ("WebSockets" of ``websockets.md``)."""
    pages = catalog.by_path
    hints = route.anchors.target_doc_hints
    return [*route.anchors.matched_aliases, *(pages[h].title for h in hints if h in pages)]


def names_alias(heading: str, aliases: Sequence[str]) -> bool:
    """Whether ``heading`` writes one of the page names the question matched (``aliases``,
    as the router lists them) and more words: "Using TestClient" holds "testclient",
    the name of a page the question named. A heading of another page that writes the
    question's page name and more of the question ("How do I use the TestClient?": the
    tutorial's "Using TestClient") says more of it than the named page (the API
    reference's ``testclient.md``); a heading that is only the name ("Server-Side Apply"
    of the sync options page, for "Summarize the Server-Side Apply documentation", whose
    page it names) or one without it ("Configure SSO" for "How do I configure SSO with
    Okta?") does not.

    Example:
        >>> names_alias("Using `TestClient`", ["testclient"])
        True
        >>> names_alias("Server-Side Apply", ["server-side apply"])
        False
        >>> names_alias("Configure SSO", ["okta"])
        False
    """
    words = tokens(heading)
    names = [name for name in map(tokens, aliases) if name]
    return any(len(words) > len(name) and find_phrase(words, name) for name in names)


#: How many of a section key's chunks are read to find the pages that hold it.
SECTION_PAGES_PROBE = 64


def caller_section(
    scope: ReadScope, request: AskRequest, hints: Sequence[str] = ()
) -> tuple[str, str] | None:
    """The page and section a caller's ``section_key`` names, to read whole: with its
    ``doc_id``, that page; else the one page of the tenant holding that section key, or,
    where several do, the first of them the question names (``hints``); None otherwise
    (the rows are then only filtered to the section)."""
    key = str(request.section_key)
    if request.doc_id:
        return str(request.doc_id), key
    where = tenant_where(
        scope.tenant, Eq("section_key", key), Eq("layer", Layer.D0_DOC_CHUNKS.value)
    )
    points, _ = scope.index.scroll(where, limit=SECTION_PAGES_PROBE)
    points = scope.guard.keep(points, scope.tenant, "docs_plan")
    pages = list(dict.fromkeys(str(p.payload.get("doc_id")) for p in points))
    if len(pages) == 1:
        return pages[0], key
    named = [h for h in hints if h in pages]
    return (named[0], key) if named else None


def build_outcome(
    route: DocsIntent,
    plan: RetrievalPlan,
    execution: Execution,
    timings: dict[str, float] | None = None,
) -> Outcome:
    """The pipeline outcome of an executed plan (each row's ``layer`` and ``plan_step`` kept)."""
    evidence: list[Evidence] = []
    for rank, row in enumerate(execution.rows, start=1):
        base = Evidence.from_payload(row.payload, row.score, rank=rank)
        data: dict[str, Any] = base.model_dump()
        data["layer"] = row.payload.get("layer")
        data["plan_step"] = row.step
        if row.hint:
            data["plan_hint"] = row.hint
        evidence.append(Evidence.model_validate(data))
    seeds = [r for r in execution.rows if r.step != "hybrid"]
    return Outcome(
        ROUTE_NAME,
        evidence,
        Diagnostics(
            intent=route.intent.value,
            query_intent=f"{route.intent.value}/{route.subintent.value}",
            route=route.model_dump(mode="json"),
            plan=plan.model_dump(mode="json"),
            steps=execution.steps,
            documents=list(dict.fromkeys(str(e.doc_id) for e in evidence)),
            # why omitted_evidence_ids were left out: the plan's row limit, or the
            # per-document cap of the hybrid step (never a token budget: no packing here)
            row_limit=RowLimit(
                limit=plan.limit, per_document=MAX_ROWS_PER_DOC, omitted=len(execution.omitted)
            ),
        ),
        doc_id=str(seeds[0].payload.get("doc_id")) if seeds else None,
        omitted=execution.omitted,
        timings={k: round(v, 3) for k, v in (timings or {}).items()},
    )


class DocsPlanRoute:
    """The docs planner as the pipeline's route (every question of a docs collection).

    A ``turn_type`` other than ``lookup`` (answered by the lookup route before
    this one) cannot be honoured: the planner routes by the question's intent.
    """

    name = ROUTE_NAME
    needs_resolution = False

    def __init__(self) -> None:
        self.planner = DocsPlanner()

    def run(self, scope: ReadScope, turn: Turn) -> Outcome:
        """The plan's rows; a definition question's row that defines its term first
        (:func:`~sectio.retrieve.definitions.definition_first`: "what is the live state?"
        and a glossary's "* **Live state** The live state ...").

        Raises: ConfigError: a ``turn_type`` (the planner routes by intent)."""
        if turn.request.turn_type is not None:
            raise ConfigError(
                f"turn_type {turn.request.turn_type!r} is not supported on collection "
                f"{scope.collection.name!r}: its profile is answered by the docs planner, "
                "which routes by the question's intent"
            )
        outcome = self.planner.run(scope, turn.request)
        outcome.evidence = definition_first(turn.question, outcome.evidence)
        return outcome


__all__ = [
    "ROUTE_NAME",
    "DocsPlanRoute",
    "DocsPlanner",
    "build_outcome",
    "fit_to_pages",
    "layout_of",
]
