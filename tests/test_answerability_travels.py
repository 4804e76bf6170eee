"""Abstention that travels (issue 34): unknown words weighed, calibration stored with the
collection, every abstention explained.

Real Qdrant Edge on temporary homes; the fake embedder where meaning does not matter,
the bundled model where it does (``slow``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

import sectio
from sectio import Sectio, Settings
from sectio.cli import cli
from sectio.contract.diagnostics import Signals, Thresholds, VerdictReport
from sectio.contract.explain import why
from sectio.contract.profile import LexicalSettings
from sectio.index.lexical import LexicalEncoder
from sectio.retrieve.answerability.rules.category import class_subject
from sectio.retrieve.answerability.weigh import STRONG_COVERAGE, acronyms, written_apart
from sectio.retrieve.calibration import (
    CALIBRATION_FILE,
    read_stored,
    stored_file,
    tenant_calibration,
    tenant_digest,
)
from sectio.retrieve.pipeline import Pipeline
from sectio.retrieve.stats import Term, TermPairs, TermStats, evidence_terms
from sectio.retrieve.stored_stats import (
    STATS_CODE,
    code_fingerprint,
    from_arrays,
    stats_digest,
    stats_file,
    to_arrays,
)
from sectio.retrieve.stored_stats import load as load_stats
from sectio.retrieve.stored_stats import measure as measure_stats
from sectio.retrieve.stored_stats import refresh as refresh_stats
from sectio.retrieve.words import quantity_word
from tests.helpers import write_jsonl
from tests.helpers.api import label_rows


def names_read(router: Pipeline) -> Pipeline:
    """``router`` reading words as the real model's vocabulary would (the fake embedder's
    tokenizer reads every word as a common one, never a name)."""
    router.resolver.common = lambda _w: False
    judge = router.judge
    router.judge = replace(judge, words=replace(judge.words, common=lambda _w: False))
    return router


@pytest.fixture
def sx(tmp_path: Path) -> Iterator[Sectio]:
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as s:
        s.ingest(write_jsonl(tmp_path / "l.jsonl", label_rows("default")), profile="en_drug_label")
        yield s


# --- unknown words are weighed ----------------------------------------------------------
@pytest.mark.parametrize(
    "word", ["40mg", "1gm", "40mcg", "mg", "v3", "rc4", "2", "tablets", "capsule", "xr"]
)
def test_strengths_doses_units_versions_and_forms_are_quantities(word: str) -> None:
    assert quantity_word(word)


@pytest.mark.parametrize("word", ["pvc", "coreos", "ifit1", "amoxicillin", "beta", "istio"])
def test_names_are_not_quantities(word: str) -> None:
    assert not quantity_word(word)


def test_an_abbreviation_is_explained_by_the_initials_the_evidence_writes() -> None:
    found = acronyms(["Keep the PersistentVolumeClaim after helm uninstall"])
    assert "pvc" in found
    assert "crd" in acronyms(["Install the custom resource definition first"])
    assert "xyz" not in found  # initials nobody wrote explain nothing
    assert "gpai" in acronyms(["obligations for general-purpose AI models"])  # "AI": both


def test_a_word_the_collection_writes_as_two_is_explained() -> None:
    from sectio.index.lexical import LexicalEncoder

    lexical = LexicalEncoder(LexicalSettings())
    stats = TermStats.from_payloads(
        [{"text": "Deep fakes must be labelled. Run the health check."}], lexical
    )
    for word in ("deepfakes", "deepfake", "healthcheck"):
        assert written_apart(word, lexical, stats), word
    for word in ("zorbitrex", "checkdeep", "deepx", "healthfake"):
        assert not written_apart(word, lexical, stats), word


#: Two licences as records: what kind of document the collection holds ("License").
LICENCE_ROWS = [
    {
        "chunk_id": f"{doc}#{i}",
        "doc_id": doc,
        "doc_title": title,
        "section_key": f"s{i}",
        "part_index": 0,
        "text": text,
    }
    for doc, title, texts in (
        (
            "apache-2.0",
            "Apache License 2.0",
            [
                "Each Contributor grants You a Patent License to make and sell the Work.",
                "You must give recipients a copy of this License with the Work.",
            ],
        ),
        (
            "mpl-2.0",
            "Mozilla Public License 2.0",
            [
                "Covered Software is made available under the terms of this License.",
                "You may distribute the Executable Form under the terms of this License.",
            ],
        ),
    )
    for i, text in enumerate(texts)
]


def test_a_document_of_the_collections_kind_it_does_not_hold_abstains(tmp_path: Path) -> None:
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as s:
        s.ingest(write_jsonl(tmp_path / "l.jsonl", LICENCE_ROWS), collection="lic")

        def rule(question: str) -> tuple[str, str | None, list[str]]:
            result = s.ask(question, collection="lic", tenant="default", record=False)
            report = result.details.answerability
            assert report is not None
            return result.decision, report.signals.rule, report.uncovered or []

        # another licence, named with capitals, that the collection never writes
        assert rule("What does the change date mean in the Business Source License?") == (
            "ABSTAIN",
            "other_document",
            ["business", "source", "license"],
        )
        # the collection's own licence named with a word it never contains: another one
        assert rule("What does the Zorbland Apache License say about patents?")[1] == (
            "other_document"
        )
        # its own licences, a name it writes, and one beside a licence the question names
        for question in (
            "What does the Apache License say about patents?",
            "Who grants the Patent License?",
            "Is the Apache License like the Business Source License?",
            "what does the business source license say",
        ):
            assert rule(question)[1] != "other_document", question


def test_an_unknown_compound_of_written_words_does_not_veto(generic: Sectio) -> None:
    asked = generic.ask("Who are the Copyrightholders of the work?", collection="g")
    report = asked.details.answerability
    assert report is not None and report.signals.unknown == ["copyrightholders"]
    assert report.signals.rule != "unknown_name"
    other = generic.ask("Who are the Zorbitrexholders of the work?", collection="g")
    assert other.details.answerability is not None
    assert (other.decision, other.details.answerability.signals.rule) == (
        "ABSTAIN",
        "unknown_name",
    )


@pytest.mark.parametrize(
    ("question", "word", "vetoed"),
    [
        # "bleding" is one letter from the labels' "bleeding", which the passages hold: a
        # typo; written with a capital it is a name, two letters away another word
        ("does stomach upset occur with a {} disorder?", "bleding", ("Bleding", "blexing")),
        # "rebleeding" is "bleeding" after "re" ("unpickle": "pickle"): a derived word;
        # written with a capital it is a name, with no prefix before a held word another
        ("does stomach upset occur with {}?", "rebleeding", ("Rebleeding", "zobleeding")),
    ],
    ids=["typo", "prefix"],
)
def test_a_word_the_evidence_holds_misspelled_or_after_a_prefix_does_not_veto(
    sx: Sectio, question: str, word: str, vetoed: tuple[str, ...]
) -> None:
    router = names_read(sx.router("default"))
    weighed = router.ask(question.format(word), tenant="default")
    report = weighed.details.answerability
    assert report is not None and report.signals.weighed == [word]
    assert (weighed.decision, report.signals.rule) == ("ANSWERABLE", "covered")
    for other in vetoed:
        result = router.ask(question.format(other), tenant="default")
        assert (result.decision, result.reason) == ("ABSTAIN", "subject_not_in_corpus")
        assert result.details.answerability is not None
        assert result.details.answerability.signals.rule == "unknown_name"


def test_a_typo_needs_the_word_it_misspells_in_the_evidence() -> None:
    from sectio.retrieve.answerability.weigh import misspellings, written_small

    words = frozenset({"panic", "ambient", "flagged"})
    assert misspellings("panick", words) == {"panic"}
    assert misspellings("ambien", words) == {"ambient"}  # one edit: the evidence decides
    assert not misspellings("pvc", words) and not misspellings("atorvastin", {"atorvastatin"})
    assert written_small("panick", "Panick attacks: what helps?")  # an opening capital
    assert not written_small("flagger", "How does Flagger do canaries?")


def test_another_form_of_a_word_the_evidence_holds_does_not_veto(tmp_path: Path) -> None:
    # "streptococcal" is "Streptococcus" with another ending (no edit, no prefix explains
    # it): a consumer's adjective of the label's noun, not another product
    sections = {
        "indications_and_usage": [
            "Amoxicillin is indicated for the treatment of pharyngitis due to Streptococcus."
        ],
        "warnings": ["Probenecid may interfere with the excretion of amoxicillin."],
    }
    rows = [
        {
            "chunk_id": f"amoxicillin#{key}#0",
            "doc_id": "amoxicillin",
            "doc_title": "Amoxicillin",
            "section_key": key,
            "part_index": 0,
            "text": text,
            "source_refs": [{"source": "label", "url": "https://example.org/amoxicillin"}],
        }
        for key, [text] in sections.items()
    ]
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as s:
        s.ingest(write_jsonl(tmp_path / "l.jsonl", rows), profile="en_drug_label")
        router = names_read(s.router("default"))
        weighed = router.ask("treatment of streptococcal pharyngitis?", tenant="default")
        report = weighed.details.answerability
        assert report is not None and report.signals.weighed == ["streptococcal"]
        assert (weighed.decision, report.signals.rule) == ("ANSWERABLE", "covered")
        # written as a name; a drug whose first letters are a held word's ("interfere")
        for other in ("Streptococcal", "interferon"):
            result = router.ask(f"treatment of {other} pharyngitis?", tenant="default")
            assert (result.decision, result.reason) == ("ABSTAIN", "subject_not_in_corpus")
            assert result.details.answerability is not None
            assert result.details.answerability.signals.rule == "unknown_name"


def test_a_strength_after_the_name_names_no_other_product(sx: Sectio) -> None:
    router = names_read(sx.router("default"))
    result = router.ask("aspirin 40mg what is it for", tenant="default")
    assert result.decision == "ANSWERABLE", result.details["answerability"]
    assert result.details.answerability is not None
    assert result.details.answerability.signals.rule == "named_document"
    # a name the collection never holds written right after it still does
    other = router.ask("aspirin zorbitrex what is it for", tenant="default")
    assert (other.decision, other.reason) == ("ABSTAIN", "subject_not_in_corpus")
    assert other.details["answerability"]["uncovered"] == ["zorbitrex"]


# --- calibration stored with the collection -------------------------------------------
def test_ingest_stores_the_calibration_beside_the_manifest(sx: Sectio) -> None:
    coll = sx.collection("default")
    path = stored_file(coll)
    assert path is not None and path.name == CALIBRATION_FILE and path.is_file()
    assert (path.parent / "manifest.json").is_file()
    stored = read_stored(path)
    assert list(stored) == ["default"]
    assert stored["default"].digest == tenant_digest(coll, "default")
    assert len(stored["default"].prose) == 256  # one best cosine per bank question
    scope = sx._scope(coll, "default")
    assert tenant_calibration(scope).source == "stored"


def test_a_missing_or_stale_calibration_is_measured_again(sx: Sectio) -> None:
    coll = sx.collection("default")
    path = stored_file(coll)
    assert path is not None
    stored = json.loads(path.read_text())
    stored["tenants"]["default"]["digest"] = "another corpus"
    path.write_text(json.dumps(stored))
    sx.release("default")
    scope = sx._scope(sx.collection("default"), "default")
    cal = tenant_calibration(scope)
    assert cal.source == "measured" and cal.digest == tenant_digest(scope.collection, "default")
    path.unlink()
    sx.release("default")
    assert tenant_calibration(sx._scope(sx.collection("default"), "default")).source == "measured"


def test_a_second_tenant_is_stored_beside_the_first(sx: Sectio, tmp_path: Path) -> None:
    sx.ingest(write_jsonl(tmp_path / "b.jsonl", label_rows("beta")), profile="en_drug_label")
    path = stored_file(sx.collection("default"))
    assert sorted(read_stored(path)) == ["beta", "default"]


# --- term statistics stored with the collection ---------------------------------------
def test_ingest_stores_the_term_statistics_the_view_reads(sx: Sectio) -> None:
    coll = sx.collection("default")
    path = stats_file(coll, "default")
    assert path is not None and path.is_file() and path.parent.parent == stored_file(coll).parent
    scope = sx._scope(coll, "default")
    stored, measured = load_stats(scope), measure_stats(scope)
    assert stored is not None and stored.chunks == measured.chunks > 0
    assert dict(stored.df) == dict(measured.df) and stored.words == measured.words
    assert stored.headings == measured.headings
    assert dict(stored.identifiers) == dict(measured.identifiers)
    assert list(stored.pairs.keys) == list(measured.pairs.keys) and len(stored.pairs) > 0
    # the view reads the stored file: a word written into it is a word of the collection
    arrays = to_arrays(
        replace(stored, words=stored.words | {"zorbitrex"}), stats_digest(coll, "default")
    )
    np.savez(path, **arrays)
    sx.release("default")
    view = sx.router("default").resolver.view(sx._scope(sx.collection("default"), "default"))
    assert "zorbitrex" in view.stats.words


def test_term_statistics_arrays_round_trip_every_shape() -> None:
    stats = TermStats(
        5,
        {7: 5, 2**40: 1},
        frozenset({"đường", "sync", "x"}),
        frozenset({("sync", "waves"), (), ("điều", "5")}),
        TermPairs.of([[7, 9, 11]]),
        {"presync": frozenset({"docs/a.md", "docs/b\nc.md"}), "gzipmiddleware": frozenset({""})},
    )
    back = from_arrays(to_arrays(stats, "d"), "d")
    assert back is not None and (back.chunks, dict(back.df)) == (5, {7: 5, 2**40: 1})
    assert (back.words, back.headings) == (stats.words, stats.headings)
    assert dict(back.identifiers) == dict(stats.identifiers)
    assert list(back.pairs.keys) == list(stats.pairs.keys) and (9, 7) in back.pairs
    empty = from_arrays(to_arrays(TermStats(0, {}), "d"), "d")
    assert empty is not None and (empty.words, empty.headings, len(empty.pairs)) == (
        frozenset(),
        frozenset(),
        0,
    )


def test_documented_identifiers_are_catalog_names_the_pages_write_as_code() -> None:
    """A catalog identifier is a documented name only where a page writes it as a code
    span (any fence) or a heading as a word: "PreSync" is (`` `PreSync` ``); "MongoDB",
    listed in a table's first column and never in code, is a product the page names, not
    one of the collection's own names."""
    payloads = [
        {"doc_id": "hooks.md", "text": "Annotate the job with `PreSync` to run it first."},
        {"doc_id": "db.md", "text": "| MongoDB | a document store |"},
        {"doc_id": "api.md", "text": "Call ``Session.send`` (a ``a`b`` span before it)."},
        {"doc_id": "waves.md", "section_title": "Using PostSync hooks", "text": "After."},
        {"doc_id": "hooks.md", "entity": "PreSync", "entity_kind": "code", "text": "PreSync"},
        {"doc_id": "db.md", "entity": "MongoDB", "entity_kind": "code", "text": "MongoDB"},
        {"doc_id": "api.md", "entity": "Session.send", "entity_kind": "code", "text": "x"},
        {"doc_id": "waves.md", "entity": "PostSync", "entity_kind": "code", "text": "x"},
    ]
    stats = TermStats.from_payloads(payloads, LexicalEncoder(LexicalSettings()))
    assert dict(stats.identifiers) == {  # a heading's code ("PostSync") loses its marks
        "presync": frozenset({"hooks.md"}),
        "session.send": frozenset({"api.md"}),
        "postsync": frozenset({"waves.md"}),
    }


