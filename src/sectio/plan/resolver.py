"""The policy resolver: a route becomes exactly one retrieval plan. Deterministic, no LLM.

It never re-reads the question, never changes intent or subintent, ranks
nothing and collects no evidence. Three branches:

1. ``intent == GENERAL_QA`` -> ``general_qa_grounded_summary`` (always, whatever else);
2. ``subintent == FIND_FILES`` -> ``file_lookup``;
3. otherwise the docs-summary branch, whose profile is the single meaningful
   anchor signal (``anchor_signal_types(route) - {FIND_FILES}``), else
   ``docs_summary_generic`` (no signal, or two or more: API + architecture and
   API + entity are generic).

Signals come from the anchors only (``process_domain``/``process_subdomain``
never count; they only filter and add like-patterns):

* ``FIND_FILES``: the subintent is ``FIND_FILES``;
* ``API_ENDPOINT``: ``endpoint_paths``, or an API marker in
  ``target_doc_hints`` / ``file_names`` / ``matched_aliases``;
* ``ARCHITECTURE``, ``LOGIC_FLOW``: their markers in the same three lists;
* ``DOMAIN_ENTITY``: ``entity_names``, or a domain marker in the three lists.

Profiles, layers and limits:

==============================  ========================  =====
profile                         layers                    limit
==============================  ========================  =====
general_qa_grounded_summary     D1, D0                    8
file_lookup                     D1, D3                    12
docs_summary_api_endpoint       D1, D2, D0                8
docs_summary_logic_flow         D4, D1, D0                8
docs_summary_domain_entity      D3, D1, D0                8
docs_summary_architecture       D1, D5, D0                8
docs_summary_generic            D1, D0                    8
==============================  ========================  =====

Filters: see :meth:`PolicyResolver.general_filters`,
:meth:`PolicyResolver.summary_filters` and :meth:`PolicyResolver.find_files_filters`;
every branch also carries ``prefer_non_tests`` when the profile's ``[docs]``
table sets it (seed 002's executor honours it; its resolver never set it).
The path prefixes per signal are data (the ``[docs]`` table of the corpus
profile); :class:`DocsLayout` holds the defaults (``docs/api/``,
``docs/architecture/``, ``docs/logic/``, ``docs/domains/``).

Example:
    >>> from sectio.plan.models import Anchors, Intent, DocsIntent, Subintent
    >>> route = DocsIntent(question="q", intent=Intent.DOCS_SUMMARY, subintent=Subintent.EXPLAIN,
    ...               anchors=Anchors(endpoint_paths=("/api/v1/session",)))
    >>> plan = PolicyResolver().resolve(route)
    >>> plan.profile.value, [l.value for l in plan.layers], plan.filters["path_prefixes"]
    ('docs_summary_api_endpoint', ['D1', 'D2', 'D0'], ['docs/api/', 'docs/'])
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from sectio.contract.layers import Layer
from sectio.plan.models import DocsIntent, Intent, PlanProfile, RetrievalPlan, Signal, Subintent

L = Layer

PROFILE_LAYERS: dict[PlanProfile, tuple[tuple[Layer, ...], int]] = {
    PlanProfile.GENERAL_QA: ((L.D1_DOCUMENT_CATALOG, L.D0_DOC_CHUNKS), 8),
    PlanProfile.FILE_LOOKUP: ((L.D1_DOCUMENT_CATALOG, L.D3_ENTITY_CATALOG), 12),
    PlanProfile.SUMMARY_API_ENDPOINT: (
        (L.D1_DOCUMENT_CATALOG, L.D2_FACT_INDEX, L.D0_DOC_CHUNKS),
        8,
    ),
    PlanProfile.SUMMARY_LOGIC_FLOW: (
        (L.D4_WORKFLOW_INDEX, L.D1_DOCUMENT_CATALOG, L.D0_DOC_CHUNKS),
        8,
    ),
    PlanProfile.SUMMARY_DOMAIN_ENTITY: (
        (L.D3_ENTITY_CATALOG, L.D1_DOCUMENT_CATALOG, L.D0_DOC_CHUNKS),
        8,
    ),
    PlanProfile.SUMMARY_ARCHITECTURE: (
        (L.D1_DOCUMENT_CATALOG, L.D5_RELATION_GRAPH, L.D0_DOC_CHUNKS),
        8,
    ),
    PlanProfile.SUMMARY_GENERIC: ((L.D1_DOCUMENT_CATALOG, L.D0_DOC_CHUNKS), 8),
}

SIGNAL_PROFILE: dict[Signal, PlanProfile] = {
    Signal.API_ENDPOINT: PlanProfile.SUMMARY_API_ENDPOINT,
    Signal.ARCHITECTURE: PlanProfile.SUMMARY_ARCHITECTURE,
    Signal.LOGIC_FLOW: PlanProfile.SUMMARY_LOGIC_FLOW,
    Signal.DOMAIN_ENTITY: PlanProfile.SUMMARY_DOMAIN_ENTITY,
}

#: Signal order when several contribute prefixes (the order the seed lists them).
SIGNAL_ORDER = (Signal.API_ENDPOINT, Signal.ARCHITECTURE, Signal.LOGIC_FLOW, Signal.DOMAIN_ENTITY)


class DocsLayout(BaseModel):
    """Path prefixes and markers of a docs corpus (the profile's ``[docs]`` table).

    Defaults are the reference layout (``docs/api/``, ``docs/architecture/``,
    ``docs/logic/``, ``docs/domains/``). A corpus with another layout sets its
    own lists in its profile; unknown keys are refused.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    # summary branch: prefer_path_prefixes per signal
    api_prefixes: tuple[str, ...] = ("docs/api/", "docs/")
    architecture_prefixes: tuple[str, ...] = ("docs/architecture/", "docs/")
    logic_prefixes: tuple[str, ...] = ("docs/logic/", "docs/architecture/", "docs/")
    domain_prefixes: tuple[str, ...] = ("docs/domains/", "docs/", "docs/api/")
    default_prefixes: tuple[str, ...] = ("docs/",)
    # the hard path_prefixes an API signal adds (even in a generic summary)
    api_hard_prefixes: tuple[str, ...] = ("docs/api/", "docs/")
    # find-files branch: signal fallback for path_prefixes, and the default
    find_api_prefixes: tuple[str, ...] = ("docs/api/", "docs/")
    find_architecture_prefixes: tuple[str, ...] = ("docs/architecture/", "docs/")
    find_logic_prefixes: tuple[str, ...] = ("docs/logic/", "docs/")
    find_domain_prefixes: tuple[str, ...] = ("docs/domains/", "docs/")
    find_default_prefixes: tuple[str, ...] = ("docs/",)
    # find-files: added to prefer_path_prefixes when a process domain/subdomain is known
    find_process_prefixes: tuple[str, ...] = ("docs/domains/", "docs/logic/")
    # find-files: file names under these roots give their directory as a path prefix
    file_roots: tuple[str, ...] = ("docs/",)
    # general branch
    general_prefer_prefixes: tuple[str, ...] = ("docs/architecture/", "docs/")
    general_prefer_like: tuple[str, ...] = ("%readme.md%", "%overview%")
    # signal markers (substrings, lower case)
    api_markers: tuple[str, ...] = ("/api/", "api", "endpoint")
    architecture_markers: tuple[str, ...] = ("/architecture/", "architecture", "arch")
    logic_markers: tuple[str, ...] = ("/logic/", "logic", "workflow", "flow", "process")
    domain_markers: tuple[str, ...] = ("/domains/", "domain", "entity", "component")
    # optional execution filters a corpus may set (none by default)
    exclude_path_prefixes: tuple[str, ...] = ()
    exclude_like_patterns: tuple[str, ...] = ()
    # soft: every plan demotes test paths (tests/, test_x, x_test, x.spec, ...); never filters
    prefer_non_tests: bool = False
    # soft: changelog pages (release-notes.md, CHANGELOG.md) are demoted unless the question
    # asks about versions or changes; never filtered
    prefer_non_changelogs: bool = True

    @classmethod
    def from_table(cls, table: Mapping[str, Sequence[str] | bool] | None) -> DocsLayout:
        """A layout from a profile's ``[docs]`` table (missing keys keep their defaults).

        Raises:
            pydantic.ValidationError: an unknown key, a list value that is not a list of
                strings, or a flag (``prefer_non_tests``) that is not a boolean.
        """
        return cls.model_validate(
            {k: v if isinstance(v, bool) else tuple(v) for k, v in (table or {}).items()}
        )

    def signal_prefixes(self, signal: Signal) -> tuple[str, ...]:
        """Summary-branch preferred prefixes of one signal."""
        return {
            Signal.API_ENDPOINT: self.api_prefixes,
            Signal.ARCHITECTURE: self.architecture_prefixes,
            Signal.LOGIC_FLOW: self.logic_prefixes,
            Signal.DOMAIN_ENTITY: self.domain_prefixes,
        }.get(signal, ())

    def find_signal_prefixes(self, signal: Signal) -> tuple[str, ...]:
        """Find-files fallback prefixes of one signal."""
        return {
            Signal.API_ENDPOINT: self.find_api_prefixes,
            Signal.ARCHITECTURE: self.find_architecture_prefixes,
            Signal.LOGIC_FLOW: self.find_logic_prefixes,
            Signal.DOMAIN_ENTITY: self.find_domain_prefixes,
        }.get(signal, ())

    def markers(self, signal: Signal) -> tuple[str, ...]:
        return {
            Signal.API_ENDPOINT: self.api_markers,
            Signal.ARCHITECTURE: self.architecture_markers,
            Signal.LOGIC_FLOW: self.logic_markers,
            Signal.DOMAIN_ENTITY: self.domain_markers,
        }.get(signal, ())


def dedupe(values: Iterable[str]) -> list[str]:
    """Values in first-seen order, each once (empty strings dropped)."""
    out: list[str] = []
    for v in values:
        if v and v not in out:
            out.append(v)
    return out


def basename(path: str) -> str:
    """The last path component (``docs/a/b.md`` -> ``b.md``)."""
    return path.rstrip("/").rsplit("/", 1)[-1]


def like(term: str) -> str:
    """A lower-case SQL-like pattern ``%term%``."""
    return f"%{term.strip().lower()}%"


def anchor_signal_types(route: DocsIntent, layout: DocsLayout | None = None) -> set[Signal]:
    """The anchor signals of a route (see the module doc for the rules)."""
    layout = layout or DocsLayout()
    a = route.anchors
    signals: set[Signal] = set()
    if route.subintent == Subintent.FIND_FILES:
        signals.add(Signal.FIND_FILES)
    marked = [v.lower() for v in (*a.target_doc_hints, *a.file_names, *a.matched_aliases)]

    def has(signal: Signal) -> bool:
        return any(m in v for v in marked for m in layout.markers(signal))

    if a.endpoint_paths or has(Signal.API_ENDPOINT):
        signals.add(Signal.API_ENDPOINT)
    if has(Signal.ARCHITECTURE):
        signals.add(Signal.ARCHITECTURE)
    if has(Signal.LOGIC_FLOW):
        signals.add(Signal.LOGIC_FLOW)
    if a.entity_names or has(Signal.DOMAIN_ENTITY):
        signals.add(Signal.DOMAIN_ENTITY)
    return signals


class _AnchorTermCollector:
    """Terms for ``prefer_like_patterns``: hint basenames, endpoints, files, entities,
    aliases, process domain and subdomain; lower case, as ``%term%``."""

    @staticmethod
    def collect(route: DocsIntent) -> list[str]:
        a = route.anchors
        terms = [
            *(basename(h) for h in a.target_doc_hints),
            *a.endpoint_paths,
            *a.file_names,
            *a.entity_names,
            *a.matched_aliases,
            *([a.process_domain] if a.process_domain else []),
            *([a.process_subdomain] if a.process_subdomain else []),
        ]
        return dedupe(like(t) for t in terms if t and t.strip())

    @classmethod
    def for_find_files(cls, route: DocsIntent) -> list[str]:
        """With hints: only their basenames; else the general collection."""
        hints = route.anchors.target_doc_hints
        if hints:
            return dedupe(like(basename(h)) for h in hints if basename(h).strip())
        return cls.collect(route)


#: Words of a question about versions or changes: a changelog may answer it.
_CHANGES = re.compile(
    r"\b(?:change ?logs?|changes|changed|release(?:s|d)?|release notes|versions?|new in|"
    r"what'?s new|deprecat\w*|removed|added|since|upgrad\w*|breaking|history|"
    r"fixed|fixes|regressions?|cve-\d{4}-\d+|bugs? #?\d+|closes:? #?\d+|"
    r"v?\d+\.\d+(?:\.\d+)?)\b",
    re.IGNORECASE,
)


def asks_about_changes(question: str) -> bool:
    """Whether ``question`` asks about versions or changes ("What changed in 0.100?",
    "When was X deprecated?", "Is CVE-2023-38545 fixed?", "which upload closed bug
    1010101?"): then changelog pages are not demoted.

    Example:
        >>> asks_about_changes("What changed in 0.100.0?"), asks_about_changes("CVE-2023-38545?")
        (True, True)
        >>> asks_about_changes("How do I mount an app?")
        False
    """
    return _CHANGES.search(question) is not None


class _RouteFilterBuilder:
    """Filters for the three branches, and the path selection behind them."""

    def __init__(self, layout: DocsLayout) -> None:
        self.layout = layout

    def _common(self, route: DocsIntent) -> dict[str, Any]:
        a = route.anchors
        filters: dict[str, Any] = {"target_doc_hints": list(a.target_doc_hints)}
        if a.process_domain:
            filters["metadata.domain"] = a.process_domain.lower()
        if a.process_subdomain:
            filters["metadata.subdomain"] = a.process_subdomain.lower()
        filters.update(self._every_branch(route))
        return filters

    def _every_branch(self, route: DocsIntent) -> dict[str, Any]:
        """What every branch's plan carries from the layout: its exclusions and its soft
        demotions (test paths; changelogs, unless the question asks about changes)."""
        out: dict[str, Any] = {}
        if self.layout.exclude_path_prefixes:
            out["exclude_path_prefixes"] = list(self.layout.exclude_path_prefixes)
        if self.layout.exclude_like_patterns:
            out["exclude_like_patterns"] = list(self.layout.exclude_like_patterns)
        if self.layout.prefer_non_tests:
            out["prefer_non_tests"] = True
        if self.layout.prefer_non_changelogs and not asks_about_changes(route.question):
            out["prefer_non_changelogs"] = True
        return out

    def general_filters(self, route: DocsIntent) -> dict[str, Any]:
        filters: dict[str, Any] = {
            "prefer_path_prefixes": list(self.layout.general_prefer_prefixes),
            "prefer_like_patterns": list(self.layout.general_prefer_like),
            "target_doc_hints": list(route.anchors.target_doc_hints),
        }
        filters.update(self._every_branch(route))
        return filters

    def summary_filters(self, route: DocsIntent) -> dict[str, Any]:
        signals = anchor_signal_types(route, self.layout)
        filters = self._common(route)
        if Signal.API_ENDPOINT in signals:
            filters["path_prefixes"] = dedupe(self.layout.api_hard_prefixes)
        filters["prefer_path_prefixes"] = self._summary_prefixes(signals)
        filters["prefer_like_patterns"] = _AnchorTermCollector.collect(route)
        return filters

    def find_files_filters(self, route: DocsIntent) -> dict[str, Any]:
        signals = anchor_signal_types(route, self.layout)
        filters = self._common(route)
        prefixes = self._find_files_prefixes(route, signals)
        filters["path_prefixes"] = prefixes
        filters["prefer_path_prefixes"] = self._find_files_prefer_prefixes(route, prefixes)
        filters["prefer_like_patterns"] = _AnchorTermCollector.for_find_files(route)
        return filters

    def _summary_prefixes(self, signals: set[Signal]) -> list[str]:
        meaningful = [s for s in SIGNAL_ORDER if s in signals]
        if not meaningful:
            return dedupe(self.layout.default_prefixes)
        return dedupe(p for s in meaningful for p in self.layout.signal_prefixes(s))

    def _find_files_prefixes(self, route: DocsIntent, signals: set[Signal]) -> list[str]:
        a = route.anchors
        from_hints = dedupe(_directory(h) for h in a.target_doc_hints)
        if from_hints:
            return from_hints
        from_files = dedupe(
            _directory(f)
            for f in a.file_names
            if any(f.startswith(root) for root in self.layout.file_roots)
        )
        if from_files:
            return from_files
        fallback = dedupe(
            p for s in SIGNAL_ORDER if s in signals for p in self.layout.find_signal_prefixes(s)
        )
        return fallback or dedupe(self.layout.find_default_prefixes)

    def _find_files_prefer_prefixes(self, route: DocsIntent, prefixes: list[str]) -> list[str]:
        a = route.anchors
        extra = (
            list(self.layout.find_process_prefixes)
            if a.process_domain or a.process_subdomain
            else []
        )
        return dedupe([*prefixes, *extra])


def _directory(path: str) -> str:
    """The folder of a path with a trailing slash; '' when it has none."""
    folder = posixpath.dirname(path.strip())
    return f"{folder}/" if folder else ""


class PolicyResolver:
    """A docs intent -> one valid :class:`RetrievalPlan` (see the module doc)."""

    def __init__(self, layout: DocsLayout | None = None) -> None:
        self.layout = layout or DocsLayout()
        self._filters = _RouteFilterBuilder(self.layout)

    def resolve(self, route: DocsIntent) -> RetrievalPlan:
        """The plan for ``route``; always exactly one, always valid."""
        if route.intent == Intent.GENERAL_QA:
            return self._plan(PlanProfile.GENERAL_QA, self._filters.general_filters(route))
        if route.subintent == Subintent.FIND_FILES:
            return self._plan(PlanProfile.FILE_LOOKUP, self._filters.find_files_filters(route))
        return self._plan(self.summary_profile(route), self._filters.summary_filters(route))

    def summary_profile(self, route: DocsIntent) -> PlanProfile:
        """The single meaningful signal's profile, else ``docs_summary_generic``."""
        meaningful = anchor_signal_types(route, self.layout) - {Signal.FIND_FILES}
        if len(meaningful) != 1:
            return PlanProfile.SUMMARY_GENERIC
        return SIGNAL_PROFILE[next(iter(meaningful))]

    @staticmethod
    def _plan(profile: PlanProfile, filters: dict[str, Any]) -> RetrievalPlan:
        layers, limit = PROFILE_LAYERS[profile]
        return RetrievalPlan(profile=profile, layers=layers, limit=limit, filters=filters)


__all__ = [
    "PROFILE_LAYERS",
    "DocsLayout",
    "PolicyResolver",
    "anchor_signal_types",
    "basename",
    "dedupe",
    "like",
]
