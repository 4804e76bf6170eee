"""The intent router: anchors from the text and from the D1/D3 catalogs, intents, determinism."""

from __future__ import annotations

from typing import Any

import pytest

from sectio.plan.catalog import DocsCatalog, tokens
from sectio.plan.models import Intent, Subintent
from sectio.plan.router import IntentRouter


def d1(
    path: str, title: str, *aliases: str, domain: str | None = None, sub: str | None = None
) -> dict:
    meta: dict[str, Any] = {}
    if domain:
        meta["domain"] = domain
    if sub:
        meta["subdomain"] = sub
    return {
        "doc_id": path,
        "path": path,
        "doc_title": title,
        "aliases": list(aliases),
        "metadata": meta,
    }


def d3(path: str, name: str, kind: str = "code", *aliases: str) -> dict:
    return {"doc_id": path, "entity": name, "entity_kind": kind, "entity_aliases": list(aliases)}


@pytest.fixture(scope="module")
def router() -> IntentRouter:
    docs = [
        d1(
            "docs/user-guide/sync-waves.md",
            "Sync Phases and Waves",
            "sync-waves.md",
            "sync waves",
            domain="user-guide",
        ),
        d1("docs/user-guide/helm.md", "Helm", "helm.md", domain="user-guide"),
        d1(
            "docs/user-guide/commands/argocd_app_sync.md",
            "argocd app sync Command Reference",
            "argocd_app_sync.md",
            "argocd app sync",
            domain="user-guide",
            sub="commands",
        ),
        d1(
            "docs/operator-manual/notifications/index.md",
            "Notifications Overview",
            "index.md",
            domain="operator-manual",
            sub="notifications",
        ),
        d1(
            "docs/operator-manual/argocd-cm-yaml.md",
            "argocd-cm.yaml example",
            "argocd-cm-yaml.md",
            "argocd cm yaml",
            domain="operator-manual",
        ),
        d1("docs/faq.md", "FAQ", "faq.md"),
        d1("docs/how-to/general.md", "General recipes", "general.md", domain="how-to"),
    ]
    docs += [d1(f"docs/x/argo-cd-{i}.md", f"Argo CD thing {i}") for i in range(6)]
    ents = [
        d3("docs/faq.md", "OutOfSync", "code", "out of sync"),
        d3("docs/core_concepts.md", "Application", "glossary"),
        d3("docs/user-guide/sync-waves.md", "PreDelete Hooks", "heading", "predelete hooks"),
        d3("docs/a.md", "argo-cd", "code", "argo cd"),
    ]
    ents += [
        d3(f"docs/many/{i}.md", "ApplicationSet", "code", "application set") for i in range(10)
    ]
    return IntentRouter(DocsCatalog.from_payloads(docs, ents))


