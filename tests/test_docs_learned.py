"""The docs planner routes by the headings of its pages (issue 33): learned sections of a
Markdown tree, over real Qdrant Edge with the fake embedder.

The tree is made up for the test: the docs of a command-line tool ``brewkit``
(a command page whose commands each have an "Options" heading, a settings page,
a FAQ), so that headings repeat, one-word headings exist, and a FAQ entry is
asked in other words.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from sectio import Sectio, Settings
from sectio.contract.profile import CorpusProfile, load_profile
from sectio.contract.request import AskRequest
from sectio.contract.result import RetrievalResult
from sectio.ingest.markdown import read_markdown
from sectio.plan import DocsPlanRoute, stored
from sectio.plan.executor import SECTION
from sectio.plan.sections import docs_vocabulary, load_docs_vocabulary
from sectio.retrieve.answerability.rules.planner import names_heading
from sectio.retrieve.stats import heading_forms

COLL = "brew"
FILES = {
    "docs/cli.md": (
        "# Commands\n\nEvery brewkit command.\n\n"
        "## lock\n\nThe `lock` command writes the lock file.\n\n```bash\nbrewkit lock\n```\n\n"
        "### Options\n\n* `--regenerate`: ignore the existing lock file.\n\n"
        "## check\n\nThe `check` command validates the recipe file.\n\n"
        "```bash\nbrewkit check\n```\n\n"
        "### Options\n\n* `--strict`: fail on warnings.\n\n"
        "## brew\n\nThe `brew` command brews a batch.\n\n```bash\nbrewkit brew\n```\n\n"
        "### Options\n\n* `--dry-run`: print the steps only.\n"
    ),
    "docs/settings.md": (
        "# Settings\n\nHow brewkit reads its settings file.\n\n"
        "## Available settings\n\n"
        "### cache.dir\n\nThe folder where brewkit keeps downloaded hops. brewkit defaults to "
        "the user cache folder.\n\n"
        "### mash.max-temperature\n\nThe highest mash temperature brewkit accepts, in degrees.\n"
    ),
    "docs/faq.md": (
        "# FAQ\n\nQuestions brewkit users ask.\n\n"
        "## Why is the recipe resolution process slow?\n\nbrewkit reads every hop catalog "
        "once; a cold cache makes the first resolution slow.\n\n"
        "## Can brewkit brew two batches at once?\n\nNo: brewkit brews one batch at a time.\n"
    ),
    "docs/recipes.md": (
        "# Recipes\n\nA brewkit recipe lists grains, hops and yeast.\n\n"
        "## Options\n\nA recipe may set optional steps.\n"
    ),
}


def make_tree(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def brew_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("brew")
    with Sectio(Settings(home=root / "home", embedder="fake", traces=False)) as sx:
        sx.ingest(make_tree(root / "tree"), fmt="markdown", collection=COLL)
    return root / "home"


@pytest.fixture
def sx(brew_home: Path) -> Iterator[Sectio]:
    s = Sectio(Settings(home=brew_home, embedder="fake", traces=False))
    yield s
    s.close()


def _payloads(tmp_path: Path) -> list[dict[str, object]]:
    return [r.model_dump() for r in read_markdown(make_tree(tmp_path / "tree"))]


def _plan(sx: Sectio, question: str, **kw: object):  # type: ignore[no-untyped-def]
    route = next(r for r in sx.router(COLL).routes if isinstance(r, DocsPlanRoute))
    scope = sx.router(COLL).scope("default")
    return route.planner.run(scope, AskRequest.of(question, **kw))  # type: ignore[arg-type]


def test_vocabulary_reads_headings_parents_and_the_product_word(tmp_path: Path) -> None:
    v = docs_vocabulary(_payloads(tmp_path))
    assert v.products == frozenset({"brewkit"})
    lock = next(s for s in v.learned.sections if s.key == "commands/lock/options")
    assert "lock Options" in lock.phrases  # a heading every command repeats: with its parent
    check = next(s for s in v.learned.sections if s.key == "commands/check")
    assert "brewkit check" in check.phrases  # the product's word before it, as its text writes it
    found = v.match("brewkit lock options")
    assert (found.doc_id, found.key, found.via) == (
        "docs/cli.md",
        "commands/lock/options",
        "learned_title",
    )  # type: ignore[union-attr]
    assert v.match("What does brewkit check do?").key == "commands/check"  # type: ignore[union-attr]
    setting = v.match("What does the mash.max-temperature setting do?")
    assert setting is not None and setting.key == "settings/available-settings/mash-max-temperature"


def test_faq_entries_and_heading_paths_asked_in_other_words(tmp_path: Path) -> None:
    v = docs_vocabulary(_payloads(tmp_path))
    faq = v.match("Why is recipe resolution so slow?")
    assert faq is not None and faq.key == "faq/why-is-the-recipe-resolution-process-slow"
    assert v.match("Why is brewing slow?") is None  # not the FAQ's words


def _hop_yield_page(
    root: Path,
    section: str = "## Mash efficiency loss\n\nGrain left in the tun lowers the yield.\n",
) -> Path:
    page = root / "docs" / "hyc.md"
    page.parent.mkdir(parents=True)
    page.write_text(
        "# Hop Yield Calculation\n\nHow brewkit computes yield.\n\n" + section, encoding="utf-8"
    )
    return root


def test_the_initials_of_the_headings_above_are_where_a_heading_is(tmp_path: Path) -> None:
    v = docs_vocabulary([r.model_dump() for r in read_markdown(_hop_yield_page(tmp_path))])
    # "HYC" spells the page's title: it says where the heading is, not more of what is asked
    found = v.match("mash efficiency loss as an HYC rule")
    assert found is not None and found.key == "hop-yield-calculation/mash-efficiency-loss"
    assert v.match("mash efficiency loss as an XYZ rule") is None  # two words more: not named


def test_a_heading_above_written_in_the_plural_is_where_a_heading_is(tmp_path: Path) -> None:
    # "calculations" is the page title's "Calculation" in the plural: where, not what
    v = docs_vocabulary([r.model_dump() for r in read_markdown(_hop_yield_page(tmp_path))])
    found = v.learned.match("What is the mash efficiency loss of hop yield calculations?")
    assert found is not None and found.key == "hop-yield-calculation/mash-efficiency-loss"
    assert v.learned.match("What is the mash efficiency loss of hop yield estimates?") is None


def test_what_a_page_says_about_a_heading_names_it(tmp_path: Path) -> None:
    v = docs_vocabulary([r.model_dump() for r in read_markdown(_hop_yield_page(tmp_path))])
    # "what does X say about <heading>": "say" asks what the text says, it is not asked
    found = v.match("What does the hop yield page say about mash efficiency loss?")
    assert found is not None and found.key == "hop-yield-calculation/mash-efficiency-loss"
    # another word asked beside the heading: it is a term of the question, not its name
    assert v.match("What does the hop yield page recommend for mash efficiency loss?") is None


def test_examples_written_after_a_heading_are_not_more_of_what_is_asked(tmp_path: Path) -> None:
    v = docs_vocabulary([r.model_dump() for r in read_markdown(_hop_yield_page(tmp_path))])
    found = v.match("mash efficiency loss like sparge water")
    assert found is not None and found.key == "hop-yield-calculation/mash-efficiency-loss"
    assert v.match("mash efficiency loss with sparge water") is None


def test_terms_shared_headings_and_one_word_headings_name_nothing(tmp_path: Path) -> None:
    v = docs_vocabulary(_payloads(tmp_path))
    # "Options" titles sections of two pages: no guess
    assert v.match("options") is None
    # a one-word heading used as a word, not as a unit's name
    assert v.match("how do I lock the hop versions before brewing in winter?") is None
    # the title's words inside a question that asks more
    assert v.match("where does brewkit keep the cache dir on a shared build server?") is None
    # the product's name is no heading of it
    assert v.match("install brewkit") is None
    # a named page restricts the candidates to its sections
    assert v.match("brewkit lock options", ["docs/settings.md"]) is None


def test_ask_answers_the_named_section_whole_first(sx: Sectio) -> None:
    result = sx.ask("brewkit lock options", collection=COLL, record=False)
    assert result.route == "docs_plan"
    assert result.resolved_section_key == "commands/lock/options"
    via = result.details["section_resolution"]
    assert via["via"] == "learned_title" and via["phrase"] == "lock Options"
    first = result.evidence[0]
    assert (first.doc_id, first.section_key) == ("docs/cli.md", "commands/lock/options")
    assert (first.model_extra or {}).get("plan_step") == SECTION
    assert result.decision == "ANSWERABLE"


def test_a_section_is_seeded_whole_and_in_order(sx: Sectio) -> None:
    outcome = _plan(sx, "the lock command")
    rows = [e for e in outcome.evidence if (e.model_extra or {}).get("plan_step") == SECTION]
    assert [e.section_key for e in rows] == ["commands/lock"] * len(rows)
    assert [e.part_index for e in rows] == sorted(e.part_index for e in rows) and len(rows) >= 2
    assert outcome.section_key == "commands/lock"
    assert "docs/cli.md" in outcome.details.route["anchors"]["target_doc_hints"]  # type: ignore[index]


def test_no_section_for_an_unnamed_question_or_a_caller_section(sx: Sectio) -> None:
    outcome = _plan(sx, "how do I lock the hop versions before brewing in winter?")
    assert outcome.section_key is None and outcome.details.section_resolution is None
    assert all((e.model_extra or {}).get("plan_step") != SECTION for e in outcome.evidence)
    # a caller's section is the caller's, not the heading the question names
    forced = _plan(sx, "brewkit lock options", section_key="commands/check")
    assert forced.section_key == "commands/check"
    assert {e.section_key for e in forced.evidence} == {"commands/check"}


def test_a_callers_section_is_read_whole_without_its_page(sx: Sectio) -> None:
    # a short question far from every page: the caller named the section, so it is answered
    result = sx.ask("what does it do?", collection=COLL, section_key="commands/check", record=False)
    assert (result.route, result.decision) == ("docs_plan", "ANSWERABLE")
    assert result.resolved_section_key == "commands/check"
    assert result.details["section_resolution"]["how"] == "flag"
    assert result.details["answerability"]["signals"]["rule"] == "named_document"
    rows = result.evidence
    assert {(e.doc_id, e.section_key) for e in rows} == {("docs/cli.md", "commands/check")}
    assert [e.part_index for e in rows] == sorted(e.part_index for e in rows)
    assert all((e.model_extra or {}).get("plan_step") == SECTION for e in rows)
    # a section key no page holds: nothing to read, nothing answered from elsewhere
    none = sx.ask("what does it do?", collection=COLL, section_key="commands/nope", record=False)
    assert none.evidence == [] and none.resolved_section_key is None


def test_learning_off_in_the_profile_turns_the_headings_off(tmp_path: Path) -> None:
    profile = tmp_path / "docs_nolearn.toml"
    profile.write_text(
        'name = "docs_nolearn"\nengine = "docs_planner"\n[docs]\n[learning]\nenabled = false\n',
        encoding="utf-8",
    )
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as s:
        s.ingest(
            make_tree(tmp_path / "tree"), fmt="markdown", collection=COLL, profile=str(profile)
        )
        result = s.ask("brewkit lock options", collection=COLL, record=False)
        assert s.learned(COLL) == {"enabled": False}
    assert result.resolved_section_key is None
    assert all((e.model_extra or {}).get("plan_step") != SECTION for e in result.evidence)


def test_a_web_address_names_no_product(tmp_path: Path) -> None:
    # every page links out as "https://..." before its headings' words: "https" is no product
    payloads = _payloads(tmp_path)
    for p in payloads:
        p["text"] = (
            f"See https://{p['section_key']}.example.org/{p['section_key']} first. {p['text']}"
        )
    assert docs_vocabulary(payloads).products == frozenset({"brewkit"})


def test_info_shows_the_headings_the_planner_learned(brew_home: Path) -> None:
    from click.testing import CliRunner

    from sectio.cli.base import cli as main

    env = {"SECTIO_HOME": str(brew_home), "SECTIO_EMBEDDER": "fake"}
    runner = CliRunner()
    out = runner.invoke(main, ["info", "-c", COLL, "--json"], env=env)
    assert out.exit_code == 0, out.output
    learned = json.loads(out.output)["collections"][0]["learned"]
    assert learned["enabled"] is True and learned["engine"] == "docs_planner"
    assert learned["product_words"] == ["brewkit"] and learned["documents"] == 4
    cli_page = learned["per_document"]["docs/cli.md"]
    assert cli_page["headings"] == 7  # Commands, lock, check, brew and their three Options
    assert sum(p["phrases"] for p in learned["per_document"].values()) == learned["title_phrases"]
    assert learned["title_phrases"] > learned["sections"]  # headings with parents, product words
    text = runner.invoke(main, ["info", "-c", COLL], env=env).output
    assert "learned headings (default, docs planner): 4 pages, " in text
    assert f"docs/cli.md: 7 headings, {cli_page['phrases']} phrases" in text
    assert "learned routing: off" not in text


def test_the_products_name_in_a_heading_names_nothing() -> None:
    from sectio.plan.sections import _Heading, _phrases

    h = _Heading("[G-1] Argo CD (API Server) must stay fast", ("Goals", "[G-1] ..."), [])
    phrases = _phrases(h, False, frozenset({"argo", "cd"}), lambda w: len(w) > 2)
    assert "API Server" in phrases
    assert "Argo CD" not in phrases  # "Which page explains Argo CD?" names no goal


# --- the vocabulary stored with the collection ------------------------------------------
def test_ingest_stores_the_docs_vocabulary_the_next_process_reads(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Sectio(Settings(home=home, embedder="fake", traces=False)) as sx:
        sx.ingest(make_tree(tmp_path / "tree"), fmt="markdown", collection=COLL)
        scope = sx.router(COLL).scope("default")
        path = stored.vocabulary_file(scope)
        assert path is not None and path.is_file()  # learned at ingest, not at a first query
        held = stored.load(scope)
        assert held is not None and held[1] == frozenset({"brewkit"})
        path.unlink()
        learned = load_docs_vocabulary(scope)  # learned from the page chunks again
        assert learned is not None and learned.learned.sections == held[0]
        assert stored.load(scope) == held  # ... and stored again, the same
        data = json.loads(path.read_text())
        row = next(r for r in data["sections"] if r[1] == "settings/available-settings/cache-dir")
        row[4].insert(0, "hop stash folder")
        path.write_text(json.dumps(data))
    with Sectio(Settings(home=home, embedder="fake", traces=False)) as sx:
        scope = sx.router(COLL).scope("default")
        vocab = load_docs_vocabulary(scope)  # the stored file is what the process reads
        found = vocab.match("What is the hop stash folder?") if vocab else None
        assert found is not None and found.key == "settings/available-settings/cache-dir"
        data["digest"] = "another corpus"
        path.write_text(json.dumps(data))
        assert stored.load(scope) is None  # measured on another corpus: learned again
        vocab = load_docs_vocabulary(scope)
        assert vocab is not None and vocab.match("What is the hop stash folder?") is None
        assert stored.load(scope) is not None


def _expect_page(tmp_path: Path, matchers: str) -> Path:
    """A docs tree of one API page whose "Matchers" heading holds ``matchers`` (its
    headings and texts); the tree's root."""
    page = tmp_path / "tree" / "docs" / "expect.md"
    page.parent.mkdir(parents=True)
    page.write_text(
        "# Expect\n\nAssertions on values.\n\n## Matchers\n\nEvery matcher.\n\n" + matchers,
        encoding="utf-8",
    )
    return tmp_path / "tree"


