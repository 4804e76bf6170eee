"""The plan executor and the planner end to end, over real Qdrant Edge with the fake embedder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sectio import Sectio, Settings
from sectio.cli import cli
from sectio.contract.profile import load_profile
from sectio.contract.result import RetrievalResult
from sectio.errors import ConfigError
from sectio.ingest.loader import load_records
from sectio.ingest.markdown import read_markdown
from sectio.plan import DocsPlanner, DocsPlanRoute, plan_question
from sectio.plan.executor import EXACT, HYBRID, MAX_ROWS_PER_DOC, SUBSTRING, PlanExecutor
from sectio.plan.models import Layer, PlanProfile, RetrievalPlan
from sectio.plan.sections import docs_summary

COLL = "docs"
FILES = {
    "docs/api/orders.md": (
        "# Orders API\n\nThe orders endpoint, `/api/v1/orders`, lists and creates orders.\n\n"
        "## List orders\n\n`GET /api/v1/orders` returns every order of the shop.\n\n"
        "## Create an order\n\n`POST /api/v1/orders` creates an order from a cart.\n"
    ),
    "docs/api/invoices.md": "# Invoices API\n\n`GET /api/v1/invoices` lists invoices of orders.\n",
    "docs/architecture/overview.md": (
        "# Architecture Overview\n\nThe shop has an orders service, a billing service and a "
        "checkout worker. See [orders](../api/orders.md).\n"
    ),
    "docs/logic/checkout-flow.md": (
        "# Checkout Flow\n\nHow an order is placed.\n\n1. Validate the cart\n2. Reserve stock\n"
        "3. Create the order\n4. Send the invoice\n"
    ),
    "docs/domains/billing/invoice.md": (
        "# Invoice\n\nAn **Invoice** is the bill of one order, sent after checkout.\n"
    ),
    "docs/domains/billing/refunds.md": "# Refunds\n\nA refund reverses an invoice of an order.\n",
    "docs/guide/testing-orders.md": "# Testing orders\n\nHow to test the orders endpoint.\n",
    "docs/guide/orders-howto.md": "# Orders how-to\n\nPlace orders, list orders, cancel orders.\n",
}


def make_corpus(root: Path, files: dict[str, str] = FILES) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def docs_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ingested docs collection for the module (the tests only read it)."""
    root = tmp_path_factory.mktemp("plan")
    with Sectio(Settings(home=root / "home", embedder="fake")) as sx:
        sx.ingest(make_corpus(root / "corpus"), fmt="markdown", collection=COLL)
    return root / "home"


@pytest.fixture
def docs_sectio(docs_home: Path) -> Iterator[Sectio]:
    sx = Sectio(Settings(home=docs_home, embedder="fake"))
    yield sx
    sx.close()


def planner_of(sx: Sectio) -> DocsPlanner:
    """The docs planner that answers the test collection (its route in the pipeline)."""
    routes = [r for r in sx.router(COLL).routes if isinstance(r, DocsPlanRoute)]
    assert len(routes) == 1
    return routes[0].planner


def executor(sx: Sectio, tenant: str = "default") -> PlanExecutor:
    scope = sx.router(COLL).scope(tenant)
    return PlanExecutor(scope, planner_of(sx).catalog(scope))


def answer(sx: Sectio, question: str, *, tenant: str = "default") -> RetrievalResult:
    return sx.ask(question, collection=COLL, tenant=tenant, record=False)


def plan(
    layers: tuple[Layer, ...] = (Layer.D1_DOCUMENT_CATALOG, Layer.D0_DOC_CHUNKS),
    limit: int = 8,
    **filters: Any,
) -> RetrievalPlan:
    filters.setdefault("target_doc_hints", [])
    return RetrievalPlan(
        profile=PlanProfile.SUMMARY_GENERIC, layers=layers, limit=limit, filters=filters
    )


def test_exact_seed_comes_first(docs_sectio: Sectio) -> None:
    ex = executor(docs_sectio).execute(
        plan(target_doc_hints=["docs/logic/checkout-flow.md"]), "how are orders listed"
    )
    first = ex.rows[0]
    assert first.step == EXACT and first.chunk_id == "d1:docs/logic/checkout-flow.md"
    seeds = [r for r in ex.rows if r.step == EXACT]
    assert all(r.payload["path"] == "docs/logic/checkout-flow.md" for r in seeds)
    assert ex.rows.index(seeds[-1]) == len(seeds) - 1  # all seeds before any hybrid row
    assert any(r.step == HYBRID for r in ex.rows)
    assert ex.steps[0] == {
        "step": EXACT,
        "hint": "docs/logic/checkout-flow.md",
        "rows": [r.chunk_id for r in seeds],
    }