def test_stale_or_broken_term_statistics_are_computed_again(sx: Sectio) -> None:
    coll = sx.collection("default")
    path = stats_file(coll, "default")
    assert path is not None
    stored = load_stats(sx._scope(coll, "default"))
    assert stored is not None
    np.savez(path, **to_arrays(replace(stored, words=stored.words | {"zorbitrex"}), "another"))
    sx.release("default")
    scope = sx._scope(sx.collection("default"), "default")
    assert load_stats(scope) is None  # measured for another corpus
    view = sx.router("default").resolver.view(scope)
    assert "zorbitrex" not in view.stats.words and view.stats.words == stored.words
    # the digest names the code that measured: another reading of words measures again
    assert stats_digest(scope.collection, "default").endswith(code_fingerprint(STATS_CODE))
    assert code_fingerprint(STATS_CODE) != code_fingerprint(STATS_CODE[:1])
    fresh = load_stats(scope)  # the query stored what it measured, for the next process
    assert fresh is not None and fresh.words == stored.words
    path.write_bytes(b"not a zip")
    assert load_stats(scope) is None
    assert refresh_stats(scope) and load_stats(scope) is not None  # stored again


# --- every abstention explained --------------------------------------------------------
def test_an_abstention_names_its_rule_words_and_closest_documents(sx: Sectio) -> None:
    router = names_read(sx.router("default"))
    result = router.ask("what is the dose of zorbitrex", tenant="default")
    assert result.decision == "ABSTAIN"
    report = result.details.answerability
    assert report is not None
    assert report.signals.rule in ("unknown_name", "subject")
    assert "zorbitrex" in report.uncovered
    assert [d.doc_id for d in report.closest_documents] == ["aspirin"]