def _api_vocabulary(tmp_path: Path):  # type: ignore[no-untyped-def]
    tree = _expect_page(
        tmp_path,
        "### .toBe(value)\n\nCompares with Object.is.\n\n"
        "### .toEqual(value)\n\nCompares recursively.\n\n"
        "### .toHaveBeenCalledWith(arg1, arg2, ...)\n\nChecks the arguments of a call.\n\n"
        "### beforeAll(fn, timeout)\n\nRuns once before the tests.\n",
    )
    return docs_vocabulary([r.model_dump() for r in read_markdown(tree)])


@pytest.mark.parametrize(
    ("question", "key"),
    [
        ("What does toHaveBeenCalledWith do?", "tohavebeencalledwith-arg1-arg2"),
        ("What does .toHaveBeenCalledWith() do?", "tohavebeencalledwith-arg1-arg2"),
        ("What is beforeAll?", "beforeall-fn-timeout"),
        ("what does `tobe` do?", "tobe-value"),
        ("What does tohavebeencalledwith do?", None),  # not written as code: a word
        ("How do I compare a value?", None),  # a call's argument names no section
        ("toBe or toEqual for arrays?", None),  # two of them, and a word more
        ("toBe vs toEqual?", "tobe-value"),  # two, and nothing more: a pair
    ],
)
def test_a_heading_that_is_a_call_is_named_by_its_name_written_as_code(
    tmp_path: Path, question: str, key: str | None
) -> None:
    found = _api_vocabulary(tmp_path).match(question)
    assert (found.key.rsplit("/", 1)[-1] if found else None) == key


