"""The policy resolver, table-driven: every branch, every signal, the seed's stated consequences."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from sectio.contract.profile import load_profile
from sectio.errors import ConfigError
from sectio.plan.models import Anchors, Intent, Layer, PlanProfile, Route, Signal, Subintent
from sectio.plan.planner import layout_of
from sectio.plan.resolver import DocsLayout, PolicyResolver, anchor_signal_types, dedupe

L = Layer
SUMMARY = (Intent.DOCS_SUMMARY, Subintent.EXPLAIN)
FIND = (Intent.DOCS_LOOKUP, Subintent.FIND_FILES)


def route(
    intent: Intent = Intent.DOCS_SUMMARY, sub: Subintent = Subintent.EXPLAIN, **anchors: Any
) -> Route:
    return Route(question="q", intent=intent, subintent=sub, anchors=Anchors(**anchors))


def resolve(r: Route, layout: DocsLayout | None = None):
    """``r``'s plan; the pinned filters below leave changelogs out (their own test)."""
    return PolicyResolver(layout or DocsLayout(prefer_non_changelogs=False)).resolve(r)


# --- signals ---------------------------------------------------------------------------

SIGNAL_CASES = [
    ("nothing", {}, set()),
    ("endpoint path", {"endpoint_paths": ("/api/v1/orders",)}, {Signal.API_ENDPOINT}),
    ("hint with /api/", {"target_doc_hints": ("docs/api/orders.md",)}, {Signal.API_ENDPOINT}),
    ("file named api", {"file_names": ("public-api.md",)}, {Signal.API_ENDPOINT}),
    ("alias endpoint", {"matched_aliases": ("orders endpoint",)}, {Signal.API_ENDPOINT}),
    ("hint architecture", {"target_doc_hints": ("docs/architecture/x.md",)}, {Signal.ARCHITECTURE}),
    ("file arch", {"file_names": ("arch-notes.md",)}, {Signal.ARCHITECTURE}),
    ("hint logic", {"target_doc_hints": ("docs/logic/checkout.md",)}, {Signal.LOGIC_FLOW}),
    ("file workflow", {"file_names": ("release-workflow.md",)}, {Signal.LOGIC_FLOW}),
    ("alias flow", {"matched_aliases": ("checkout flow",)}, {Signal.LOGIC_FLOW}),
    ("alias process", {"matched_aliases": ("refund process",)}, {Signal.LOGIC_FLOW}),
    ("entity names", {"entity_names": ("Invoice",)}, {Signal.DOMAIN_ENTITY}),
    ("hint domains", {"target_doc_hints": ("docs/domains/billing.md",)}, {Signal.DOMAIN_ENTITY}),
    ("file component", {"file_names": ("component-list.md",)}, {Signal.DOMAIN_ENTITY}),
    ("alias entity", {"matched_aliases": ("order entity",)}, {Signal.DOMAIN_ENTITY}),
    # process_domain / subdomain never count as signals (even with marker words in them)
    ("process domain only", {"process_domain": "api", "process_subdomain": "workflow"}, set()),
    # target_terms never count either (not an anchor)
]


@pytest.mark.parametrize(
    ("name", "anchors", "expected"), SIGNAL_CASES, ids=[c[0] for c in SIGNAL_CASES]
)
def test_signal_detection(name: str, anchors: dict[str, Any], expected: set[Signal]) -> None:
    assert anchor_signal_types(route(**anchors)) == expected


def test_find_files_is_a_signal_of_the_subintent() -> None:
    assert anchor_signal_types(route(*FIND)) == {Signal.FIND_FILES}


def test_target_terms_do_not_change_signals_or_plan() -> None:
    base = route(entity_names=("Invoice",))
    with_terms = base.model_copy(update={"target_terms": ("api", "architecture", "workflow")})
    assert anchor_signal_types(with_terms) == anchor_signal_types(base)
    assert resolve(with_terms) == resolve(base)


# --- summary profile selection -------------------------------------------------------