def test_substring_fallback_for_hints_that_name_no_document(docs_sectio: Sectio) -> None:
    ex = executor(docs_sectio).execute(plan(target_doc_hints=["billing/invoice"]), "what is billed")
    sub = [r for r in ex.rows if r.step == SUBSTRING]
    assert sub and {r.payload["path"] for r in sub} == {"docs/domains/billing/invoice.md"}
    step = next(s for s in ex.steps if s["step"] == SUBSTRING)
    assert step["paths"] == ["docs/domains/billing/invoice.md"]
    # a bare word matches several paths: the file name comes first, then shorter paths
    ex = executor(docs_sectio).execute(plan(target_doc_hints=["orders"]), "orders")
    step = next(s for s in ex.steps if s["step"] == SUBSTRING)
    assert step["paths"] == [
        "docs/api/orders.md",
        "docs/guide/orders-howto.md",
        "docs/guide/testing-orders.md",
    ]


def test_rows_are_unique_and_cut_to_the_limit(docs_sectio: Sectio) -> None:
    ex = executor(docs_sectio).execute(
        plan(limit=5, target_doc_hints=["docs/api/orders.md", "docs/api/orders.md", "orders.md"]),
        "orders endpoint",
    )
    ids = [r.chunk_id for r in ex.rows]
    assert len(ids) == len(set(ids)) and len(ids) <= 5
    assert ex.omitted  # more candidates than the limit


def test_places_the_per_document_cap_leaves_free_go_to_the_rows_it_passed_over(
    docs_sectio: Sectio,
) -> None:
    """Two pages under docs/api/: the cap (2 rows a page) alone would leave most of a limit
    of 8 empty while the orders page has more to give; those rows fill the places, and
    every kept row stands where the hybrid order puts it (the cap chooses rows, not their
    places)."""
    q, p = "list orders and create an order", plan(path_prefixes=["docs/api/"])
    ex = executor(docs_sectio).execute(p, q)
    docs = [r.payload["doc_id"] for r in ex.rows]
    assert set(docs) == {"docs/api/orders.md", "docs/api/invoices.md"}
    assert docs.count("docs/api/orders.md") > MAX_ROWS_PER_DOC
    assert len(ex.rows) <= 8 and len({r.chunk_id for r in ex.rows}) == len(ex.rows)
    scope = docs_sectio.router(COLL).scope("default")
    uncapped = PlanExecutor(scope, planner_of(docs_sectio).catalog(scope), max_per_doc=100)
    order = [
        r.chunk_id for r in uncapped.execute(plan(path_prefixes=["docs/api/"], limit=60), q).rows
    ]
    kept = [r.chunk_id for r in ex.rows]
    assert kept == sorted(kept, key=order.index)  # the hybrid order, the cap's rows in it


HARD = [
    ({"path_prefixes": ["docs/api/"]}, lambda p: p["path"].startswith("docs/api/")),
    (
        {"path_prefixes": ["docs/api/", "docs/logic/"]},
        lambda p: p["path"].startswith(("docs/api/", "docs/logic/")),
    ),
    ({"metadata.domain": "billing"}, lambda p: p["metadata"].get("domain") == "billing"),
    (
        {"metadata.domain": "billing", "metadata.subdomain": "nope"},
        lambda p: False,
    ),
    ({"exclude_path_prefixes": ["docs/guide/"]}, lambda p: not p["path"].startswith("docs/guide/")),
    ({"exclude_like_patterns": ["%test%"]}, lambda p: "test" not in p["path"]),
]


@pytest.mark.parametrize(("filters", "ok"), HARD, ids=[json.dumps(h[0]) for h in HARD])
def test_hard_filters_are_never_violated(
    docs_sectio: Sectio, filters: dict[str, Any], ok: Any
) -> None:
    hints = ["docs/guide/orders-howto.md", "docs/api/orders.md", "invoice", "testing"]
    for layers in ((Layer.D1_DOCUMENT_CATALOG, Layer.D0_DOC_CHUNKS), tuple(Layer)):
        ex = executor(docs_sectio).execute(
            plan(layers=layers, limit=30, target_doc_hints=hints, **filters), "orders invoice test"
        )
        assert all(ok(r.payload) for r in ex.rows), [r.payload["path"] for r in ex.rows]
        assert all(r.payload["layer"] in {layer.value for layer in layers} for r in ex.rows)
        assert ex.dropped_by_checks == 0  # the engine applied them; Python only re-checked