def test_two_headings_named_together_are_a_pair_in_question_order(tmp_path: Path) -> None:
    vocab = _api_vocabulary(tmp_path)
    found = vocab.match("toEqual vs toBe: when should I use which?")
    assert found is not None and found.also is not None
    assert (found.key, found.also.key) == (
        "expect/matchers/toequal-value",
        "expect/matchers/tobe-value",
    )
    # one heading is no pair; three headings name nothing (never a guess)
    assert vocab.match("What does toBe do?").also is None  # type: ignore[union-attr]
    assert vocab.match("toBe vs toEqual vs beforeAll?") is None


def test_the_planner_reads_both_headings_of_a_pair_whole(tmp_path: Path) -> None:
    tree = _expect_page(
        tmp_path,
        "### .toBe(value)\n\nCompares with Object.is.\n\n"
        "### .toEqual(value)\n\nCompares recursively.\n\nIgnores undefined properties.\n\n"
        "### .toStrictEqual(value)\n\nAlso checks undefined properties and types.\n",
    )
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as sx:
        sx.ingest(tree, fmt="markdown", collection="api")
        result = sx.ask("toEqual vs toStrictEqual: when should I use which?", collection="api")
    facts = result.details.section_resolution
    assert facts is not None and facts.via == "learned_title"
    assert facts.section_key == "expect/matchers/toequal-value"
    assert (
        facts.also is not None and facts.also.section_key == "expect/matchers/tostrictequal-value"
    )
    assert result.details.sections == [facts.section_key, facts.also.section_key]
    whole = [
        e.section_key for e in result.evidence if (e.model_extra or {}).get("plan_step") == SECTION
    ]
    assert list(dict.fromkeys(whole)) == [  # both read whole, in the question's order
        "expect/matchers/toequal-value",
        "expect/matchers/tostrictequal-value",
    ]