PROFILE_CASES = [
    ("no signal", {}, PlanProfile.SUMMARY_GENERIC),
    ("api only", {"endpoint_paths": ("/api/v1/x",)}, PlanProfile.SUMMARY_API_ENDPOINT),
    (
        "architecture only",
        {"target_doc_hints": ("docs/architecture/a.md",)},
        PlanProfile.SUMMARY_ARCHITECTURE,
    ),
    ("logic only", {"target_doc_hints": ("docs/logic/a.md",)}, PlanProfile.SUMMARY_LOGIC_FLOW),
    ("entity only", {"entity_names": ("Order",)}, PlanProfile.SUMMARY_DOMAIN_ENTITY),
    (
        "api + architecture conflict",
        {"endpoint_paths": ("/api/v1/x",), "target_doc_hints": ("docs/architecture/a.md",)},
        PlanProfile.SUMMARY_GENERIC,
    ),
    (
        "api + entity conflict",
        {"endpoint_paths": ("/api/v1/x",), "entity_names": ("Order",)},
        PlanProfile.SUMMARY_GENERIC,
    ),
    (
        "logic + entity conflict",
        {"matched_aliases": ("checkout flow",), "entity_names": ("Order",)},
        PlanProfile.SUMMARY_GENERIC,
    ),
    ("weak: domain only", {"process_domain": "billing"}, PlanProfile.SUMMARY_GENERIC),
    (
        "weak: hint without markers",
        {"target_doc_hints": ("docs/guide/setup.md",)},
        PlanProfile.SUMMARY_GENERIC,
    ),
]


@pytest.mark.parametrize(
    ("name", "anchors", "expected"), PROFILE_CASES, ids=[c[0] for c in PROFILE_CASES]
)
def test_summary_profile(name: str, anchors: dict[str, Any], expected: PlanProfile) -> None:
    assert resolve(route(**anchors)).profile == expected


# --- profile -> layers and limit -------------------------------------------------------

LAYER_TABLE = [
    (
        route(Intent.GENERAL_QA, Subintent.OVERVIEW),
        PlanProfile.GENERAL_QA,
        (L.D1_DOCUMENT_CATALOG, L.D0_DOC_CHUNKS),
        8,
    ),
    (route(*FIND), PlanProfile.FILE_LOOKUP, (L.D1_DOCUMENT_CATALOG, L.D3_ENTITY_CATALOG), 12),
    (
        route(endpoint_paths=("/api/x",)),
        PlanProfile.SUMMARY_API_ENDPOINT,
        (L.D1_DOCUMENT_CATALOG, L.D2_FACT_INDEX, L.D0_DOC_CHUNKS),
        8,
    ),
    (
        route(target_doc_hints=("docs/logic/a.md",)),
        PlanProfile.SUMMARY_LOGIC_FLOW,
        (L.D4_WORKFLOW_INDEX, L.D1_DOCUMENT_CATALOG, L.D0_DOC_CHUNKS),
        8,
    ),
    (
        route(entity_names=("Order",)),
        PlanProfile.SUMMARY_DOMAIN_ENTITY,
        (L.D3_ENTITY_CATALOG, L.D1_DOCUMENT_CATALOG, L.D0_DOC_CHUNKS),
        8,
    ),
    (
        route(target_doc_hints=("docs/architecture/a.md",)),
        PlanProfile.SUMMARY_ARCHITECTURE,
        (L.D1_DOCUMENT_CATALOG, L.D5_RELATION_GRAPH, L.D0_DOC_CHUNKS),
        8,
    ),
    (route(), PlanProfile.SUMMARY_GENERIC, (L.D1_DOCUMENT_CATALOG, L.D0_DOC_CHUNKS), 8),
]


@pytest.mark.parametrize(
    ("r", "profile", "layers", "limit"), LAYER_TABLE, ids=[t[1].value for t in LAYER_TABLE]
)
def test_profile_layers_and_limit(
    r: Route, profile: PlanProfile, layers: tuple[Layer, ...], limit: int
) -> None:
    plan = resolve(r)
    assert (plan.profile, plan.layers, plan.limit) == (profile, layers, limit)


# --- branches ----------------------------------------------------------------------------


def test_general_branch_filters_are_soft_only() -> None:
    r = route(
        Intent.GENERAL_QA,
        Subintent.OVERVIEW,
        target_doc_hints=("docs/api/orders.md",),
        endpoint_paths=("/api/v1/orders",),
        process_domain="billing",
    )
    plan = resolve(r)
    assert plan.profile == PlanProfile.GENERAL_QA
    assert plan.filters == {
        "prefer_path_prefixes": ["docs/architecture/", "docs/"],
        "prefer_like_patterns": ["%readme.md%", "%overview%"],
        "target_doc_hints": ["docs/api/orders.md"],
    }