# --- class and category questions ------------------------------------------------------
def test_a_class_question_about_what_the_corpus_does_not_hold_abstains(sx: Sectio) -> None:
    router = sx.router("default")  # the fake model reads every word as a common one
    result = router.ask("what type of drug is ecstasy", tenant="default")
    assert (result.decision, result.reason) == ("ABSTAIN", "subject_not_in_corpus")
    report = result.details.answerability
    assert report is not None and report.signals.rule == "class_subject"
    assert report.uncovered == ["ecstasy"]
    # the same question form about what the corpus holds is not this rule's
    held = router.ask("what is aspirin", tenant="default")
    assert held.details.answerability is not None
    assert held.details.answerability.signals.rule != "class_subject"


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("What type of drug is ecstasy?", ("ecstasy",)),
        ("which class of medicine is normal saline", ("normal", "saline")),
        ("what is normal saline", ("normal", "saline")),
        ("What's a PVC?", ("pvc",)),
        ("what is the maximum dose of ibuprofen for a child", ()),
        ("how do I keep a PVC", ()),
    ],
)
def test_the_subject_of_a_class_or_definition_question(
    question: str, subject: tuple[str, ...]
) -> None:
    assert class_subject(question)[0] == subject


# --- a strong passage answers what its words do not cover --------------------------------
def _coverage_ctx(best: float, unknown: list[str]) -> SimpleNamespace:
    """What the coverage rule reads: a question covering a third of its rare words."""
    terms = [  # words no passage holds together (df 0: none is read as held by one)
        SimpleNamespace(word="long", covered=False, df=0),
        SimpleNamespace(word="documentation", covered=True, df=0),
    ]
    ctx = SimpleNamespace(
        words=SimpleNamespace(lexical=LexicalEncoder(LexicalSettings())),
        stats=TermStats(chunks=1000, df={}),
        coverage=0.33,
        settings=SimpleNamespace(min_coverage=0.5),
        unknown=unknown,
        unweighed=unknown,
        terms=terms,
        dense_floor=0.25,
        outcome=SimpleNamespace(evidence=["a row"]),
        thresholds=Thresholds(min_coverage=0.5),
        best=best,
        decided=None,
    )
    ctx.margin = lambda m: m  # a floor in the model's own units (scale 1)
    ctx.decide = lambda rule, reason, words: (rule, reason, words)
    return ctx