def test_a_call_heading_named_as_code_is_a_named_heading() -> None:
    """Answerability: a question that writes a call heading's name as code names it."""
    headings = frozenset(
        h for t in (".toBe(value)", "beforeAll(fn, timeout)") for h in heading_forms(t)
    )
    assert names_heading("toBe or toEqual: which one?", ("tobe", "or", "toequal"), headings)
    assert names_heading(
        "When does beforeAll() run?", ("when", "does", "beforeall", "run"), headings
    )
    assert not names_heading("to be or not", ("to", "be", "or", "not"), headings)
    assert not names_heading("what does tobe do", ("what", "does", "tobe", "do"), headings)


def test_a_heading_the_question_writes_goes_first_among_the_rows_found(tmp_path: Path) -> None:
    # the question writes "brew-codemods" but asks more than it (no section is read whole);
    # BM25 finds the page's introduction first (migrate, Mocha, suites): the titled section
    # is put first among the rows the plan keeps, which stay the same rows
    page = tmp_path / "tree" / "docs" / "migrate.md"
    page.parent.mkdir(parents=True)
    page.write_text(
        "# Migrating\n\nMigrate your tests from Mocha: migrate the Mocha suites, migrate the "
        "Mocha mocks, migrate the tests.\n\n## brew-codemods\n\nA tool that rewrites files.\n\n"
        "## Hops\n\nHops are added late in the boil.\n\n## Yeast\n\nPitch the yeast cold. "
        "Keep the yeast at the temperature of the recipe.\n",
        encoding="utf-8",
    )
    question = "Can brew-codemods migrate my Mocha suites and mocks without the boil?"
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as s:
        s.ingest(tmp_path / "tree", fmt="markdown", collection="m")
        result = s.ask(question, collection="m", record=False)
    assert result.route == "docs_plan" and result.resolved_section_key is None  # not named
    keys = [e.section_key for e in result.evidence]
    assert keys[0] == "migrating/brew-codemods" and "migrating" in keys
    hybrid = next(st for st in result.details["steps"] if st["step"] == "hybrid")
    assert hybrid["titled_first"] == ["migrating/brew-codemods"]