def test_general_qa_wins_over_find_files() -> None:
    plan = resolve(route(Intent.GENERAL_QA, Subintent.FIND_FILES, file_names=("docs/a/b.md",)))
    assert plan.profile == PlanProfile.GENERAL_QA


def test_find_files_stays_file_lookup_whatever_the_signals() -> None:
    for anchors in (
        {"endpoint_paths": ("/api/x",)},
        {"entity_names": ("Order",), "target_doc_hints": ("docs/architecture/a.md",)},
        {},
    ):
        assert resolve(route(*FIND, **anchors)).profile == PlanProfile.FILE_LOOKUP


SUMMARY_FILTER_CASES = [
    (
        "no signal",
        {},
        {"prefer_path_prefixes": ["docs/"], "prefer_like_patterns": [], "target_doc_hints": []},
    ),
    (
        "api adds hard prefixes",
        {"endpoint_paths": ("/api/v1/Orders",)},
        {
            "path_prefixes": ["docs/api/", "docs/"],
            "prefer_path_prefixes": ["docs/api/", "docs/"],
            "prefer_like_patterns": ["%/api/v1/orders%"],
            "target_doc_hints": [],
        },
    ),
    (
        "architecture",
        {"target_doc_hints": ("docs/architecture/Overview.md",)},
        {
            "prefer_path_prefixes": ["docs/architecture/", "docs/"],
            "prefer_like_patterns": ["%overview.md%"],
            "target_doc_hints": ["docs/architecture/Overview.md"],
        },
    ),
    (
        "logic",
        {"matched_aliases": ("Checkout Flow",)},
        {
            "prefer_path_prefixes": ["docs/logic/", "docs/architecture/", "docs/"],
            "prefer_like_patterns": ["%checkout flow%"],
            "target_doc_hints": [],
        },
    ),
    (
        "entity",
        {"entity_names": ("Invoice",)},
        {
            "prefer_path_prefixes": ["docs/domains/", "docs/", "docs/api/"],
            "prefer_like_patterns": ["%invoice%"],
            "target_doc_hints": [],
        },
    ),
    (
        "api + architecture: generic, merged prefixes, API still adds hard prefixes",
        {"endpoint_paths": ("/api/x",), "target_doc_hints": ("docs/architecture/a.md",)},
        {
            "path_prefixes": ["docs/api/", "docs/"],
            "prefer_path_prefixes": ["docs/api/", "docs/", "docs/architecture/"],
            "prefer_like_patterns": ["%a.md%", "%/api/x%"],
            "target_doc_hints": ["docs/architecture/a.md"],
        },
    ),
    (
        "all four signals: ordered de-duplicated union",
        {
            "endpoint_paths": ("/api/x",),
            "file_names": ("arch.md", "flow.md"),
            "entity_names": ("Order",),
        },
        {
            "path_prefixes": ["docs/api/", "docs/"],
            "prefer_path_prefixes": [
                "docs/api/",
                "docs/",
                "docs/architecture/",
                "docs/logic/",
                "docs/domains/",
            ],
            "prefer_like_patterns": ["%/api/x%", "%arch.md%", "%flow.md%", "%order%"],
            "target_doc_hints": [],
        },
    ),
    (
        "domain and subdomain: hard filters and like patterns, never a signal",
        {"process_domain": "Billing", "process_subdomain": "Refunds"},
        {
            "metadata.domain": "billing",
            "metadata.subdomain": "refunds",
            "prefer_path_prefixes": ["docs/"],
            "prefer_like_patterns": ["%billing%", "%refunds%"],
            "target_doc_hints": [],
        },
    ),
]


@pytest.mark.parametrize(
    ("name", "anchors", "expected"), SUMMARY_FILTER_CASES, ids=[c[0] for c in SUMMARY_FILTER_CASES]
)
def test_summary_filters(name: str, anchors: dict[str, Any], expected: dict[str, Any]) -> None:
    assert resolve(route(**anchors)).filters == expected


def test_anchor_terms_order_and_dedupe() -> None:
    r = route(
        target_doc_hints=("docs/api/Orders.md", "docs/other/orders.md"),
        endpoint_paths=("/api/v1/orders",),
        file_names=("Orders.md",),
        entity_names=("Order", "order"),
        matched_aliases=("purchase",),
        process_domain="sales",
        process_subdomain="b2b",
    )
    assert resolve(r).filters["prefer_like_patterns"] == [
        "%orders.md%",
        "%/api/v1/orders%",
        "%order%",
        "%purchase%",
        "%sales%",
        "%b2b%",
    ]


