"""The answerability rules, one module each, and the chains the engines run.

A chain is a tuple of rules tried in order; the first verdict decides
(:class:`~sectio.retrieve.answerability.Judge`). A new rule is one module here
(a class with a ``name`` and ``check(ctx) -> Verdict | None``) and one line in
a chain; a domain pack adds its rules before ``compound_name``
(:func:`with_rules_before`).

==================  ==========================================================
rule                decides
==================  ==========================================================
``compound_name``   a named document's name followed by a name the collection
                    never contains (another product) abstains
``other_document``  a capitalised name of the evidence documents' kind that no
                    document has and the collection never writes abstains
                    ("the Business Source License" beside licences)
``named_document``  a named document passes
``lookup_keyword``  a lookup that found its phrase word for word passes
``exact_seed``      a docs plan that found a page by its exact path, or read a
                    named section whole, passes
``measure``         (records the terms, coverage and best cosine)
``defined_term``    a definition question whose first evidence chunk defines its
                    term passes ("what does substantial modification mean?")
``unknown_name``    a ranked route's unknown name, not weighed out, abstains
                    (keywords: the name they open with; a sentence: none)
``class_subject``   a class or definition question about what the corpus does
                    not hold abstains ("what type of drug is ecstasy")
``absent_words``    a question mostly of words the collection never contains
                    abstains (``subject = "terms"``)
``unseen_pairs``    a question whose known words the collection never writes
                    side by side abstains (``subject = "terms"``), unless one
                    passage holds them together at odds no chance explains
``subject``         another subject named (``subject = "document"``) abstains
``coverage``        too little of the salient-term weight covered abstains,
                    unless a passage is strong evidence by itself or holds
                    the question's words together (``joint_passage``)
``planner``         names, headings, guests, margins and a docs catalog (every
                    ranked route; an unknown name abstains before a heading the
                    question names passes it)
``dense``           a best cosine at or under the calibrated floor abstains
``rerank``          a reranked top score under ``rerank_floor`` abstains
==================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Sequence

from sectio.retrieve.answerability.context import Rule
from sectio.retrieve.answerability.rules.absent import AbsentWords
from sectio.retrieve.answerability.rules.category import ClassSubject
from sectio.retrieve.answerability.rules.coverage import Coverage
from sectio.retrieve.answerability.rules.defined import DefinedTerm
from sectio.retrieve.answerability.rules.dense import DenseFloor
from sectio.retrieve.answerability.rules.lookup import LookupKeyword
from sectio.retrieve.answerability.rules.measure import Measure
from sectio.retrieve.answerability.rules.named import CompoundName, NamedDocument, OtherDocument
from sectio.retrieve.answerability.rules.planner import ExactSeed, Planner
from sectio.retrieve.answerability.rules.rerank import RerankFloor
from sectio.retrieve.answerability.rules.subject import Subject
from sectio.retrieve.answerability.rules.unknown import UnknownName
from sectio.retrieve.answerability.rules.unseen import UnseenPairs


def section_rules() -> tuple[Rule, ...]:
    """The section router's chain (``engine = "router"``)."""
    return (
        CompoundName(),
        OtherDocument(),
        NamedDocument(),
        LookupKeyword(),
        Measure(),
        DefinedTerm(),
        UnknownName(),
        ClassSubject(),
        AbsentWords(),
        UnseenPairs(),
        Subject(),
        Coverage(),
        Planner(),
        DenseFloor(),
        RerankFloor(),
    )


def docs_rules() -> tuple[Rule, ...]:
    """The docs planner's chain (``engine = "docs_planner"``): the section router's, with
    ``exact_seed`` before the measures."""
    return with_rules_before(section_rules(), "measure", [ExactSeed()])


def with_rules_before(chain: Sequence[Rule], name: str, rules: Sequence[Rule]) -> tuple[Rule, ...]:
    """``chain`` with ``rules`` inserted before its rule ``name`` (at the end if it has none)."""
    at = next((i for i, r in enumerate(chain) if r.name == name), len(chain))
    return (*chain[:at], *rules, *chain[at:])


__all__ = [
    "AbsentWords",
    "ClassSubject",
    "CompoundName",
    "Coverage",
    "DefinedTerm",
    "DenseFloor",
    "ExactSeed",
    "LookupKeyword",
    "Measure",
    "NamedDocument",
    "OtherDocument",
    "Planner",
    "RerankFloor",
    "Subject",
    "UnknownName",
    "UnseenPairs",
    "docs_rules",
    "section_rules",
    "with_rules_before",
]