def _tree_answers(
    tmp_path: Path, pages: dict[str, str], questions: list[str]
) -> list[RetrievalResult]:
    """``ask`` of each question over a fresh docs tree of ``pages`` (path under ``docs/``:
    Markdown), ingested with the fake embedder."""
    for name, text in pages.items():
        page = tmp_path / "tree" / "docs" / name
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(text, encoding="utf-8")
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as s:
        s.ingest(tmp_path / "tree", fmt="markdown", collection="m")
        return [s.ask(q, collection="m", record=False) for q in questions]


#: A page of the tree that no question asks about (it makes the others' words rarer).
HOPS = {"hops.md": "# Hops\n\nHops are added late in the boil.\n"}


def test_a_name_written_with_a_slash_before_its_number_names_the_heading_that_joins_it(
    tmp_path: Path,
) -> None:
    # the heading writes "HTTP2", the question "HTTP/2": read joined, it is the heading the
    # question writes (its rows first), as it is when the question writes "HTTP2"
    pages = {
        "adapters/standalone.md": (
            "# Standalone adapter\n\nServe the router over plain Node.\n\n## HTTP2\n\n"
            "Pass a secure server created with createSecureServer to the adapter.\n\n"
            "## Dev server\n\nRestart it when the router changes.\n"
        ),
        "rpc.md": (
            "# RPC\n\nOverride the default HTTP method of a procedure: a query speaks GET, "
            "a mutation POST, the server speaks the method the client picks.\n"
        ),
        **HOPS,
    }
    slash, joined = _tree_answers(
        tmp_path,
        pages,
        ["Can the standalone server speak HTTP/2?", "Can the standalone server speak HTTP2?"],
    )
    for result in (slash, joined):  # (the fake embedder's evidence is weak: the plan's rows)
        hybrid = next(st for st in result.details["steps"] if st["step"] == "hybrid")
        assert hybrid["titled_first"] == ["standalone-adapter/http2"]
        assert hybrid["rows"][0].endswith("standalone.md#standalone-adapter/http2#0")