FIND_PREFIX_CASES = [
    (
        "1: hint directories first",
        {
            "target_doc_hints": ("docs/api/orders.md", "docs/logic/flow.md", "docs/api/items.md"),
            "file_names": ("docs/domains/x.md",),
            "endpoint_paths": ("/api/x",),
        },
        ["docs/api/", "docs/logic/"],
    ),
    (
        "2: directories of docs/ file names",
        {
            "file_names": ("docs/domains/billing/invoice.md", "notes/todo.md"),
            "endpoint_paths": ("/api/x",),
        },
        ["docs/domains/billing/"],
    ),
    ("3: api signal fallback", {"endpoint_paths": ("/api/x",)}, ["docs/api/", "docs/"]),
    (
        "3: architecture fallback",
        {"matched_aliases": ("architecture",)},
        ["docs/architecture/", "docs/"],
    ),
    (
        "3: logic fallback (not the summary list)",
        {"matched_aliases": ("flow",)},
        ["docs/logic/", "docs/"],
    ),
    (
        "3: entity fallback (not the summary list)",
        {"entity_names": ("Order",)},
        ["docs/domains/", "docs/"],
    ),
    (
        "3: several signals merged",
        {"endpoint_paths": ("/api/x",), "entity_names": ("Order",)},
        ["docs/api/", "docs/", "docs/domains/"],
    ),
    ("4: default", {}, ["docs/"]),
    ("4: file outside docs/ falls through", {"file_names": ("notes/todo.md",)}, ["docs/"]),
    ("hint without a folder gives none", {"target_doc_hints": ("orders.md",)}, ["docs/"]),
]


@pytest.mark.parametrize(
    ("name", "anchors", "expected"), FIND_PREFIX_CASES, ids=[c[0] for c in FIND_PREFIX_CASES]
)
def test_find_files_path_prefix_priority(
    name: str, anchors: dict[str, Any], expected: list[str]
) -> None:
    plan = resolve(route(*FIND, **anchors))
    assert plan.filters["path_prefixes"] == expected
    assert plan.filters["prefer_path_prefixes"][: len(expected)] == expected


def test_find_files_prefer_prefixes_add_process_folders() -> None:
    plan = resolve(route(*FIND, target_doc_hints=("docs/api/a.md",), process_domain="billing"))
    assert plan.filters["prefer_path_prefixes"] == ["docs/api/", "docs/domains/", "docs/logic/"]
    assert plan.filters["metadata.domain"] == "billing"
    plan = resolve(route(*FIND, process_subdomain="refunds"))
    assert plan.filters["prefer_path_prefixes"] == ["docs/", "docs/domains/", "docs/logic/"]
    assert "metadata.domain" not in plan.filters
    assert plan.filters["metadata.subdomain"] == "refunds"


def test_find_files_like_patterns_basename_rule() -> None:
    with_hints = route(
        *FIND,
        target_doc_hints=("docs/api/Orders.md",),
        entity_names=("Order",),
        file_names=("x.md",),
    )
    assert resolve(with_hints).filters["prefer_like_patterns"] == ["%orders.md%"]
    without = route(*FIND, entity_names=("Order",), file_names=("x.md",), process_domain="billing")
    assert resolve(without).filters["prefer_like_patterns"] == ["%x.md%", "%order%", "%billing%"]


def test_find_files_filter_keys() -> None:
    plan = resolve(
        route(*FIND, target_doc_hints=("docs/a/b.md",), process_domain="d", process_subdomain="s")
    )
    assert set(plan.filters) == {
        "target_doc_hints",
        "metadata.domain",
        "metadata.subdomain",
        "path_prefixes",
        "prefer_path_prefixes",
        "prefer_like_patterns",
    }