def test_soft_preferences_change_order_only(docs_sectio: Sectio) -> None:
    q = "orders"
    base = executor(docs_sectio).execute(plan(limit=60), q)
    for prefs in (
        {"prefer_like_patterns": ["%checkout%"]},
        {"prefer_path_prefixes": ["docs/domains/", "docs/"]},
        {"prefer_non_tests": True},
    ):
        boosted = executor(docs_sectio).execute(plan(limit=60, **prefs), q)
        assert {r.chunk_id for r in boosted.rows} == {r.chunk_id for r in base.rows}
    boosted = executor(docs_sectio).execute(plan(limit=60, prefer_like_patterns=["%checkout%"]), q)

    def first(rows: list, path: str) -> int:
        return next(i for i, r in enumerate(rows) if r.payload["path"] == path)

    assert first(boosted.rows, "docs/logic/checkout-flow.md") < first(
        base.rows, "docs/logic/checkout-flow.md"
    )
    tests = executor(docs_sectio).execute(plan(limit=60, prefer_non_tests=True), q)
    assert first(tests.rows, "docs/guide/testing-orders.md") >= first(
        base.rows, "docs/guide/testing-orders.md"
    )


def test_a_question_orders_the_rows_it_keeps_by_its_own_fusion(docs_home: Path) -> None:
    # a question fuses with its lexical trust, as `search` fuses it: the rows kept are
    # chosen with the tuned weights (answerability reads the same rows), their order
    # follows the question; keywords are not a question and keep the tuned order
    asked = "Which service sends the invoice after checkout?"
    rows: dict[str, list[list[str]]] = {}
    for tag, trust in (("on", 0.02), ("off", 0.0)):
        with Sectio(Settings(home=docs_home, embedder="fake", hybrid_trust_span=trust)) as sx:
            rows[tag] = [
                [r.chunk_id for r in executor(sx).execute(plan(limit=4), q).rows]
                for q in (asked, "orders")
            ]
    (question_on, keywords_on), (question_off, keywords_off) = rows["on"], rows["off"]
    assert set(question_on) == set(question_off) and question_on != question_off
    assert keywords_on == keywords_off


def test_titled_rows_go_first_among_the_rows_the_tuned_fusion_keeps(docs_sectio: Sectio) -> None:
    # a title the question writes moves its section's rows first; which rows are kept
    # (the per-document cap included: orders.md has more rows in the head than its two
    # places) stays what the tuned fusion chose
    q, titled = "list orders and create an order", frozenset({("docs/api/orders.md", "orders-api")})
    for limit in (3, 4, 5):
        p = plan(path_prefixes=["docs/api/"], limit=limit)
        base = executor(docs_sectio).execute(p, q)
        moved = executor(docs_sectio).execute(p, q, titled=titled)
        assert {r.chunk_id for r in moved.rows} == {r.chunk_id for r in base.rows}, limit
        keys = [r.payload.get("section_key", "") for r in moved.rows]
        under = [k == "orders-api" or k.startswith("orders-api/") for k in keys]
        assert under == sorted(under, reverse=True), keys  # titled rows first


def test_answer_end_to_end(docs_sectio: Sectio) -> None:
    result = answer(docs_sectio, "Where is checkout-flow.md?")
    assert result.route == "docs_plan"
    assert result.decision == "ANSWERABLE" and result.reason == "grounded_evidence_available"
    assert result.evidence[0].doc_id == "docs/logic/checkout-flow.md"
    assert result.resolved_doc_id == "docs/logic/checkout-flow.md"
    ev = result.evidence[0].model_dump()
    assert ev["plan_step"] == EXACT and ev["layer"] == "D1"
    assert result.details["plan"]["profile"] == "file_lookup"
    assert result.details["route"]["subintent"] == "FIND_FILES"
    assert [s["step"] for s in result.details["steps"]] == [EXACT, HYBRID]
    assert all(e.source_refs for e in result.evidence)
    assert [e.rank for e in result.evidence] == list(range(1, len(result.evidence) + 1))


def test_api_question_reads_the_fact_layer(docs_sectio: Sectio) -> None:
    result = answer(docs_sectio, "What does POST /api/v1/orders do?")
    assert result.details["plan"]["profile"] == "docs_summary_api_endpoint"
    layers = {e.model_dump()["layer"] for e in result.evidence}
    assert layers <= {"D1", "D2", "D0"} and "D2" in layers
    assert result.evidence[0].doc_id == "docs/api/orders.md"


def test_catalog_is_loaded_once_per_open_collection(docs_sectio: Sectio) -> None:
    planner = planner_of(docs_sectio)
    before = planner.catalogs.loads
    answer(docs_sectio, "orders")
    answer(docs_sectio, "invoices")
    assert planner.catalogs.loads == before + 1
    docs_sectio.release(COLL)  # reopened: a new router, a new planner, a fresh catalog
    answer(docs_sectio, "orders")
    assert planner_of(docs_sectio) is not planner
    assert planner_of(docs_sectio).catalogs.loads == 1


def test_empty_question_is_refused(docs_sectio: Sectio) -> None:
    with pytest.raises(ConfigError):
        answer(docs_sectio, "  ")