def test_a_strong_passage_answers_a_question_in_other_words() -> None:
    from sectio.retrieve.answerability.rules.coverage import Coverage

    # "how long must a provider keep the technical documentation": the Act writes "shall
    # keep ... for a period of ten years"; its passage is 0.33 over the floor
    assert Coverage().check(_coverage_ctx(0.58, [])) is None  # type: ignore[arg-type]
    strong = _coverage_ctx(0.58, [])
    Coverage().check(strong)  # type: ignore[arg-type]
    assert strong.thresholds.catalog_strong_floor == 0.50
    # +0.27: a handbook's "My smart card reader keeps disconnecting" passage answers it
    assert Coverage().check(_coverage_ctx(0.52, [])) is None  # type: ignore[arg-type]
    # under the strong floor (+0.24: "Why are kubectl edits rolled back by Flux?" on Argo
    # CD's docs), or with a name the collection never holds: abstains
    assert Coverage().check(_coverage_ctx(0.49, [])) == ("coverage", "weak_evidence", ["long"])  # type: ignore[arg-type]
    with_name = Coverage().check(_coverage_ctx(0.9, ["hipaa"]))  # type: ignore[arg-type]
    assert with_name == ("coverage", "subject_not_in_corpus", ["long"])


def _joint_ctx(passages: list[str], stopwords: bool = True) -> SimpleNamespace:
    """What the coverage rule reads for "exclude lines from the coverage report with a
    comment" over a collection of 1,000 chunks: five rare words (each in 10 chunks), a
    third of their weight covered, cosines weak."""
    lexical = LexicalEncoder(LexicalSettings(stopwords=stopwords))
    stats = TermStats(chunks=1000, df={})
    words = ["exclude", "lines", "coverage", "report", "comment"]
    terms = [
        Term(w, lexical.terms(w), 10, stats.idf_of(10), covered=i < 2) for i, w in enumerate(words)
    ]
    ctx = _coverage_ctx(0.30, [])
    ctx.terms, ctx.stats = terms, stats
    ctx.words = SimpleNamespace(lexical=lexical)
    ctx.signals = Signals(route="docs_plan", document_named=None)
    ctx.outcome = SimpleNamespace(
        evidence=[SimpleNamespace(doc_title=None, section_title=None, text=t) for t in passages]
    )
    ctx.row_terms = [evidence_terms([e], lexical) for e in ctx.outcome.evidence]  # as RuleContext
    return ctx


