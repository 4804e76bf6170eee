"""Section routing learned from the records (issue 33): numbers, titles, shared keys, names.

Real Qdrant Edge on tmp dirs and the fake embedder (the routing here is
lexical: numbers and titles, no similarity). The corpora are made up for the
test: a two-document regulation-like corpus, a numbered standard and a
corpus of product sheets that share section keys.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from sectio import Sectio, Settings
from sectio.contract.profile import CorpusProfile, load_profile
from sectio.contract.result import RetrievalResult
from sectio.errors import ProfileError
from sectio.retrieve.learned import LearnedVocabulary
from sectio.retrieve.learned.names import name_variants
from sectio.retrieve.learned.numbers import Number, question_refs, title_number
from tests.helpers import chunk, write_jsonl

ACT = "Data Stewardship Regulation (EU) 2031/7"


def _regulation() -> list[dict[str, object]]:
    rows = []
    articles = {
        1: "Subject-matter and objectives",
        2: "Material scope",
        3: "Territorial scope",
        17: "Right to erasure ('right to be forgotten')",
        18: "Right to restriction of processing",
    }
    for n, title in articles.items():
        for part in range(3):
            rows.append(
                chunk(
                    "dsr",
                    f"article_{n}",
                    part,
                    f"Article {n} paragraph {part + 1}: the steward shall keep records {n}.",
                    doc_title=ACT,
                    section_title=f"Article {n} - {title}",
                    aliases=["DSR"],
                )
            )
    for n in (2, 17):
        rows.append(
            chunk(
                "dsr",
                f"recital_{n}",
                0,
                f"Recital {n}: whereas stewards keep records.",
                doc_title=ACT,
                section_title=f"Recital {n}",
            )
        )
    return rows


def _standard() -> list[dict[str, object]]:
    titles = {
        "s1": "1. Overview",
        "s4": "4. Flow Control",
        "s4.2": "4.2. Increasing Flow Control Limits",
        "s19.20": "19.20. HANDSHAKE_DONE Frames",
        "sA": "Appendix A. Pseudocode",
        "sA.1": "A.1. Sample Variable-Length Integer Decoding",
    }
    rows = [
        chunk(
            "std1",
            key,
            0,
            f"Text of {title} in the transport standard.",
            doc_title="STD 1: A Transport Protocol",
            section_title=title,
        )
        for key, title in titles.items()
    ]
    rows += [
        chunk(
            "std2",
            key,
            0,
            f"Text of {title} in the security standard.",
            doc_title="STD 2: Securing the Transport",
            section_title=title,
        )
        for key, title in {"s1": "1. Introduction", "s4": "4. Key Update"}.items()
    ]
    return rows


@pytest.fixture(scope="module")
def sx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sectio]:
    tmp = tmp_path_factory.mktemp("learned")
    s = Sectio(Settings(home=tmp / "home", embedder="fake", traces=False))
    s.ingest(write_jsonl(tmp / "reg.jsonl", _regulation()), collection="reg")
    s.ingest(write_jsonl(tmp / "std.jsonl", _standard()), collection="std")
    off = tmp / "off.toml"
    off.write_text('name = "off"\n[learning]\nenabled = false\n')
    s.ingest(write_jsonl(tmp / "reg2.jsonl", _regulation()), profile=str(off), collection="off")
    yield s
    s.close()


@contextmanager
def _ingested(tmp_path: Path, rows: list[dict[str, object]]) -> Iterator[Sectio]:
    """A fresh home (the fake embedder) with ``rows`` ingested as the collection ``c``."""
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as s:
        s.ingest(write_jsonl(tmp_path / "c.jsonl", rows), collection="c")
        yield s


def _parts(result: object) -> list[tuple[str, int]]:
    return [(e.section_key, e.part_index) for e in result.evidence]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("question", "key"),
    [
        ("what does article 17 say about erasure", "article_17"),
        ("art. 3 territorial", "article_3"),
        ("Art 17(3)", "article_17"),
        ("§ 18", "article_18"),
        ("recital 17", "recital_17"),
        ("ARTICLE 2", "article_2"),
    ],
)
def test_a_numbered_reference_answers_that_section_whole(
    sx: Sectio, question: str, key: str
) -> None:
    result = sx.ask(question, collection="reg")
    assert (result.route, result.resolved_doc_id, result.resolved_section_key) == (
        "section",
        "dsr",
        key,
    )
    assert result.details["section_resolution"]["via"] == "learned_number"
    assert [p for k, p in _parts(result) if k == key] == sorted(
        p for k, p in _parts(result) if k == key
    )
    assert result.decision == "ANSWERABLE"


def _answered_whole_in_order(result: RetrievalResult, first: str, second: str) -> None:
    """``first`` then ``second`` read whole on the section route, ``second`` as ``also``."""
    assert (result.route, result.resolved_section_key) == ("section", first)
    assert result.details["sections"] == [first, second]
    assert result.details["section_resolution"]["also"]["section_key"] == second
    assert _parts(result) == [(first, p) for p in range(3)] + [(second, p) for p in range(3)]


def test_two_numbered_sections_are_both_answered_whole_in_order(sx: Sectio) -> None:
    result = sx.ask("compare article 17 and Art. 18 of the DSR", collection="reg")
    _answered_whole_in_order(result, "article_17", "article_18")
    # one number, one section; a number the document lacks adds none
    assert "sections" not in sx.ask("article 17 and article 99", collection="reg").details


def test_two_titles_named_together_are_both_answered_whole_in_order(sx: Sectio) -> None:
    # neither title alone is what it asks; together they are, in the question's order
    result = sx.ask("material scope vs territorial scope of the regulation", collection="reg")
    _answered_whole_in_order(result, "article_2", "article_3")
    between = sx.ask(
        "the difference between material scope and territorial scope", collection="reg"
    )
    assert between.details["sections"] == ["article_2", "article_3"]
    # one title is one section; a word more than the pair's titles makes no pair
    assert "sections" not in sx.ask("territorial scope", collection="reg").details
    more = sx.ask("material scope vs territorial scope for processors abroad", collection="reg")
    assert "sections" not in more.details


def test_a_title_beside_one_that_claims_alone_joins_it_as_a_pair() -> None:
    v = LearnedVocabulary.from_payloads(
        [
            {
                "doc_id": "act",
                "section_key": "article_5",
                "section_title": "Prohibited practices",
            },
            {
                "doc_id": "act",
                "section_key": "article_6",
                "section_title": "Classification rules for high-risk AI systems",
            },
        ]
    )
    alone = v.match("classification rules for high-risk AI systems")
    assert alone is not None and (alone.key, alone.also) == ("article_6", None)
    # the long title claims this question alone; the short one beside it comes first
    found = v.match("Prohibited practices, Classification rules for high-risk AI systems")
    assert found is not None and found.also is not None
    assert (found.key, found.also.key) == ("article_5", "article_6")


def test_a_title_is_named_without_the_cross_reference_it_ends_with() -> None:
    v = LearnedVocabulary.from_payloads(
        [
            {
                "doc_id": "act",
                "section_key": "annex_ii",
                "section_title": "Annex II - List of hazardous tasks referred to in Article 5(1)",
            },
            {"doc_id": "act", "section_key": "article_5", "section_title": "Article 5 - Tasks"},
        ]
    )
    found = v.match("the list of hazardous tasks")
    assert found is not None and (found.key, found.via) == ("annex_ii", "learned_title")
    # the tail alone is no title: "Article 5" is the article's own number
    other = v.match("what does article 5 say")
    assert other is not None and other.key == "article_5"


def test_a_number_the_corpus_lacks_routes_nowhere(sx: Sectio) -> None:
    result = sx.ask("article 99 penalties", collection="reg")
    assert result.resolved_section_key is None
    assert result.route != "section"


def test_a_title_names_its_section(sx: Sectio) -> None:
    result = sx.ask("the right to be forgotten", collection="reg")
    assert (result.route, result.resolved_section_key) == ("section", "article_17")
    assert result.details["section_resolution"]["via"] == "learned_title"
    assert result.details["section_resolution"]["phrase"] == "right to be forgotten"


@pytest.mark.parametrize(
    "question",
    [
        "What does the DSR say about the right to erasure?",
        "Tell me about the right to erasure",
        "Explain the right to erasure",
        "Can you summarize the right to erasure?",
    ],
)
def test_asking_for_what_a_text_says_names_its_section(sx: Sectio, question: str) -> None:
    # "say", "tell me about", "explain" ask for the text: they do not count against the title
    result = sx.ask(question, collection="reg")
    assert (result.route, result.resolved_section_key) == ("section", "article_17")
    assert result.details["section_resolution"]["via"] == "learned_title"


def test_a_word_asked_beside_a_title_is_more_of_the_question(sx: Sectio) -> None:
    for question in (
        "What fines does the DSR set for the right to erasure?",
        "Tell me about fines for the right to erasure",
    ):
        assert sx.ask(question, collection="reg").resolved_section_key is None, question


def test_a_profile_key_turns_learning_off(sx: Sectio) -> None:
    result = sx.ask("what does article 17 say about erasure", collection="off")
    assert result.route != "section" and result.resolved_section_key is None


def test_a_document_is_named_by_its_title_without_its_number(sx: Sectio) -> None:
    result = sx.ask("Data Stewardship Regulation article 18", collection="reg")
    assert result.details["doc_resolution"]["how"] == "exact"
    assert (result.resolved_doc_id, result.resolved_section_key) == ("dsr", "article_18")


def test_a_document_is_named_by_the_name_in_parentheses_after_its_number(
    tmp_path: Path,
) -> None:
    """ "Regulation (EU) 2031/9 (Model Safety Act)": people say "the Model Safety Act"."""
    rows = [
        chunk(
            "msa",
            "article_1",
            0,
            "Article 1: providers keep logs of every model they place on the market.",
            doc_title="Regulation (EU) 2031/9 (Model Safety Act)",
            section_title="Article 1 - Logs",
        ),
        chunk(
            "lamps",
            "article_1",
            0,
            "Article 1: lamps sold in the Union carry a label.",
            doc_title="Directive (EU) 2030/1 on lamps",
            section_title="Article 1 - Labels",
        ),
    ]
    with _ingested(tmp_path, rows) as s:
        result = s.ask("What does article 1 of the Model Safety Act say?", collection="c")
        assert result.details["doc_resolution"]["how"] == "exact"
        assert (result.resolved_doc_id, result.resolved_section_key) == ("msa", "article_1")


@pytest.mark.parametrize(
    "asked",
    ["the Apache 2 license", "Apache v2", "the Apache-2.0 license", "the Apache License"],
)
def test_a_document_is_named_by_its_first_word_and_version(tmp_path: Path, asked: str) -> None:
    """ "Apache License, Version 2.0": people say "Apache 2"; "Version" and the comma are
    no part of its name ("EUPL v. 1.2" likewise)."""
    rows = [
        chunk(
            "apache-2.0",
            "s7",
            0,
            "7. Disclaimer of Warranty. The work is provided on an as is basis.",
            doc_title="Apache License, Version 2.0",
            section_title="7. Disclaimer of Warranty",
        ),
        chunk(
            "eupl-1.2",
            "s7",
            0,
            "7. Disclaimer of Warranty. The work is a work in progress.",
            doc_title="European Union Public Licence v. 1.2",
            section_title="7. Disclaimer of Warranty",
        ),
    ]
    with _ingested(tmp_path, rows) as s:
        result = s.ask(f"What does section 7 of {asked} say?", collection="c")
        assert (result.resolved_doc_id, result.resolved_section_key) == ("apache-2.0", "s7")
        eupl = s.ask("what does section 7 of the European Union Public Licence say", collection="c")
        assert (eupl.resolved_doc_id, eupl.resolved_section_key) == ("eupl-1.2", "s7")


def test_a_title_is_named_with_another_article(tmp_path: Path) -> None:
    # "mount a sub-application" writes "Mount the sub-application" with another article:
    # the longer title wins over the one-word-pair title "Sub-application" inside it
    rows = [
        chunk("guide", key, 0, text, doc_title="Sub Applications", section_title=title)
        for key, title, text in (
            ("sub", "Sub-application", "Create the sub-application with its own routes."),
            ("mount", "Mount the sub-application", "Mount it under a path of the main app."),
            ("top", "Top-level application", "The main application holds the others."),
        )
    ]
    with _ingested(tmp_path, rows) as s:
        asked = s.ask("How do I mount a sub-application?", collection="c")
        assert (asked.resolved_doc_id, asked.resolved_section_key) == ("guide", "mount")
        assert s.ask("what is a sub-application", collection="c").resolved_section_key == "sub"


def test_a_title_opening_with_a_gerund_is_named_by_its_verb(tmp_path: Path) -> None:
    # "use the TestClient" writes "Using TestClient"; "add a middleware" writes "Adding
    # a middleware"; "running" is the verb of "Running tests" (a doubled consonant)
    rows = [
        chunk("guide", key, 0, text, doc_title="Testing", section_title=title)
        for key, title, text in (
            ("intro", "Testing", "Tests call the application without a network."),
            ("client", "Using TestClient", "Create a client and call the routes with it."),
            ("middleware", "Adding a middleware", "Wrap every call before it reaches a route."),
            ("run", "Running tests", "Start the runner from the project's folder."),
            ("cancel", "Cancelling transit benefit", "Go to the transit site and withdraw."),
        )
    ]
    with _ingested(tmp_path, rows) as s:
        for question, key in (
            ("How do I use the TestClient?", "client"),
            ("how to use TestClient", "client"),
            ("How do I add a middleware?", "middleware"),
            ("How do I run tests?", "run"),
            ("How do I cancel my transit benefit?", "cancel"),  # a possessive, British "ll"
        ):
            asked = s.ask(question, collection="c")
            assert (asked.resolved_doc_id, asked.resolved_section_key) == ("guide", key), question
        # the gerund's other readings are no words a question writes: nothing else routes
        assert s.ask("tell us the TestClient story", collection="c").resolved_section_key is None


def test_a_year_dates_a_title_and_a_designation_has_no_first_word_name() -> None:
    # "of 2018" dates the act: no "California Consumer Privacy Act of", no "CCPA v2018"
    assert name_variants("California Consumer Privacy Act of 2018") == [
        "California Consumer Privacy Act",
        "CCPA",
    ]
    # "Title 21 CFR Part 11" is a designation: "Title 11" would name another title
    assert "Title 11" not in name_variants("Title 21 CFR Part 11 - Electronic Records")


def test_numbered_sections_of_several_documents(sx: Sectio) -> None:
    # the document's name (the part of its title before the colon) settles a shared number
    named = sx.ask("STD 2 section 4", collection="std")
    assert (named.resolved_doc_id, named.resolved_section_key) == ("std2", "s4")
    # a number one document alone has names that document
    alone = sx.ask("section 19.20", collection="std")
    assert (alone.resolved_doc_id, alone.resolved_section_key) == ("std1", "s19.20")
    # a sub-number the document lacks reads as its parent; an appendix by letter
    assert sx.ask("STD 1 section 19.20.4", collection="std").resolved_section_key == "s19.20"
    assert sx.ask("STD 1 appendix A.1", collection="std").resolved_section_key == "sA.1"
    # a number two documents share, no document named: no guess
    assert sx.ask("section 4", collection="std").resolved_section_key is None


def test_a_title_used_as_a_term_does_not_route(sx: Sectio) -> None:
    # "flow control" is a title, but the question asks something else with it
    q = "what error is raised when a sender exceeds the flow control budget of a receiver"
    assert sx.ask(q, collection="std").resolved_section_key is None
    assert sx.ask("HANDSHAKE_DONE Frames", collection="std").resolved_section_key == "s19.20"
    one_word = sx.ask("what does the Pseudocode appendix of STD 1 hold", collection="std")
    assert one_word.resolved_section_key == "sA"


def test_shared_section_keys_route_in_every_document() -> None:
    rows = [
        {"doc_id": d, "section_key": k, "section_title": t}
        for d in ("a", "b", "c", "d")
        for k, t in (("storage_conditions", "Storage conditions"), ("warranty", "Warranty"))
    ]
    v = LearnedVocabulary.from_payloads(rows)
    assert set(v.shared) == {"storage_conditions", "warranty"}
    m = v.match("how long is the warranty", docs=["b"])
    assert m is not None and (m.doc_id, m.key, m.via) == ("b", "warranty", "learned_title")
    nobody = v.match("how long is the warranty")
    assert nobody is not None and nobody.doc_id is None  # a shared key names no document
    # the profile's sections are left to it
    assert LearnedVocabulary.from_payloads(rows, skip={"warranty"}).shared.keys() == {
        "storage_conditions"
    }


def test_number_forms() -> None:
    refs = [r.number for r in question_refs("chapter III, annex II, clause 7.1, rule 12, Điều 31")]
    assert refs == [
        Number("chapter", "3"),
        Number("annex", "ii"),
        Number("article", "7.1"),
        Number("article", "12"),
        Number("article", "31"),
    ]
    assert title_number("Introduction") is None and title_number("A Guide to X") is None
    assert question_refs("part of the section on limits") == []
    # a letter glued to a kind word is a word ("ch" + "ild", "app" + "s", Vietnamese "cho")
    assert question_refs("the child's apps schedules; Chi phí cho người") == []
    assert [r.number for r in question_refs("art17, §6")] == [
        Number("article", "17"),
        Number("article", "6"),
    ]


def test_a_section_of_a_chapter_is_no_article_and_a_point_no_title() -> None:
    # "chapter III section 2" is a unit of chapter III, not the corpus's article 2
    assert [r.number for r in question_refs("chapter III section 2 requirements")] == [
        Number("chapter", "3")
    ]
    assert [r.number for r in question_refs("Part 2, § 4 and section 9")] == [
        Number("part", "2"),
        Number("article", "9"),
    ]
    # "(h)(iii)" of a title names nothing: "chapter III" routed to that annex
    rows = [
        {
            "doc_id": "act",
            "section_key": "annex_ii",
            "section_title": "Annex II - Offences referred to in Article 5(1), point (h)(iii)",
        }
    ]
    assert LearnedVocabulary.from_payloads(rows).match("what does chapter III say") is None


def test_the_default_learning_table_keeps_old_profile_hashes() -> None:
    p = load_profile("en_drug_label")
    data = p.model_dump(mode="json")
    data.pop("learning")
    old = hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode())
    assert p.sha256() == old.hexdigest()
    off = CorpusProfile(name="x", learning={"enabled": False})  # type: ignore[arg-type]
    assert off.sha256() != CorpusProfile(name="x").sha256()


def test_an_unknown_learning_key_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n[learning]\nenabeld = false\n')
    with pytest.raises(ProfileError, match="enabeld"):
        load_profile(bad)


def test_an_unknown_profile_key_names_the_nearest_valid_one(tmp_path: Path) -> None:
    bad = tmp_path / "typo.toml"
    bad.write_text('name = "t"\n[[sections]]\nkey = "a"\nphrase = ["x"]\n')
    with pytest.raises(ProfileError) as err:
        load_profile(bad)
    assert str(err.value).endswith(
        "unknown key 'sections.0.phrase' (did you mean 'sections.0.phrases'?)"
    )


def test_info_and_profile_draft_show_what_was_learned(sx: Sectio, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from sectio.cli.base import cli as main

    env = {"SECTIO_HOME": str(sx.settings.home), "SECTIO_EMBEDDER": "fake"}
    sx.close()  # one process per shard folder: the CLI opens it next
    runner = CliRunner()
    info = runner.invoke(main, ["info", "-c", "reg", "--json"], env=env)
    assert info.exit_code == 0, info.output
    learned = json.loads(info.output)["collections"][0]["learned"]
    assert learned["numbered_sections"] == 7 and learned["documents"] == 1
    text = runner.invoke(main, ["info", "-c", "reg"], env=env).output
    assert "learned routing (default): 1 documents, 7 sections, 7 numbered" in text
    drafted = runner.invoke(main, ["profile", "draft", "-c", "reg"], env=env)
    assert drafted.exit_code == 0, drafted.output
    out = tmp_path / "drafted.toml"
    out.write_text(drafted.output)
    profile = load_profile(out)  # a complete, valid profile
    assert [s.key for s in profile.sections][:2] == ["article_1", "article_2"]
    article = profile.section("article_17")
    assert article is not None and article.phrases[:2] == ("article 17", "art 17")
    assert "right to be forgotten" in article.phrases and article.examples
    src = tmp_path / "std.jsonl"
    write_jsonl(src, _standard())
    from_file = runner.invoke(main, ["profile", "draft", str(src)], env=env)
    assert from_file.exit_code == 0 and 'key = "s4.2"' in from_file.output
    both = runner.invoke(main, ["profile", "draft", str(src), "-c", "reg"], env=env)
    assert both.exit_code != 0 and "one of them" in str(both.exception)


def test_ask_prints_how_the_section_was_chosen(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from sectio.cli.base import cli

    env = {"SECTIO_HOME": str(tmp_path / "home"), "SECTIO_EMBEDDER": "fake"}
    src = write_jsonl(tmp_path / "reg.jsonl", _regulation())
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(src), "-c", "reg"], env=env).exit_code == 0
    out = runner.invoke(cli, ["ask", "what does article 17 say", "-c", "reg"], env=env).output
    assert "via section: dsr / article_17 (section by learned_number)" in out
    two = runner.invoke(cli, ["ask", "article 17 and article 18", "-c", "reg"], env=env).output
    assert "via section: dsr / article_17 + article_18 (section by learned_number)" in two
    http = runner.invoke(cli, ["ask", "the right to be forgotten", "-c", "reg", "--json"], env=env)
    data = json.loads(http.output)
    assert data["route"] == "section" and data["resolved_section_key"] == "article_17"
    assert data["details"]["section_resolution"]["via"] == "learned_title"


def test_a_drafted_profile_keeps_the_collections_bm25_settings(tmp_path: Path) -> None:
    """A Vietnamese collection's draft keeps its BM25 (no stemmer, accent-folded copy):
    re-ingested with an English one, "chống chỉ định" would no longer match "chong chi dinh"."""
    from sectio.retrieve.learned.draft import draft_profile

    rows = [{"doc_id": "luat", "section_key": "dieu_1", "section_title": "Điều 1. Phạm vi"}]
    vi = load_profile("generic_vi")
    out = tmp_path / "vi.toml"
    out.write_text(draft_profile(rows, name="luat", profile=vi), encoding="utf-8")
    drafted = load_profile(out)
    assert drafted.engine == "router" and drafted.lexical == vi.lexical
    assert drafted.lexical.fold_diacritics and drafted.lexical.language == "none"


def test_a_draft_of_a_collection_lists_its_sections_in_the_books_order(tmp_path: Path) -> None:
    """The engine returns points in no order, and keys sort otherwise than a law reads
    (annexes, articles, recitals; "annex_x" before "annex_ii" as text): the draft lists
    the sections as the source did, also after another tenant's replace copied them."""
    from sectio.retrieve.learned.report import collection_payloads

    keys = [
        "recital_2",
        "recital_17",
        "article_1",
        "article_2",
        "article_10",
        "annex_ii",
        "annex_x",
    ]
    rows = [
        {
            **chunk("act", key, part, f"{key} text {part}.", doc_title=ACT, section_title=key),
            "tenant": "acme",
        }
        for key in keys
        for part in range(2)
    ]
    other = [{**chunk("g", "s", 0, "globex text."), "tenant": "globex"}]
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as s:
        s.ingest(write_jsonl(tmp_path / "acme.jsonl", rows), collection="c")
        s.ingest(write_jsonl(tmp_path / "g.jsonl", other), collection="c")
        s.ingest(write_jsonl(tmp_path / "g.jsonl", other), collection="c", replace=True)
        drafted = tmp_path / "drafted.toml"
        drafted.write_text(s.draft_profile(collection="c", tenant="acme"))
        assert [sec.key for sec in load_profile(drafted).sections] == keys
        stored = collection_payloads(s.collection("c"), "acme")
        assert [(p["section_key"], p["part_index"]) for p in stored][:3] == [
            ("recital_2", 0),
            ("recital_2", 1),
            ("recital_17", 0),
        ]
        assert all("_sectio" not in p for p in stored)  # the record as it came