def test_tenants_never_mix(sectio: Sectio, tmp_path: Path) -> None:
    a = make_corpus(tmp_path / "a", {"docs/a/orders.md": "# Orders\n\nAcme orders.\n"})
    b = make_corpus(tmp_path / "b", {"docs/b/orders.md": "# Orders B\n\nBeta orders.\n"})
    records = read_markdown(a, tenant="acme") + read_markdown(b, tenant="beta")
    load_records(sectio.backend, COLL, records, sectio.embedder, load_profile("docs"))
    result = answer(sectio, "Where is docs/b/orders.md?", tenant="acme")
    assert result.evidence and all(e.tenant == "acme" for e in result.evidence)
    assert not any(
        s.get("hint") == "docs/b/orders.md" and s["rows"] for s in result.details["steps"]
    )
    assert all(e.doc_id == "docs/a/orders.md" for e in result.evidence)
    catalog = planner_of(sectio).catalog(sectio.router(COLL).scope("beta"))
    assert set(catalog.docs) == {"docs/b/orders.md"}


def test_plan_question_without_a_collection() -> None:
    route, p = plan_question("Which page documents GET /api/v1/orders?")
    assert p.profile == PlanProfile.FILE_LOOKUP
    assert p.filters["path_prefixes"] == ["docs/api/", "docs/"]
    assert route.anchors.endpoint_paths == ("/api/v1/orders",)