def test_a_heading_that_writes_a_named_pages_name_and_more_of_the_question_wins(
    tmp_path: Path,
) -> None:
    # the question names the page ``reference/mashclient.md`` by its file name, and writes
    # the tutorial's heading "Using MashClient" whole: that section is answered whole first
    pages = {
        "reference/mashclient.md": (
            "# Mash client - `MashClient`\n\nThe class that talks to a mash tun.\n\n"
            "::: brewkit.mashclient.MashClient\n"
        ),
        "tutorial.md": (
            "# Tutorial\n\nBrew a first batch.\n\n## Using `MashClient`\n\nCreate a MashClient "
            "with the tun's address and call its methods.\n\n## Cleaning\n\nRinse the tun.\n"
        ),
        **HOPS,
    }
    questions = [
        "How do I use the MashClient?",
        "What is in mashclient.md?",
        "How do I clean the MashClient?",
    ]
    used, named, other = _tree_answers(tmp_path, pages, questions)
    assert (used.resolved_doc_id, used.resolved_section_key) == (
        "docs/tutorial.md",
        "tutorial/using-mashclient",
    )
    assert used.evidence[0].section_key == "tutorial/using-mashclient"
    # the page named alone, or a heading without the page's name: the named page is read
    assert named.resolved_section_key is None
    assert named.evidence[0].doc_id == "docs/reference/mashclient.md"
    assert other.resolved_section_key is None