def test_always_exactly_one_valid_plan() -> None:
    values: dict[str, list[Any]] = {
        "entity_names": [(), ("Order",)],
        "file_names": [(), ("docs/logic/a.md",), ("arch.md",)],
        "endpoint_paths": [(), ("/api/x",)],
        "target_doc_hints": [(), ("docs/api/a.md",), ("b.md",)],
        "process_domain": [None, "billing"],
    }
    keys = list(values)
    for intent, sub in itertools.product(Intent, Subintent):
        for combo in itertools.product(*(values[k] for k in keys)):
            plan = resolve(route(intent, sub, **dict(zip(keys, combo, strict=True))))
            assert plan.layers and plan.limit >= 1
            assert plan.profile in PlanProfile
            assert plan.filters["target_doc_hints"] == list(
                dict(zip(keys, combo, strict=True))["target_doc_hints"]
            )
            for key in ("path_prefixes", "prefer_path_prefixes", "prefer_like_patterns"):
                if key in plan.filters:
                    assert plan.filters[key] == dedupe(plan.filters[key])


def test_resolver_never_changes_the_route() -> None:
    r = route(*FIND, entity_names=("Order",))
    before = r.model_dump()
    resolve(r)
    assert r.model_dump() == before


# --- layouts from profiles ---------------------------------------------------------------


def test_docs_profile_is_the_reference_layout() -> None:
    assert layout_of(load_profile("docs")) == DocsLayout()


def test_argocd_profile_sets_its_own_prefixes() -> None:
    profile = load_profile("docs_argocd")
    assert (profile.name, profile.engine) == ("docs_argocd", "docs_planner")
    layout = layout_of(profile)
    plan = PolicyResolver(layout).resolve(route(entity_names=("Application",)))
    assert plan.filters["prefer_path_prefixes"] == list(layout.domain_prefixes)
    assert layout.domain_prefixes != DocsLayout().domain_prefixes
    assert all(p.startswith("docs/") for p in layout.logic_prefixes)
    assert "docs/user-guide/" in layout.logic_prefixes


def test_layout_refuses_unknown_keys() -> None:
    with pytest.raises(ValidationError):
        DocsLayout.from_table({"api_prefix": ["docs/api/"]})


def test_layout_exclusions_reach_the_filters() -> None:
    layout = DocsLayout.from_table({"exclude_path_prefixes": ["docs/archive/"]})
    assert resolve(route(), layout).filters["exclude_path_prefixes"] == ["docs/archive/"]
    assert "exclude_path_prefixes" not in resolve(route()).filters


def test_prefer_non_tests_is_set_by_the_profile_in_every_branch(tmp_path: Path) -> None:
    # seed 002: the executor honours prefer_non_tests; here a profile sets it.
    toml = tmp_path / "p.toml"
    toml.write_text('name = "d"\nengine = "docs_planner"\n[docs]\nprefer_non_tests = true\n')
    layout = layout_of(load_profile(toml))
    assert layout.prefer_non_tests is True
    branches = (route(Intent.GENERAL_QA), route(*FIND), route(endpoint_paths=("/api/x",)), route())
    for r in branches:
        assert resolve(r, layout).filters["prefer_non_tests"] is True, r.intent
        assert "prefer_non_tests" not in resolve(r).filters  # off unless a profile says so
    toml.write_text('name = "d"\n[docs]\nprefer_non_tests = ["yes"]\n')
    with pytest.raises(ConfigError, match="prefer_non_tests"):
        layout_of(load_profile(toml))


def test_every_branch_demotes_changelogs_unless_the_question_asks_about_changes() -> None:
    default = PolicyResolver()
    for intent, sub in (
        (Intent.DOCS_SUMMARY, Subintent.HOW_TO),
        (Intent.DOCS_LOOKUP, Subintent.FIND_FILES),
        (Intent.GENERAL_QA, Subintent.OVERVIEW),
    ):
        asked = Route(question="how do I mount an app", intent=intent, subintent=sub)
        assert default.resolve(asked).filters["prefer_non_changelogs"] is True, intent
        for question in (
            "what changed in 0.100.0",
            "when was on_startup deprecated",
            "is CVE-2023-38545 fixed in curl",  # a changelog says which upload fixed it
            "which upload closed bug #1010101",
        ):
            changes = Route(question=question, intent=intent, subintent=sub)
            assert "prefer_non_changelogs" not in default.resolve(changes).filters, question
    off = PolicyResolver(DocsLayout(prefer_non_changelogs=False))
    plain = Route(
        question="how do I mount an app", intent=Intent.DOCS_SUMMARY, subintent=Subintent.HOW_TO
    )
    assert "prefer_non_changelogs" not in off.resolve(plain).filters