def test_cli_plan(docs_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECTIO_HOME", str(docs_home))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    runner = CliRunner()
    out = runner.invoke(cli, ["plan", "Where is checkout-flow.md?", "--json", "--collection", COLL])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["route"]["anchors"]["target_doc_hints"] == ["docs/logic/checkout-flow.md"]
    assert data["plan"]["profile"] == "file_lookup"
    assert data["plan"]["filters"]["path_prefixes"] == ["docs/logic/"]
    human = runner.invoke(cli, ["plan", "How does the checkout flow work?", "--collection", COLL])
    assert human.exit_code == 0 and "profile" in human.output
    missing = runner.invoke(cli, ["plan", "GET /api/v1/x", "--collection", "nope", "--json"])
    assert (
        missing.exit_code == 0
        and json.loads(missing.output)["plan"]["profile"] == "docs_summary_api_endpoint"
    )


@pytest.mark.skipif(not hasattr(Sectio, "ask"), reason="Sectio.ask is not in this build")
def test_sectio_ask_delegates_to_the_planner(docs_sectio: Sectio) -> None:
    result = docs_sectio.ask("Where is checkout-flow.md?", collection=COLL, tenant="default")
    assert result.route == "docs_plan"
    assert result.evidence[0].doc_id == "docs/logic/checkout-flow.md"


def test_plain_search_on_a_docs_collection_reads_the_doc_chunks(docs_sectio: Sectio) -> None:
    """D0 by default (the derived D1-D5 rows are the planner's); layers by filter or "all"."""
    plain = docs_sectio.search("orders invoice", collection=COLL, top_k=20)
    assert plain.hits and plain.details["layers"] == ["D0"]
    assert not [h.chunk_id for h in plain.hits if h.chunk_id.startswith(("d1:", "d2:", "d3:"))]
    every = docs_sectio.search(
        "orders invoice", collection=COLL, top_k=20, filters={"layer": "all"}
    )
    assert every.details["layers"] == "all"
    assert any(h.chunk_id.startswith("d1:") for h in every.hits)  # the catalog rows come back
    d1 = docs_sectio.search("orders", collection=COLL, filters={"layer": ["D1"]})
    assert d1.hits and all(h.chunk_id.startswith("d1:") for h in d1.hits)


def test_search_cli_layer_flag_and_omitted_reason(docs_home: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SECTIO_HOME", str(docs_home))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    runner = CliRunner()
    out = runner.invoke(cli, ["search", "orders", "-c", COLL, "--layer", "D1", "--json"])
    assert out.exit_code == 0, out.output
    hits = json.loads(out.output)["hits"]
    assert hits and all(h["chunk_id"].startswith("d1:") for h in hits)
    asked = runner.invoke(cli, ["ask", "how do I list orders", "-c", COLL, "--top-k", "1"])
    assert asked.exit_code == 0, asked.output
    reasons = [line for line in asked.output.splitlines() if line.startswith("omitted")]
    assert reasons and reasons[0].startswith(
        "omitted (row limit 1, 2 per document before the rest): "
    )
    assert "token budget" not in asked.output


def test_domain_filters_ignore_case_in_chunk_files_and_markdown(
    sectio: Sectio, tmp_path: Path
) -> None:
    # seed 002: lower(metadata_json->>'domain') = :metadata_domain; here the stored
    # values are folded at ingest, whatever the source (Markdown did it already).
    md = make_corpus(
        tmp_path / "md",
        {
            "docs/pay/refunds.md": "---\ndomain: Billing\nsubdomain: Refunds\n---\n"
            "# Refund rules\n\nRefund orders within 30 days.\n"
        },
    )
    sectio.ingest(md, fmt="markdown", profile="docs", collection="md")
    row = {
        "chunk_id": "docs/pay/refunds.md#0",
        "doc_id": "docs/pay/refunds.md",
        "section_key": "refund-rules",
        "part_index": 0,
        "text": "Refund orders within 30 days.",
        "path": "docs/pay/refunds.md",
        "layer": "D0",
        "metadata": {"domain": " Billing", "subdomain": ["REFUNDS", "Returns"], "team": "Pay-Ops"},
    }
    (tmp_path / "c.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    sectio.ingest(tmp_path / "c.jsonl", profile="docs", collection="jsonl")
    for coll in ("md", "jsonl"):
        for domain, sub in (("billing", "refunds"), ("BILLING", "Refunds"), ("Billing", "REFUNDS")):
            filters = {"metadata.domain": domain, "metadata.subdomain": sub}
            hits = sectio.search("refund", collection=coll, filters=filters, tenant="default")
            assert [h.doc_id for h in hits.hits] == ["docs/pay/refunds.md"], (coll, domain)
        scope = sectio.router(coll).scope("default")
        planner = next(r for r in sectio.router(coll).routes if isinstance(r, DocsPlanRoute))
        ex = PlanExecutor(scope, planner.planner.catalog(scope)).execute(
            plan(layers=(Layer.D0_DOC_CHUNKS,), **{"metadata.domain": "Billing"}), "refund"
        )
        assert [r.payload["doc_id"] for r in ex.rows] == ["docs/pay/refunds.md"], coll
    assert ex.rows[0].payload["metadata"] == {
        "domain": "billing",
        "subdomain": ["refunds", "returns"],
        "team": "Pay-Ops",  # other metadata passes through untouched
    }


def test_a_profile_with_prefer_non_tests_demotes_test_pages_and_keeps_them(
    sectio: Sectio, tmp_path: Path
) -> None:
    # the test page's answer is a little closer to the question (one place ahead in each
    # list): plain keeps it first; prefer_non_tests gives that place up to the guide. The
    # answer is a section of its own, below an opening the two pages share, so the pages'
    # catalog entries (D1: title and first paragraph) tie and take no place from it.
    opening = "# Refund faq\n\nQuestions about refunds.\n\n## Cancel\n\n"
    page = opening + "How to cancel a refund of an order.\n"
    test_page = opening + "How to cancel a refund of an order. Cancel a refund.\n"
    files = {"docs/tests/refund-faq.md": test_page, "docs/guide/refund-faq.md": page}
    corpus = make_corpus(tmp_path / "c", files)
    toml = tmp_path / "nt.toml"
    base = 'name = "nt"\nengine = "docs_planner"\n'
    toml.write_text(base + "[docs]\nprefer_non_tests = true\n")
    sectio.ingest(corpus, fmt="markdown", profile=toml, collection="nt")
    (tmp_path / "plain.toml").write_text(base)
    sectio.ingest(corpus, fmt="markdown", profile=tmp_path / "plain.toml", collection="plain")
    question = "how to cancel a refund"
    orders = {}
    for coll in ("nt", "plain"):
        result = sectio.ask(question, collection=coll, tenant="default", record=False)
        orders[coll] = list(dict.fromkeys(e.doc_id for e in result.evidence))
        assert sorted(orders[coll]) == sorted(files)  # demoted, never filtered
        assert result.details["plan"]["filters"].get("prefer_non_tests") is (coll == "nt" or None)
    assert orders["nt"] == ["docs/guide/refund-faq.md", "docs/tests/refund-faq.md"]
    assert orders["plain"] == ["docs/tests/refund-faq.md", "docs/guide/refund-faq.md"]


#: The page a how-to question about mounting is about, and the changelog lines that name
#: the feature in the question's words (ahead of it in each list).
MOUNT_GUIDE = "# Mounting\n\nMounting apps.\n\n## Mount\n\nMount a wsgi app under a path.\n"
MOUNT_ENTRY = "Mount a wsgi app under a path. Docs to mount a wsgi app under a path.\n"


def _pages(result: RetrievalResult) -> list[str]:
    """The evidence's pages, in the order they first come."""
    return list(dict.fromkeys(e.doc_id for e in result.evidence))


def test_a_changelog_gives_its_places_up_unless_the_question_asks_about_changes(
    sectio: Sectio, tmp_path: Path
) -> None:
    # the release notes' line names the feature in the question's words (ahead in each
    # list): the guide comes first all the same, the notes stay in the evidence; a question
    # about a version or a change reads the notes first
    notes = f"# Release Notes\n\nEvery release.\n\n## 1.2.0\n\n{MOUNT_ENTRY}"
    files = {"docs/mounting.md": MOUNT_GUIDE, "docs/release-notes.md": notes}
    corpus = make_corpus(tmp_path / "c", files)
    sectio.ingest(corpus, fmt="markdown", profile="docs", collection="cl")
    howto = sectio.ask("how to mount a wsgi app", collection="cl", record=False)
    assert _pages(howto) == [
        "docs/mounting.md",
        "docs/release-notes.md",
    ]
    assert howto.details["plan"]["filters"].get("prefer_non_changelogs") is True
    changed = sectio.ask("what changed to mount a wsgi app in 1.2.0", collection="cl", record=False)
    assert changed.evidence[0].doc_id == "docs/release-notes.md"
    assert "prefer_non_changelogs" not in changed.details["plan"]["filters"]


def test_a_version_the_question_writes_reads_that_release_whole(
    sectio: Sectio, tmp_path: Path
) -> None:
    # a release heading holds only its "Features" and "Fixes": read with the sections below
    # it, in the page's order, no other release's; "2.10" names no release
    notes = (
        "# Release Notes\n\n## 1.3.0 (2026-02-01)\n\n### Features\n\nAdd the frobnicator.\n\n"
        "### Fixes\n\nFix the widget leak.\n\n## 1.2.0 (2026-01-01)\n\n### Features\n\n"
        "Add the widget cache.\n"
    )
    files = {"docs/mounting.md": MOUNT_GUIDE, "docs/release-notes.md": notes}
    sectio.ingest(
        make_corpus(tmp_path / "c", files), fmt="markdown", profile="docs", collection="rel"
    )
    release = sectio.ask("What changed in 1.3.0?", collection="rel", record=False)
    facts = release.details["section_resolution"]
    assert (facts["section_key"], facts["via"]) == (
        "release-notes/1-3-0-2026-02-01",
        "learned_number",
    )
    whole = [e.section_key for e in release.evidence if e.doc_id == "docs/release-notes.md"]
    assert whole[:2] == [
        "release-notes/1-3-0-2026-02-01/features",
        "release-notes/1-3-0-2026-02-01/fixes",
    ]
    none = sectio.ask("what changed in 2.10?", collection="rel", record=False)
    assert "section_resolution" not in none.details
    # what sectio info shows: the two releases of the notes
    assert docs_summary(sectio.router("rel").scope("default"))["releases"] == 2


def _debian(package: str, *versions: str) -> str:
    return "".join(
        f"{package} ({v}) unstable; urgency=medium\n\n  * Upload {v} of {package}.\n\n"
        f" -- Jane Doe <jane@example.org>  Mon, 02 Mar 2026 10:00:00 +0100\n\n"
        for v in versions
    )


def test_a_release_of_several_packages_changelogs_is_read_where_the_question_names_it(
    sectio: Sectio, tmp_path: Path
) -> None:
    # /usr/share/doc's shape: a changelog per package, each named by its folder. "2.1"
    # names the 2.1-1 upload of the package the question names; with none named, or a
    # version of another package's ("Python 3.12"), no release is read
    files = {
        "zorbctl/changelog.Debian": _debian("zorbctl", "2.1-1", "2.0-1"),
        "libquux2/changelog.Debian": _debian("libquux", "2.1-1", "3.12-1"),
        "zorbctl/README.Debian": "zorbctl for Debian\n\nThe daemon is off by default.\n",
    }
    sectio.ingest(
        make_corpus(tmp_path / "c", files), fmt="markdown", profile="docs", collection="deb"
    )
    upload = sectio.ask("what was fixed in zorbctl 2.1?", collection="deb", record=False)
    assert upload.details["section_resolution"]["section_key"] == "zorbctl-2-1-1-unstable"
    assert upload.evidence[0].doc_id == "zorbctl/changelog.Debian"
    assert upload.evidence[0].section_key == "zorbctl-2-1-1-unstable"
    for question in ("what was fixed in 2.1?", "Does zorbctl run on Python 3.12?"):
        asked = sectio.ask(question, collection="deb", record=False)
        assert "section_resolution" not in asked.details, question


def test_a_changelog_section_of_a_guide_gives_its_places_up(sectio: Sectio, tmp_path: Path) -> None:
    # a migration guide's "Full changelog" section names the feature in the question's
    # words: the page about it comes first all the same
    migrate = (
        "# Migrating to v2\n\nWhat to change.\n\n## Full changelog\n\n### Mounting\n\n"
        f"{MOUNT_ENTRY}"
    )
    files = {"docs/mounting.md": MOUNT_GUIDE, "docs/migrating.md": migrate}
    corpus = make_corpus(tmp_path / "c", files)
    sectio.ingest(corpus, fmt="markdown", profile="docs", collection="cg")
    howto = sectio.ask("how to mount a wsgi app", collection="cg", record=False)
    assert _pages(howto) == [
        "docs/mounting.md",
        "docs/migrating.md",
    ]


def test_a_tree_ingested_from_inside_its_docs_folder_still_answers_api_questions(
    tmp_path: Path,
) -> None:
    """The `docs` layout's hard prefixes (`docs/api/`, `docs/`) hold no page of a tree
    whose paths are `reference/api.md`: they are not applied, and the route says so
    (before, every row was filtered out and the question abstained)."""
    files = {
        "index.md": "# Widgetron\n\nWidgetron runs widgets on a cluster.\n",
        "reference/api.md": (
            "# REST API\n\n## Authentication\n\nEvery request needs an "
            "`X-Widgetron-Token` header.\n\n## Endpoints\n\n`GET /v1/widgets` lists widgets.\n"
        ),
        "guides/configuration.md": "# Configuration\n\n## Timeouts\n\nThe default is 300 s.\n",
    }
    with Sectio(Settings(home=tmp_path / "home", embedder="fake")) as sx:
        sx.ingest(make_corpus(tmp_path / "tree", files), fmt="markdown", collection=COLL)
        result = sx.ask("how do I authenticate to the REST API", collection=COLL, record=False)
        assert result.route == "docs_plan"
        assert "path_prefixes" not in result.details["plan"]["filters"]
        assert any("hold no page" in n for n in result.details["route"]["notes"])
        assert result.evidence and result.evidence[0].doc_id == "reference/api.md"
        assert result.decision == "ANSWERABLE"


def test_layout_prefixes_that_hold_pages_are_kept(docs_sectio: Sectio) -> None:
    result = answer(docs_sectio, "What does POST /api/v1/orders do?")
    assert result.details["plan"]["filters"]["path_prefixes"] == ["docs/api/", "docs/"]
    assert not any("hold no page" in n for n in result.details["route"]["notes"])


def test_a_hint_path_of_a_record_whose_doc_id_differs_passes_the_domain_filter(
    sectio: Sectio, tmp_path: Path
) -> None:
    # chunk records may name a document by an id and keep its file path apart; a hint is a
    # path, so the document it names (and its domain) is looked up by path, not by id.
    row = {
        "chunk_id": "refunds-v2#0",
        "doc_id": "refunds-v2",
        "section_key": "refund-rules",
        "part_index": 0,
        "text": "Refund orders within 30 days.",
        "path": "docs/pay/refunds.md",
        "layer": "D0",
        "metadata": {"domain": "Billing"},
    }
    catalog_row = {
        **row,
        "chunk_id": "d1:refunds-v2",
        "section_key": "_doc",
        "layer": "D1",
        "doc_title": "Refund rules",
        "text": "Refund rules. Refund orders within 30 days.",
    }
    lines = "".join(json.dumps(r) + "\n" for r in (row, catalog_row))
    (tmp_path / "c.jsonl").write_text(lines, encoding="utf-8")
    sectio.ingest(tmp_path / "c.jsonl", profile="docs", collection="ids")
    scope = sectio.router("ids").scope("default")
    planner = next(r for r in sectio.router("ids").routes if isinstance(r, DocsPlanRoute))
    wanted = plan(target_doc_hints=["docs/pay/refunds.md"], **{"metadata.domain": "billing"})
    ex = PlanExecutor(scope, planner.planner.catalog(scope)).execute(wanted, "refund")
    assert ex.steps[0]["step"] == EXACT and not ex.steps[0].get("filtered"), ex.steps[0]
    assert ex.rows[0].step == EXACT and ex.rows[0].payload["doc_id"] == "refunds-v2"


REVERT = (
    "# git-revert\n\nRevert some existing commits.\n\n## Options\n\n"
    "**--cleanup=mode** sets how the commit message is cleaned up before committing.\n\n"
    "**--no-edit** keeps the message of the reverted commit and opens no editor.\n\n"
    "**--mainline=parent** names the parent of a merge commit to revert to.\n\n"
    "## Description\n\nGiven one or more existing commits, revert the changes they made.\n"
)


def test_a_term_entry_and_the_chunk_it_points_at_are_one_piece_of_evidence(
    sectio: Sectio, tmp_path: Path
) -> None:
    """Three options defined in one chunk are three D3 entries sharing its vector: only the
    first kept entry takes a place of the page, and the chunk itself stands right after it
    (before, two entries took both places of the page and the options were capped out)."""
    files = {"docs/revert.md": REVERT, **{k: v for k, v in FILES.items() if "api/" in k}}
    sectio.ingest(make_corpus(tmp_path / "c", files), fmt="markdown", collection="terms")
    scope = sectio.router("terms").scope("default")
    ex = PlanExecutor(scope, DocsPlanner().catalog(scope)).execute(
        plan(layers=(Layer.D3_ENTITY_CATALOG, Layer.D0_DOC_CHUNKS)),
        "revert with cleanup mode, no edit and mainline parent",
    )
    entries = [r for r in ex.rows if r.payload.get("source_chunk_id")]
    sources = [str(r.payload["source_chunk_id"]) for r in entries]
    assert entries and len(sources) == len(set(sources)), [r.chunk_id for r in ex.rows]
    ids = [r.chunk_id for r in ex.rows]
    first = ids.index(entries[0].chunk_id)
    assert ids[first + 1] == sources[0]  # the options chunk, right after its entry


IGNORE = (
    "# gitignore(5)\n\n## NAME\n\ngitignore - Specifies intentionally untracked files to ignore\n\n"
    "## DESCRIPTION\n\nA gitignore file specifies intentionally untracked files that Git "
    "should ignore. Patterns only for your own clone go into the exclude file of the "
    "repository, not into a gitignore file that is committed.\n"
)
ROUTERS = (
    "# Merging routers\n\nWriting all router code in one file becomes unwieldy. Merge "
    "routers to split them into files.\n\n## Details\n\nEach file exports its own router.\n"
)


def test_a_line_its_page_entry_holds_gives_the_entry_its_place(
    sectio: Sectio, tmp_path: Path
) -> None:
    """A man page's NAME line is its page's first paragraph, which the page's D1 entry
    holds: entry and line took both places of the page, and DESCRIPTION (what the
    question asks) was capped out. The line gives the entry its place; an intro of
    sentences (a section a question asks for) stays beside its entry."""
    files = {"docs/gitignore.md": IGNORE, "docs/routers.md": ROUTERS}
    sectio.ingest(make_corpus(tmp_path / "c", files), fmt="markdown", collection="lines")
    ex = PlanExecutor(*_scope_and_catalog(sectio, "lines")).execute(
        plan(), "gitignore untracked files ignore only in my own clone"
    )
    keys = [(r.payload["doc_id"], r.payload.get("section_key")) for r in ex.rows]
    assert ("docs/gitignore.md", "_d1") in keys, keys
    assert ("docs/gitignore.md", "gitignore-5/name") not in keys, keys
    assert ("docs/gitignore.md", "gitignore-5/description") in keys, keys
    ex = PlanExecutor(*_scope_and_catalog(sectio, "lines")).execute(
        plan(), "merging routers: router code in one file is unwieldy, split into files"
    )
    keys = [(r.payload["doc_id"], r.payload.get("section_key")) for r in ex.rows]
    assert {("docs/routers.md", "_d1"), ("docs/routers.md", "merging-routers")} <= set(keys)


def _scope_and_catalog(sx: Sectio, collection: str) -> tuple[Any, Any]:
    scope = sx.router(collection).scope("default")
    return scope, DocsPlanner().catalog(scope)


def test_a_numbered_unit_the_titles_teach_is_named_by_its_number(
    sectio: Sectio, tmp_path: Path
) -> None:
    # "Play N - ..." opens two titles: "play" is a kind word of this tree, "play 2" names
    # that page; "RFC 4" names the page whose title carries it though no heading does, and
    # no page's fourth step (a bare "4." heading); a word opening one title teaches nothing
    files = {
        "docs/plays/play-1.md": "# Play 1 - Listen first\n\nSpend the first month listening.\n",
        "docs/plays/play-2.md": (
            "# Play 2 - Build trust\n\nMeet each person one on one.\n\n"
            "## Action items\n\nBook the meetings.\n"
        ),
        "docs/rfc/003-advisor.md": (
            "---\ntitle: RFC 003 - A security advisor\n---\n\n## The problem\n\nNo advisor.\n"
        ),
        "docs/rfc/004-hiring.md": (
            "---\ntitle: RFC 004 - Hiring at scale\n---\n\n## The problem\n\nHiring is slow.\n\n"
            "## The proposal\n\nHire in pools.\n"
        ),
        "docs/setup.md": (
            "# Setup\n\n## 3. Install\n\nRun the installer.\n\n## 4. Sign in\n\nUse your badge.\n"
        ),
        "docs/lesson.md": "# Lesson 5 - Alone\n\nThe only lesson.\n",
    }
    sectio.ingest(
        make_corpus(tmp_path / "c", files), fmt="markdown", profile="docs", collection="units"
    )
    play = sectio.ask("What does play 2 say?", collection="units", record=False)
    facts = play.details["section_resolution"]
    assert facts["via"] == "learned_number" and facts["phrase"] == "play 2"
    assert play.evidence[0].doc_id == "docs/plays/play-2.md"
    rfc = sectio.ask("What did RFC 004 propose?", collection="units", record=False)
    assert rfc.details["section_resolution"]["via"] == "learned_number"
    assert rfc.evidence[0].doc_id == "docs/rfc/004-hiring.md"
    lesson = sectio.ask("what is in lesson 5?", collection="units", record=False)
    assert lesson.details.get("section_resolution", {}).get("via") != "learned_number"
    # what sectio info shows: the units the titles number
    assert docs_summary(sectio.router("units").scope("default"))["numbered_units"] == [
        "play",
        "rfc",
    ]