def test_a_passage_holding_the_questions_words_together_answers_weak_cosines() -> None:
    from sectio.retrieve.answerability.rules.coverage import Coverage
    from sectio.retrieve.answerability.weigh import JOINT_SURPRISE, joint_passage

    # one passage holds all five: 5 x 4.56 (each IDF) - ln 1000 = 15.9, over ln 10,000
    together = "Comments exclude lines from the coverage report."
    ctx = _joint_ctx([together])
    assert joint_passage(ctx)  # type: ignore[arg-type]
    assert ctx.signals.joint_surprise >= JOINT_SURPRISE
    assert Coverage().check(_joint_ctx([together])) is None  # type: ignore[arg-type]
    # the same words spread over passages, two at most in one: weak evidence still
    apart = ["Exclude these lines.", "The coverage report.", "A comment."]
    assert not joint_passage(_joint_ctx(apart))  # type: ignore[arg-type]
    assert Coverage().check(_joint_ctx(apart)) == (
        "coverage",
        "weak_evidence",
        ["coverage", "report", "comment"],
    )  # type: ignore[arg-type]
    # a BM25 that keeps function words (Vietnamese's syllables) never reads it
    assert not joint_passage(_joint_ctx([together], stopwords=False))  # type: ignore[arg-type]


# --- explained in the CLI, the playground and `sectio info` -----------------------------
def test_the_cli_names_the_measure_and_threshold_that_decided() -> None:
    report = VerdictReport(
        answerable=False,
        reason="weak_evidence",
        signals=Signals(route="docs_plan", document_named=None, rule="catalog", catalog_best=0.21),
        thresholds=Thresholds(min_coverage=0.5, dense_floor=0.25, catalog_floor=0.22),
    )
    assert why(report) == "rule catalog: closest page 0.210 <= catalog floor 0.220"
    # the passage escape, measured and missed, is named; one reached is not (it passed)
    report.signals.joint_surprise, report.thresholds.joint_surprise = 4.28, 9.21
    assert why(report).endswith("; one passage's words together 4.28 < 9.21")
    report.signals.joint_surprise = 10.5
    assert "together" not in why(report)
    report.signals.joint_surprise = None
    report.signals.rule, report.uncovered = "unknown_name", ["zorbitrex"]
    report.signals.weighed = ["pvc"]
    assert (
        why(report)
        == "rule unknown_name: not in the collection: zorbitrex (weighed, not vetoed: pvc)"
    )