CASES: list[tuple[str, str, dict[str, Any]]] = [
    (
        "explicit path",
        "What is in docs/faq.md?",
        {"file_names": ("docs/faq.md",), "target_doc_hints": ("docs/faq.md",)},
    ),
    (
        "basename to full path",
        "where is sync-waves.md",
        {"target_doc_hints": ("docs/user-guide/sync-waves.md",), "intent": Intent.DOCS_LOOKUP},
    ),
    (
        "unknown markdown file kept for substring fallback",
        "Open guide/missing-page.md please",
        {"target_doc_hints": ("guide/missing-page.md",)},
    ),
    (
        "yaml file found through the page's alias",
        "What keys go in argocd-cm.yaml?",
        {
            "target_doc_hints": ("docs/operator-manual/argocd-cm-yaml.md",),
            "file_names": ("argocd-cm.yaml",),
        },
    ),
    (
        "multi-word title alias, plural folded",
        "How does a sync wave work?",
        {"target_doc_hints": ("docs/user-guide/sync-waves.md",)},
    ),
    ("one-word title needs a cue", "How do I install helm charts?", {"target_doc_hints": ()}),
    (
        "one-word title with a cue",
        "Summarize the Helm page",
        {"target_doc_hints": ("docs/user-guide/helm.md",)},
    ),
    (
        "command alias",
        "What flags does argocd app sync take?",
        {"target_doc_hints": ("docs/user-guide/commands/argocd_app_sync.md",)},
    ),
    (
        "code-like entity",
        "Why is my app OutOfSync?",
        {"entity_names": ("OutOfSync",), "target_doc_hints": ()},
    ),
    (
        "entity through its alias",
        "why is it out of sync",
        {"entity_names": ("OutOfSync",), "matched_aliases": ("out of sync",)},
    ),
    ("plain one-word glossary term is too weak", "What is an application?", {"entity_names": ()}),
    ("entity defined in too many documents", "Explain the ApplicationSet", {"entity_names": ()}),
    ("product name in many titles is no anchor", "What is Argo CD?", {"entity_names": ()}),
    (
        "heading entity",
        "When do PreDelete hooks run?",
        {"entity_names": ("PreDelete Hooks",)},
    ),
    (
        "endpoint with method",
        "What does POST /api/v1/session/ return?",
        {"endpoint_paths": ("/api/v1/session",)},
    ),
    (
        "domain said as a phrase",
        "How do I configure SSO in the operator manual?",
        {"process_domain": "operator-manual", "process_subdomain": None},
    ),
    (
        "subdomain needs a cue and implies its domain",
        "What is in the notifications docs about Slack?",
        {"process_domain": "operator-manual", "process_subdomain": "notifications"},
    ),
    (
        "a folder named of stopwords is said only as its name: 'how to' opens questions",
        "How to deploy with Docker?",
        {"process_domain": None},
    ),
    (
        "a folder named of stopwords, written as its name",
        "What is in how-to?",
        {"process_domain": "how-to"},
    ),
    (
        "a bare topic word is not a subdomain",
        "How do notifications get sent?",
        {"process_subdomain": None, "process_domain": None},
    ),
]


@pytest.mark.parametrize(("name", "question", "expected"), CASES, ids=[c[0] for c in CASES])
def test_anchors(router: IntentRouter, name: str, question: str, expected: dict[str, Any]) -> None:
    r = router.route(question)
    for key, want in expected.items():
        got = getattr(r, key) if key == "intent" else getattr(r.anchors, key)
        assert got == want, (key, r.model_dump())


INTENT_CASES = [
    ("Where is the sync waves page?", Intent.DOCS_LOOKUP, Subintent.FIND_FILES),
    ("Where are resource hooks documented?", Intent.DOCS_LOOKUP, Subintent.FIND_FILES),
    ("Which files describe notifications?", Intent.DOCS_LOOKUP, Subintent.FIND_FILES),
    ("In which page is RBAC explained?", Intent.DOCS_LOOKUP, Subintent.FIND_FILES),
    ("sync-waves.md", Intent.DOCS_LOOKUP, Subintent.FIND_FILES),
    ("What is Argo CD?", Intent.GENERAL_QA, Subintent.OVERVIEW),
    ("Give me an overview", Intent.GENERAL_QA, Subintent.OVERVIEW),
    ("Summarize the Helm page", Intent.DOCS_SUMMARY, Subintent.SUMMARIZE),
    ("Why is my app OutOfSync?", Intent.DOCS_SUMMARY, Subintent.TROUBLESHOOT),
    ("How do I configure sync waves?", Intent.DOCS_SUMMARY, Subintent.HOW_TO),
    ("What is a sync wave?", Intent.DOCS_SUMMARY, Subintent.EXPLAIN),
    ("GET /api/v1/session", Intent.DOCS_SUMMARY, Subintent.REFERENCE),
    ("sync wave annotations", Intent.DOCS_SUMMARY, Subintent.LOOKUP),
    ("Where is core.md?", Intent.DOCS_LOOKUP, Subintent.FIND_FILES),
    # "where is" a thing, not a page: the answer is in a page's text, not a file list
    (
        "Where is the TTS offboarding form I need to fill out?",
        Intent.DOCS_SUMMARY,
        Subintent.LOOKUP,
    ),
    ("Where is the school district office?", Intent.DOCS_SUMMARY, Subintent.LOOKUP),
]