def test_a_heading_that_writes_a_titled_pages_name_and_more_wins(tmp_path: Path) -> None:
    # "WebSockets" titles a page (named as code); the question writes another page's
    # heading, "WebSockets or polling?", whole: that section is answered first
    pages = {
        "websockets.md": "# WebSockets\n\nOpen a socket to the server.\n",
        "events.md": (
            "# Events\n\nThe server pushes events.\n\n## WebSockets or polling?\n\nPrefer "
            "sockets when events are frequent.\n\n## Retries\n\nRetry after a drop.\n"
        ),
        **HOPS,
    }
    (asked,) = _tree_answers(tmp_path, pages, ["WebSockets or polling: which should I use?"])
    assert (asked.resolved_doc_id, asked.resolved_section_key) == (
        "docs/events.md",
        "events/websockets-or-polling",
    )


def test_a_title_a_section_shares_with_those_below_it_is_the_topmost_one(tmp_path: Path) -> None:
    page = tmp_path / "docs" / "config.md"
    page.parent.mkdir(parents=True)
    page.write_text(
        "# Configuration\n\nEvery option of brewkit.\n\n## `mashThreshold` [object]\n\n"
        "The least efficiency a mash must reach.\n\n### `mashThreshold.global.sugar` [number]"
        "\n\nThe least sugar.\n\n## `boilTime` [number]\n\nMinutes of boil.\n",
        encoding="utf-8",
    )
    v = docs_vocabulary([r.model_dump() for r in read_markdown(tmp_path)])
    question = "How do I set a mashThreshold so the brew fails below 80%?"
    assert v.titled(question) == {("docs/config.md", "configuration/mashthreshold-object")}
    # a title two pages have names no page
    other = tmp_path / "docs" / "hops.md"
    other.write_text("# Hops\n\n## `mashThreshold` [object]\n\nThe hops' own.\n", encoding="utf-8")
    both = docs_vocabulary([r.model_dump() for r in read_markdown(tmp_path)])
    assert both.titled(question) == frozenset()


def test_known_words_a_heading_the_question_writes_holds_are_not_unseen_pairs() -> None:
    # the plan put first the rows of a section whose own title the question writes:
    # its words are the collection's, as a heading of it writes them
    from types import SimpleNamespace

    from sectio.retrieve.answerability.rules.unseen import titled

    def ctx(steps: list[dict[str, object]] | None) -> SimpleNamespace:
        return SimpleNamespace(outcome=SimpleNamespace(details=SimpleNamespace(steps=steps)))

    assert titled(ctx([{"step": "hybrid", "titled_first": ["reference/coveragethreshold"]}]))
    assert not titled(ctx([{"step": "hybrid"}])) and not titled(ctx(None))


def test_a_one_word_title_beside_a_word_of_where_it_is_is_written(tmp_path: Path) -> None:
    # "Problems" alone is a word of the question; beside the initials of its page's title
    # ("HYC" for "Hop Yield Calculation") it is that page's heading
    tree = _hop_yield_page(tmp_path, "## Problems\n\nA cold mash lowers the yield.\n")
    v = docs_vocabulary([r.model_dump() for r in read_markdown(tree)])
    assert v.titled("What problems can HYC cause?") == {
        ("docs/hyc.md", "hop-yield-calculation/problems")
    }
    assert v.titled("What problems can a cold mash cause?") == frozenset()


