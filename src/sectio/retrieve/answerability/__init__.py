"""Answerability: does the evidence cover what the question is about?

A pipeline stage after every route, before ``decide``. Routes always return
*something*: a similarity search returns neighbours, a planner returns rows.
This stage asks whether that something is about the question's subject, and
when it is not, the turn abstains with a stable reason, and the candidates
move out of ``evidence`` (an LLM must not read them) into
``details.answerability.closest_documents`` (a caller can say what the corpus
does cover).

Signals (all in ``details.answerability.signals``, thresholds beside them):

* **salient terms**: the question's words minus stopwords, the profile's
  routing vocabulary and the resolved document's name, each weighted by the
  collection's own IDF (BM25 terms, stemmed; a term the collection never
  contains weighs the most). A word the collection never contains is
  ``unknown``; it counts only when it is also *name-like*: not a whole word
  of the embedding model's vocabulary ("pregabalin", "clavulanic"; the
  vocabulary's ~20k whole words are the language's common ones, so "ok",
  "leg" or "bother", which a corpus may simply not use, say nothing about
  the subject). ``coverage`` is the share of the weight the evidence holds,
  over the terms the collection contains (no evidence can hold the others).
* **subject** (profiles with ``subject = "document"``): a question that names
  no document must not name another subject: an unknown name, a
  name-like word the collection mentions only where labels list other
  drugs (``subject_sections``) and never in its lookup section ("what is
  naproxen" on a corpus whose ibuprofen label lists naproxen among its
  interactions), or a medicine of the brand table no document holds (a
  brand, or a one-word ingredient such as "clarithromycin", which an
  amoxicillin label mentions in its indications). A condition ("what treats gout") is not a subject.
* **dense**: the evidence's best cosine against a floor calibrated on the
  collection (:mod:`sectio.retrieve.calibration`).
* **rerank**: with a reranker, its top score against ``rerank_floor``.
* **docs planner** (a docs collection, no document named): a question that
  is one of the collection's headings word for word passes; an unknown name
  abstains (``rule = "unknown_name"``); ``guest_names`` are words written
  with a capital that the collection mentions in at most ``guest_share`` of
  its chunks (another product, mentioned in passing: "What is Istio?" on
  Argo CD's docs); the best cosine must reach the calibrated floor plus
  ``guest_margin`` with a guest name, and so must an evidence row that
  names each guest (``rule = "guest_name"``; ``guest_cosines``,
  ``guest_names_far``), plus ``planner_margin`` without one
  (``rule = "dense"``); last, the question's
  closest page (its best cosine among the catalog entries, one per page) must
  be closer than general-knowledge questions come to the catalog (the
  ``catalog_percentile`` of theirs; ``rule = "catalog"``).

One model for every collection (issue 34): the dense floor and the catalog
floor are percentiles of cosines measured at ingest and stored with the
collection (:mod:`sectio.retrieve.calibration`); for questions, on every
ranked route and every profile, an unknown name is weighed, not vetoed
(:mod:`~sectio.retrieve.answerability.weigh`: explained by initials the
evidence writes, or outweighed by a well-covered question at a strong cosine;
strengths, doses, versions and dosage forms are never names), the planner's
headings, guest names, margins and catalog apply, a class or definition
question about what the corpus does not hold abstains (``class_subject``),
and so does one made mostly of words the collection never contains
(``absent_words``). Profile settings choose the numbers; domain packs add
rules before them.

Reasons (stable strings):

* ``subject_not_in_corpus``: the question names something the collection
  does not hold (``details.answerability.uncovered`` names the terms);
* ``weak_evidence``: the evidence does not cover the question (coverage,
  best cosine or rerank score under its floor; the signal is named).

Exact routes (a named document's section or overview) pass: the document was
named, the section read whole. A name followed by a word the collection
never contains ("amoxicillin clavulanic acid") names another product.

The rules are modules (:mod:`sectio.retrieve.answerability.rules`), each a
``check(ctx) -> Verdict | None``; :class:`Judge` runs a chain of them in order,
the first verdict decides, and a question no rule stopped is ``covered``. A
collection's chain comes from its profile's engine and domain packs
(``sectio.registry``), as its routes do: a new rule is one module and one
line in the chain.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sectio.contract.diagnostics import Signals, Thresholds
from sectio.contract.layers import Layer
from sectio.contract.profile import AnswerabilitySettings
from sectio.retrieve.answerability.context import (
    EXACT_ROUTES,
    PLANNER_ROUTE,
    CatalogMatch,
    Rule,
    RuleContext,
    Vocabulary,
)
from sectio.retrieve.answerability.rules import docs_rules, section_rules
from sectio.retrieve.answerability.rules.named import named_how
from sectio.retrieve.answerability.verdict import (
    SUBJECT_NOT_IN_CORPUS,
    WEAK_EVIDENCE,
    Verdict,
    apply,
    closest_documents,
)
from sectio.retrieve.routes.base import Turn
from sectio.retrieve.stats import SubjectWords, TermStats

#: The ``layer`` of a docs collection's document catalog entries (one per page).
CATALOG_LAYER = Layer.D1_DOCUMENT_CATALOG.value


@dataclass(frozen=True)
class Judge:
    """The answerability chain of one collection: its rules, in order (see the module doc).

    ``rules`` default to the docs planner's chain (every rule of this package);
    the engine passes the chain its profile's engine and domain packs register.
    """

    settings: AnswerabilitySettings
    words: Vocabulary
    rules: tuple[Rule, ...] = ()

    def judge(
        self,
        turn: Turn,
        stats: TermStats,
        *,
        dense_floor: float | None,
        subjects: SubjectWords | None = None,
        catalog: Callable[[], CatalogMatch | None] | None = None,
    ) -> Verdict:
        """The verdict on ``turn``'s outcome (which must be set): the first rule's verdict,
        else ``covered`` (it passes).

        ``subjects``: the words that name this collection's subjects and the
        others it mentions (needed for ``subject = "document"``); ``catalog``:
        the question against a docs collection's page catalog (the docs planner's
        last rule; called only when a question reaches it).
        """
        assert turn.outcome is not None
        named = named_how(turn)
        ctx = RuleContext(
            turn,
            self.settings,
            self.words,
            stats,
            subjects,
            dense_floor,
            catalog,
            named,
            Signals(route=turn.outcome.route, document_named=named),
            Thresholds(min_coverage=self.settings.min_coverage),
        )
        for rule in self.rules or docs_rules():
            verdict = rule.check(ctx)
            if verdict is not None:
                return verdict
        return ctx.decide("covered", None)


def chain(rules: Sequence[Rule] | None) -> tuple[Rule, ...]:
    """``rules`` as a chain (None: the docs planner's, every rule of the package)."""
    return tuple(rules) if rules is not None else docs_rules()


__all__ = [
    "CATALOG_LAYER",
    "EXACT_ROUTES",
    "PLANNER_ROUTE",
    "SUBJECT_NOT_IN_CORPUS",
    "WEAK_EVIDENCE",
    "CatalogMatch",
    "Judge",
    "Rule",
    "RuleContext",
    "Verdict",
    "Vocabulary",
    "apply",
    "chain",
    "closest_documents",
    "docs_rules",
    "section_rules",
]