@pytest.mark.parametrize(
    ("question", "intent", "sub"), INTENT_CASES, ids=[c[0] for c in INTENT_CASES]
)
def test_intents(router: IntentRouter, question: str, intent: Intent, sub: Subintent) -> None:
    r = router.route(question)
    assert (r.intent, r.subintent) == (intent, sub), r.model_dump()


def test_route_is_deterministic(router: IntentRouter) -> None:
    q = "Where is sync-waves.md and why is my app OutOfSync in the operator manual?"
    assert router.route(q) == router.route(q)
    assert router.route(q).notes  # says which rule produced what


def test_no_catalog_still_routes_text_anchors() -> None:
    r = IntentRouter().route("Which file documents GET /api/v1/session in docs/api/x.md?")
    assert r.anchors.endpoint_paths == ("/api/v1/session",)
    assert r.anchors.file_names == ("docs/api/x.md",)
    assert r.anchors.target_doc_hints == ()  # nothing to resolve against
    assert r.subintent == Subintent.FIND_FILES


def test_target_terms() -> None:
    r = IntentRouter().route("How do I configure the sync windows?")
    assert r.target_terms == ("configure", "sync", "window")


def test_tokens_fold_plurals_but_not_stopwords() -> None:
    assert tokens("Sync-Waves.md this process status") == [
        "sync",
        "wave",
        "md",
        "this",
        "process",
        "status",
    ]


def test_the_products_name_names_its_intro_page_only_when_asked_alone() -> None:
    # "tRPC" is written as code (a small letter before capitals) and titles the intro page;
    # three pages of four open with it: it is the product's name, and a question about
    # something else with it names no page; a class a page is named after still does
    def page(path: str, title: str, first: str) -> dict:
        return {**d1(path, title), "first_paragraph": first}

    docs = [
        page("docs/intro.md", "tRPC", "tRPC lets you build typesafe APIs."),
        page("docs/nextjs.md", "Usage with Next.js", "Use tRPC in a Next.js app router."),
        page("docs/links.md", "splitLink", "A link that branches on a condition."),
        page("docs/errors.md", "Error handling", "tRPC turns thrown errors into responses."),
    ]
    r = IntentRouter(DocsCatalog.from_payloads(docs, []))
    assert r.route("What is tRPC?").anchors.target_doc_hints == ("docs/intro.md",)
    other = r.route("How do I use tRPC with the app router?")
    assert "docs/intro.md" not in other.anchors.target_doc_hints
    assert r.route("How do I use splitLink with tRPC?").anchors.target_doc_hints == (
        "docs/links.md",
    )


def test_the_products_name_and_a_verb_it_does_name_no_command_page() -> None:
    # Git's manual names each page after a command, the product's name and a verb: "Git
    # shows ..." is what Git does, not the page `git show`; the command written as it is
    # named, and a plural a page's own name writes, still name their page
    pages = [
        d1(f"docs/git-{verb}.adoc", f"git-{verb}(1)", f"git-{verb}", f"git {verb}")
        for verb in ("show", "log", "diff", "status")
    ]
    pages.append(d1("docs/git-notes.adoc", "git-notes(1)", "git-notes", "git notes"))
    r = IntentRouter(DocsCatalog.from_payloads(pages, []))
    verb = r.route("Git shows files as modified when only their mode changed. Why?")
    assert verb.anchors.target_doc_hints == ()
    assert r.route("What does git show print for a tag?").anchors.target_doc_hints == (
        "docs/git-show.adoc",
    )
    assert r.route("How do I push git notes?").anchors.target_doc_hints == ("docs/git-notes.adoc",)
    # a page named by other words keeps matching a plural it does not write
    plain = IntentRouter(DocsCatalog.from_payloads([*pages, d1("docs/hook.md", "Commit hook")], []))
    assert plain.route("Where are commit hooks described?").anchors.target_doc_hints == (
        "docs/hook.md",
    )