def test_a_docs_collection_drafts_a_docs_planner_profile_that_keeps_its_planner(
    brew_home: Path, tmp_path: Path
) -> None:
    """``sectio profile draft -c`` of a docs tree: re-ingested with the draft, the tree keeps
    the docs planner and its learned headings (a section router's draft had lost both:
    every question went to ``fallback_search``)."""
    from click.testing import CliRunner

    from sectio.cli.base import cli as main

    env = {"SECTIO_HOME": str(brew_home), "SECTIO_EMBEDDER": "fake"}
    drafted = CliRunner().invoke(main, ["profile", "draft", "-c", COLL], env=env)
    assert drafted.exit_code == 0, drafted.output
    out = tmp_path / "brew.toml"
    out.write_text(drafted.output, encoding="utf-8")
    profile = load_profile(out)
    assert profile.engine == "docs_planner" and not profile.sections
    assert profile.docs["default_prefixes"] == ["docs/"]
    assert profile.docs["general_prefer_prefixes"] == ["docs/"]  # no index page: the root
    assert "api_prefixes" not in profile.docs  # no api or reference page: the default stays
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as s:
        s.ingest(make_tree(tmp_path / "tree"), fmt="markdown", collection=COLL, profile=str(out))
        result = s.ask("brewkit lock options", collection=COLL, record=False)
        assert s.learned(COLL)["engine"] == "docs_planner"
    assert result.route == "docs_plan" and result.resolved_section_key == "commands/lock/options"


def test_a_drafted_docs_profile_names_the_trees_folders_by_kind() -> None:
    from sectio.retrieve.learned.draft import draft_profile

    paths = ["docs/index.md", "docs/reference/cli.md", "docs/reference/config.md",
             "docs/guides/deploy.md", "docs/architecture.md", "docs/faq.md"]  # fmt: skip
    text = draft_profile(
        [{"doc_id": p, "section_key": "intro"} for p in paths],
        name="kit",
        profile=load_profile("docs"),
    )
    docs = load_profile_text(text).docs
    assert docs["api_prefixes"] == docs["api_hard_prefixes"] == ["docs/reference/", "docs/"]
    assert docs["architecture_prefixes"] == ["docs/architecture.md", "docs/"]
    assert docs["logic_prefixes"] == ["docs/guides/", "docs/"]
    assert docs["general_prefer_prefixes"] == ["docs/index.md", "docs/"]
    flat = draft_profile(
        [{"doc_id": p} for p in ("api.md", "advanced/ssl.md", "index.md")],
        name="flat",
        profile=load_profile("docs"),
    )
    flat_docs = load_profile_text(flat).docs
    assert flat_docs["api_prefixes"] == ["api.md"]
    assert "api_hard_prefixes" not in flat_docs  # no root: no filter to api.md alone
    assert load_profile("docs").lexical == load_profile_text(flat).lexical


def load_profile_text(text: str) -> CorpusProfile:
    """``text`` read as a profile file (a draft must parse as one)."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "drafted.toml"
        path.write_text(text, encoding="utf-8")
        return load_profile(path)


def test_words_before_a_unit_word_name_a_title_only_with_a_salient_one(tmp_path: Path) -> None:
    # "the page" puts "is the" before the unit word "page"; one title holds "is the", but
    # those words say nothing: no section is named; "the mash temperature page" names one
    # (twelve pages of their own words, so that "mash" is rare enough to say what is asked)
    pages = {
        "results.md": (
            "# Results\n\nWhat was measured.\n\n## Routing: is the right section answered?\n\n"
            "Hit at one of the routed answers.\n\n## Mash temperature\n\nKeep the mash warm.\n"
        ),
        **{
            f"grain{i}.md": f"# Grain {i}\n\nMalt{i} and barley{i} for batch{i}.\n"
            for i in range(12)
        },
    }
    vague, named = _tree_answers(
        tmp_path, pages, ["What is the page catalog?", "What does the mash temperature page say?"]
    )
    assert vague.resolved_section_key is None
    assert named.resolved_section_key == "results/mash-temperature"
