"""Answerability as a chain of rules: registered per engine, extended by domain packs.

A new rule is one module (``tests/helpers/toy_rule.py``) and one registration
line; the drug-label knowledge comes from a domain pack the profile turns on.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sectio import Sectio, Settings, registry
from sectio.contract.profile import load_profile
from sectio.retrieve.answerability import docs_rules, section_rules
from sectio.retrieve.pipeline import Router
from tests.helpers import write_jsonl
from tests.helpers.api import label_rows
from tests.helpers.toy_rule import NoHomework


@pytest.fixture
def sx(tmp_path: Path) -> Iterator[Sectio]:
    with Sectio(Settings(home=tmp_path / "home", embedder="fake", traces=False)) as s:
        s.ingest(write_jsonl(tmp_path / "l.jsonl", label_rows("default")), profile="en_drug_label")
        yield s


def test_a_toy_rule_is_one_module_and_one_registration_line(
    sx: Sectio, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "what are the contraindications of aspirin for my homework"
    before = sx.ask(question)
    assert before.decision == "ANSWERABLE"
    monkeypatch.setitem(registry.RULES, "router", lambda: (NoHomework(), *section_rules()))
    sx._routers.clear()  # routers are built once per open collection
    after = sx.ask(question)
    assert (after.decision, after.reason) == ("ABSTAIN", "weak_evidence")
    assert after.details.answerability is not None
    assert after.details.answerability.signals.rule == "no_homework"
    assert after.details["answerability"]["uncovered"] == ["homework"]
    assert after.evidence == [] and after.details.answerability.withheld_evidence_ids
    assert sx.ask("what are the contraindications of aspirin").decision == "ANSWERABLE"


def test_each_engine_registers_its_chain() -> None:
    assert [r.name for r in section_rules()] == [
        "compound_name",
        "other_document",
        "named_document",
        "lookup_keyword",
        "measure",
        "defined_term",
        "unknown_name",
        "class_subject",
        "absent_words",
        "unseen_pairs",
        "subject",
        "coverage",
        "planner",
        "dense",
        "rerank",
    ]
    docs = [r.name for r in docs_rules()]
    assert docs.index("exact_seed") < docs.index("measure")
    assert docs.index("coverage") < docs.index("planner") < docs.index("dense")
    assert registry.rules_for(load_profile("docs"))[-1].name == "rerank"


def test_the_drug_label_pack_is_turned_on_by_the_profile(sx: Sectio) -> None:
    assert [p.name for p in registry.domains_for(load_profile("en_drug_label"))] == ["drug_labels"]
    assert registry.domains_for(load_profile("generic")) == ()
    router = sx.router("default")
    assert [r.name for r in router.judge.rules][:3] == [
        "combination_brand",
        "combination_ingredients",
        "compound_name",
    ]
    # the fake embedder's tokenizer reads every word as a common one (never a name): read
    # names as the real model's vocabulary would
    router.resolver.common = lambda _w: False
    question = "what are the side effects of aspirin and oxycodone"
    combo = router.ask(question, tenant="default")  # Percodan written as its ingredients
    assert (combo.decision, combo.reason) == ("ABSTAIN", "subject_not_in_corpus")
    assert combo.details.answerability is not None
    assert combo.details.answerability.signals.rule == "combination_ingredients"
    facts = combo.details.doc_resolution
    assert facts is not None and facts.combined_with is not None
    assert facts.combined_with.ingredients == ["oxycodone"]
    # the same collection without the pack: no domain facts, no combination rule
    bare = Router(sx.collection("default"), sx.embedder, rules=section_rules())
    bare.resolver.common = lambda _w: False
    plain = bare.ask(question, tenant="default")
    assert plain.details.doc_resolution is not None
    assert "combined_with" not in plain.details["doc_resolution"]
    assert plain.details.answerability is not None
    assert plain.details.answerability.signals.rule != "combination_ingredients"