def test_info_shows_the_thresholds_per_tenant(sx: Sectio, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECTIO_HOME", str(sx.settings.home))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    monkeypatch.setenv("SECTIO_TRACES", "false")
    sx.release("default")  # one process owns a shard: let the CLI open it
    runner = CliRunner()
    out = runner.invoke(cli, ["info", "-c", "default", "--json"])
    assert out.exit_code == 0, out.output
    summary = json.loads(out.output)["collections"][0]["answerability"]
    tenant = summary["tenants"]["default"]
    assert tenant["source"] == "stored" and tenant["term_statistics"] == "stored"
    assert tenant["margin_floor"] == round(tenant["dense_floor"] + 0.0, 4)  # en_drug_label
    assert tenant["strong_floor"] > tenant["dense_floor"]
    assert summary["settings"]["subject"] == "document"
    assert summary["settings"]["joint_surprise"] == 9.21  # ln 10,000: the BM25 drops stopwords
    human = runner.invoke(cli, ["info", "-c", "default"])
    assert human.exit_code == 0, human.output
    assert "answerability: min coverage 0.5" in human.output
    assert f"default: dense floor {tenant['dense_floor']:.4f}" in human.output
    assert "term statistics stored" in human.output
    assert "one passage's words together: surprise 9.21" in human.output


def test_the_playground_explains_an_abstention() -> None:
    page = (Path(sectio.__file__).parent / "api" / "static" / "index.html").read_text()
    assert "function renderWhy(data)" in page and "${renderWhy(data)}" in page
    for field in (
        "uncovered",
        "closest_documents",
        "weighed",
        "catalog_floor",
        "dense_floor",
        "joint_surprise",
    ):
        assert field in page


# --- a question mostly of words the collection never contains ---------------------------
LICENCE = [
    "Copyright holders grant permission to copy and distribute the work.",
    "Redistribution of source code must retain the copyright notice.",
    "The license terminates automatically if you violate its terms.",
]


def licence_rows(texts: list[str], cited: bool = False) -> list[dict[str, object]]:
    """One licence's chunks, a section each (``cited``: with a source, so they can answer)."""
    source = [{"source": "licence", "url": "https://example.org/licence"}]
    return [
        {
            "chunk_id": f"lic#{i}",
            "doc_id": "license",
            "section_key": f"s{i}",
            "part_index": 0,
            "text": text,
            **({"source_refs": source} if cited else {}),
        }
        for i, text in enumerate(texts)
    ]


@pytest.fixture
def generic(tmp_path: Path) -> Iterator[Sectio]:
    rows = licence_rows(LICENCE)
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as s:
        s.ingest(write_jsonl(tmp_path / "g.jsonl", rows), collection="g")
        yield s


def test_a_question_mostly_of_absent_words_abstains(generic: Sectio) -> None:
    result = generic.ask("how do I write a privacy policy for my app", collection="g")
    assert (result.decision, result.reason) == ("ABSTAIN", "subject_not_in_corpus")
    report = result.details.answerability
    assert report is not None and report.signals.rule == "absent_words"
    assert report.uncovered == ["write", "privacy", "policy", "app"]
    # the collection's own words, one absent word among them: not this rule's
    kept = generic.ask("must redistribution retain the copyright notice verbatim", collection="g")
    assert kept.details.answerability is not None
    assert kept.details.answerability.signals.rule != "absent_words"


def test_a_strong_rest_weighs_out_no_name(tmp_path: Path) -> None:
    """A well-covered, strongly similar rest of the question weighs out a word in small
    letters, never one written as a name: "how is AI regulated in the UK?" has a strong
    rest in the EU's Act, and is about the UK."""
    rows = licence_rows(LICENCE[:2], cited=True)
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as s:
        s.ingest(write_jsonl(tmp_path / "g.jsonl", rows), collection="g")
        asked = "Must redistribution of source code retain the copyright notice under Zorblax?"
        named = s.ask(asked, collection="g")
        report = named.details.answerability
        assert (named.decision, named.reason) == ("ABSTAIN", "subject_not_in_corpus")
        assert report is not None and report.signals.rule == "unknown_name"
        assert report.uncovered == ["zorblax"] and not report.signals.weighed
        # the rest was strong: the one thing that kept the name is that it is a name
        assert report.signals.coverage >= STRONG_COVERAGE
        assert report.signals.best_dense >= report.thresholds.strong_floor
        rest = s.ask(asked.replace(" under Zorblax", ""), collection="g")
        assert rest.decision == "ANSWERABLE"


def test_verbs_a_question_asks_with_are_no_absent_words(generic: Sectio) -> None:
    # a law writes "inform" and "obtain", not "tell" or "gets": the subject is the notice
    for question in (
        "Do I have to tell users about the copyright notice?",
        "Who gets told about the copyright notice?",
    ):
        report = generic.ask(question, collection="g").details.answerability
        assert report is not None and report.signals.rule != "absent_words", question


# --- known words the collection never writes together -------------------------------------
def test_known_words_never_written_together_abstain(generic: Sectio) -> None:
    # every word is the collection's ("terms", "notice", "grant"), none next to another
    off = generic.ask("What terms does the notice grant?", collection="g")
    report = off.details.answerability
    assert report is not None
    assert (off.decision, off.reason) == ("ABSTAIN", "subject_not_in_corpus")
    assert report.signals.rule == "unseen_pairs"
    assert report.uncovered == ["terms", "notice", "grant"]
    # one pair the collection writes ("copyright notice") and the rule says nothing
    kept = generic.ask("Which copyright notice must redistribution retain?", collection="g")
    assert kept.details.answerability is not None
    assert kept.details.answerability.signals.rule != "unseen_pairs"


def test_keywords_that_open_with_an_unknown_name_abstain(generic: Sectio) -> None:
    # no question: keywords whose subject, the word they open with, is another licence
    for keywords in ("MIT copyright notice obligations", "The MIT copyright notice"):
        off = generic.ask(keywords, collection="g")
        report = off.details.answerability
        assert report is not None and report.signals.unknown == ["mit"]
        assert (off.decision, report.signals.rule) == ("ABSTAIN", "unknown_name")
    for other in (
        "copyright notice obligations under MIT",  # keywords: the name is a detail
        "MIT copyright holders copy the work.",  # a sentence: a claim to check
    ):
        kept = generic.ask(other, collection="g").details.answerability
        assert kept is not None and kept.signals.unknown == ["mit"]
        assert kept.signals.rule != "unknown_name"


def test_words_written_one_content_word_apart_are_written_together(generic: Sectio) -> None:
    # "Copyright holders grant permission": holders and permission stand one word apart
    near = generic.ask("Which holders have permission?", collection="g")
    assert near.details.answerability is not None
    assert near.details.answerability.signals.rule != "unseen_pairs"
    # copyright and permission stand two words apart: not written together
    far = generic.ask("Which copyright has permission?", collection="g")
    report = far.details.answerability
    assert report is not None and report.signals.rule == "unseen_pairs"
    assert (far.decision, report.uncovered) == ("ABSTAIN", ["copyright", "permission"])


def test_words_a_question_asks_with_stand_in_no_pair(tmp_path: Path) -> None:
    # the collection writes "go" and "many", never beside "permission" or "holders"
    texts = [
        "Copyright holders grant permission to copy and distribute the work.",
        "Many forks go unmaintained when their maintainers move on.",
    ]
    rows = [
        {"chunk_id": f"lic#{i}", "doc_id": "license", "section_key": f"s{i}", "part_index": 0}
        | {"text": text}
        for i, text in enumerate(texts)
    ]
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as sx:
        sx.ingest(write_jsonl(tmp_path / "g.jsonl", rows), collection="g")
        # "go" left out, "permission" and "holders" are a pair the collection writes
        asked = sx.ask("Does permission go to holders?", collection="g")
        report = asked.details.answerability
        assert report is not None and report.signals.rule != "unseen_pairs"
        # left out, "permission" and "maintainers" are a pair the collection never writes
        far = sx.ask("Does permission go to maintainers?", collection="g")
        report = far.details.answerability
        assert report is not None and report.signals.rule == "unseen_pairs"


def test_term_pairs_are_read_per_field_in_either_order() -> None:
    from sectio.index.lexical import LexicalEncoder
    from sectio.retrieve.stats import TermStats

    lexical = LexicalEncoder(LexicalSettings())
    stats = TermStats.from_payloads(
        [{"section_title": "Caret requirements", "text": "Pin your versions with care."}],
        lexical,
    )
    (caret,), (req,), (pin,), (ver,) = (
        sorted(lexical.terms(w)) for w in ("caret", "requirements", "pin", "versions")
    )
    assert (caret, req) in stats.pairs and (req, caret) in stats.pairs
    assert (pin, ver) in stats.pairs  # "your" is a stopword: skipped
    assert (req, pin) not in stats.pairs  # a title does not run into its text
    (care,) = sorted(lexical.terms("care"))
    assert (pin, care) not in stats.pairs and stats.pairs.near(pin, care)  # one word apart
    assert stats.pairs.near(care, pin) and not stats.pairs.near(caret, pin)


def test_a_common_word_inside_a_file_name_is_a_name(generic: Sectio) -> None:
    # the fake embedder's vocabulary reads every word as a common one: "hatch" alone is a
    # word the licences simply do not use, "hatch.toml" names another tool's file
    named = generic.ask("How do I copy the work into hatch.toml?", collection="g")
    report = named.details.answerability
    assert report is not None and report.signals.unknown == ["hatch", "toml"]
    assert (named.decision, report.signals.rule) == ("ABSTAIN", "unknown_name")
    plain = generic.ask("How do I copy the work into a hatch?", collection="g")
    assert plain.details.answerability is not None
    assert plain.details.answerability.signals.unknown == []


def test_a_common_word_written_with_capitals_is_a_name(generic: Sectio) -> None:
    # "mit" is a word of the model's vocabulary; written "MIT" it names another licence
    q = "How do I copy the work under {}?"
    for name in ("MIT", "Artistic"):  # in capitals, or capitalised inside the question
        named = generic.ask(q.format(name), collection="g")
        report = named.details.answerability
        assert report is not None and report.signals.unknown == [name.lower()]
        assert (named.decision, report.signals.rule) == ("ABSTAIN", "unknown_name")
    for plain in (q.format("mit"), q.format("OK"), q.format("mit").upper(), "Artistic work?"):
        # written small, "OK" or "US", a question all in capitals, or a capital opening it
        result = generic.ask(plain, collection="g")
        assert result.details.answerability is not None
        assert result.details.answerability.signals.unknown == [], plain


def test_a_common_word_written_as_the_tool_worked_with_is_a_name(generic: Sectio) -> None:
    # "hatch" is a word of the model's vocabulary the licences never use: written as the
    # tool the question works with, and followed by what is done with it, it names one
    for q in ("How do I copy the work with hatch build?", "How do I use hatch to copy it?"):
        named = generic.ask(q, collection="g")
        report = named.details.answerability
        assert report is not None and report.signals.unknown == ["hatch"], q
        assert (named.decision, report.signals.rule) == ("ABSTAIN", "unknown_name"), q
    for plain in ("How do I copy the work with a hatch?", "Can I copy the work with hatch?"):
        # after an article, or the last word: what something is done with
        result = generic.ask(plain, collection="g")
        assert result.details.answerability is not None
        assert result.details.answerability.signals.unknown == [], plain


def test_info_shows_margins_in_the_models_units(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a floor of 0.86 leaves 0.14 of the cosine range: every margin is x0.2 of the profile's
    profile = tmp_path / "narrow.toml"
    profile.write_text(
        'name = "narrow"\n[answerability]\ndense_floor = 0.86\nplanner_margin = 0.1\n',
        encoding="utf-8",
    )
    home = tmp_path / "home"
    with Sectio(Settings(home=home, embedder="fake", traces=False)) as s:
        rows = [
            {"chunk_id": "a#0", "doc_id": "a", "section_key": "s", "part_index": 0, "text": "x."}
        ]
        s.ingest(write_jsonl(tmp_path / "n.jsonl", rows), profile=str(profile), collection="n")
    for key, value in (("SECTIO_HOME", str(home)), ("SECTIO_EMBEDDER", "fake")):
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("SECTIO_TRACES", "false")
    runner = CliRunner()
    out = runner.invoke(cli, ["info", "-c", "n", "--json"])
    assert out.exit_code == 0, out.output
    tenant = json.loads(out.output)["collections"][0]["answerability"]["tenants"]["default"]
    assert (tenant["dense_floor"], tenant["margin_scale"]) == (0.86, 0.2)
    assert tenant["margin_floor"] == 0.88 and tenant["strong_floor"] == 0.93
    human = runner.invoke(cli, ["info", "-c", "n"])
    assert "margins x0.200, the model's units" in human.output


def test_a_heading_named_in_part_lets_a_far_page_answer() -> None:
    from types import SimpleNamespace

    from sectio.contract.result import Evidence
    from sectio.index.lexical import LexicalEncoder
    from sectio.retrieve.answerability.rules.planner import heading_named_in_part

    def ctx(question: str, title: str) -> SimpleNamespace:
        row = Evidence(
            chunk_id="r#0",
            doc_id="docs/repositories.md",
            section_key="certificates",
            part_index=0,
            text="Point the client at your own CA bundle.",
            score=0.45,
            source_refs=[{"source": "docs/repositories.md"}],
            section_title=title,
        )
        return SimpleNamespace(
            question=question,
            outcome=SimpleNamespace(evidence=[row]),
            words=SimpleNamespace(lexical=LexicalEncoder(LexicalSettings())),
            signals=Signals(route="docs_plan", document_named=None),
        )

    title = "Custom certificate authority and mutual TLS authentication"
    named = ctx("How do I use a custom certificate authority for a private index?", title)
    assert heading_named_in_part(named)  # type: ignore[arg-type]
    assert named.signals.heading_named == title
    # two words of it, or three only with stopwords between them, name no section
    assert not heading_named_in_part(ctx("Is a custom certificate enough?", title))  # type: ignore[arg-type]
    assert not heading_named_in_part(ctx("How do I use the client?", "How do I use the CLI"))  # type: ignore[arg-type]
    # a heading of two content words, written whole ("DETACHED HEAD" of git-checkout)
    detached = ctx("I'm in a detached HEAD state. How do I get out?", "DETACHED HEAD")
    assert heading_named_in_part(detached)  # type: ignore[arg-type]
    assert not heading_named_in_part(ctx("Is the HEAD detached?", "DETACHED HEAD"))  # type: ignore[arg-type]


def test_term_stats_count_each_record_once_and_read_shared_titles_once() -> None:
    """Document frequencies are per record over its title, section title and text (a
    title shared by records counted in each); ``df_only`` gives the same counts."""
    from sectio.index.lexical import LexicalEncoder
    from sectio.retrieve.stats import TermStats

    lexical = LexicalEncoder(LexicalSettings())
    payloads = [
        {"doc_title": "Frob guide", "section_title": "Caret requirements", "text": "Pin it."},
        {"doc_title": "Frob guide", "section_title": "Caret requirements", "text": "Caret pins."},
        {"doc_title": "Frob guide", "section_title": "Tilde", "text": "Frob tilde ranges."},
    ]
    stats = TermStats.from_payloads(payloads, lexical)
    joined = [lexical.terms(" ".join(str(v) for v in p.values())) for p in payloads]
    want = {t: sum(t in j for j in joined) for t in set().union(*joined)}
    assert stats.chunks == 3 and stats.df == want
    (frob,), (caret,) = (sorted(lexical.terms(w)) for w in ("frob", "caret"))
    assert stats.df[frob] == 3 and stats.df[caret] == 2
    assert {"frob", "guide", "tilde", "ranges"} <= stats.words
    assert TermStats.from_payloads(payloads, lexical, df_only=True).df == want


def test_an_unwritable_stats_folder_costs_a_recount_never_an_answer(sx: Sectio) -> None:
    coll = sx.collection("default")
    path = stats_file(coll, "default")
    assert path is not None
    for f in path.parent.iterdir():
        f.unlink()
    path.parent.rmdir()
    path.parent.write_text("")  # a file where the folder should be: nothing can be stored
    sx.release("default")
    scope = sx._scope(sx.collection("default"), "default")
    assert load_stats(scope) is None and not refresh_stats(scope)
    result = sx.ask("what is the dose of zorbitrex")
    assert result.decision in ("ANSWERABLE", "ABSTAIN")  # answered or abstained, not an error
    assert sx.router("default").resolver.view(scope).stats.chunks > 0


def test_a_one_letter_word_is_a_term_only_as_a_capital_standing_alone(generic: Sectio) -> None:
    # "b" of "?holder=a&holder=b" is a value in a URL, not a name the collection lacks;
    # "C", the language, written alone, is one
    router = names_read(generic.router("g"))
    asked = router.ask("Can I list copyright holders as ?holder=a&holder=b?", tenant="default")
    report = asked.details.answerability
    assert report is not None and report.signals.terms is not None
    assert "b" not in report.signals.terms and "holders" in report.signals.terms
    named = router.ask("Can copyright holders distribute the work in C?", tenant="default")
    assert named.details.answerability is not None
    assert "c" in (named.details.answerability.signals.terms or {})
