"""What an answerability rule reads: the turn, the collection's statistics, the signals so far.

A rule is an object with a ``name`` and a ``check(ctx)`` that returns a
:class:`~sectio.retrieve.answerability.verdict.Verdict` (the chain stops: that
verdict decides) or None (the next rule runs). Rules record what they measure
on ``ctx.signals`` and ``ctx.thresholds``; the salient terms and the coverage
are computed once, on first use.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from sectio.contract.diagnostics import Signals, Thresholds
from sectio.contract.profile import AnswerabilitySettings
from sectio.index.lexical import LexicalEncoder
from sectio.retrieve.answerability.margins import margin_scale
from sectio.retrieve.answerability.verdict import Verdict
from sectio.retrieve.answerability.weigh import weigh
from sectio.retrieve.fusion import is_question
from sectio.retrieve.routes.base import Outcome, Turn
from sectio.retrieve.stats import SubjectWords, Term, TermStats, coverage, evidence_terms
from sectio.retrieve.stats import salient_terms as _salient_terms
from sectio.retrieve.words import finder_words

#: Routes that answer exactly once a document is named (the subject is the name).
EXACT_ROUTES = frozenset({"section", "overview"})
#: The docs planner's route (its own rules: :mod:`~sectio.retrieve.answerability.rules.planner`).
PLANNER_ROUTE = "docs_plan"


@dataclass(frozen=True)
class CatalogMatch:
    """How close a question comes to the closest page of a docs collection's catalog.

    ``best``: the question's best cosine among the catalog entries (one per
    page); ``floor``: the ``catalog_percentile`` of the best cosines that
    general-knowledge questions reach in the same catalog.
    """

    best: float
    floor: float


@dataclass(frozen=True)
class Vocabulary:
    """The words a collection's rules leave out or read specially.

    Attributes:
        lexical: the collection's BM25 encoder (terms of a word).
        routing: every word of the profile's routing phrases (never salient).
        common: whether a word is a common word of the language.
        generic: BM25 terms of the profile's ``[anchors] generic`` words (never salient).
    """

    lexical: LexicalEncoder
    routing: frozenset[str]
    common: Callable[[str], bool] = field(default=lambda _w: False)
    generic: frozenset[int] = frozenset()


@dataclass
class RuleContext:
    """One turn under judgement (its outcome set) and what the rules share.

    Attributes:
        turn: the turn (its ``outcome`` is what is judged).
        settings: the profile's ``[answerability]`` settings.
        words: the collection's vocabulary (:class:`Vocabulary`).
        stats: the tenant's term statistics.
        subjects: the words that name the collection's subjects (``subject = "document"``).
        dense_floor: the calibrated dense floor (None: an exact route, or no evidence).
        catalog: the question against a docs collection's page catalog (called on need).
        named: how the turn's document was named (None: no document named).
        signals: what the rules measured (``details.answerability.signals``).
        thresholds: the floors they held it against.
    """

    turn: Turn
    settings: AnswerabilitySettings
    words: Vocabulary
    stats: TermStats
    subjects: SubjectWords | None
    dense_floor: float | None
    catalog: Callable[[], CatalogMatch | None] | None
    named: str | None
    signals: Signals
    thresholds: Thresholds

    @property
    def outcome(self) -> Outcome:
        assert self.turn.outcome is not None  # the route stage ran
        return self.turn.outcome

    @property
    def question(self) -> str:
        return self.turn.question

    @functools.cached_property
    def row_terms(self) -> list[frozenset[int]]:
        """Each evidence row's BM25 terms (title, section title and text), in evidence
        order: read once per question, by every rule that asks which row holds a word."""
        return [evidence_terms([e], self.words.lexical) for e in self.outcome.evidence]

    @functools.cached_property
    def held(self) -> frozenset[int]:
        """Every BM25 term of the evidence (the union of :attr:`row_terms`)."""
        return frozenset().union(*self.row_terms)

    @functools.cached_property
    def terms(self) -> list[Term]:
        """The question's salient terms, each marked covered when the evidence holds it.

        With ``subject = "document"``, a term is also covered when the lookup
        section of one of the evidence's documents holds it: that section says
        what the document is for, so "side effects of statins" is covered by
        atorvastatin's adverse reactions ("statins" is in its indications).
        """
        res = self.turn.resolution
        terms = _salient_terms(
            self.question,
            lexical=self.words.lexical,
            stats=self.stats,
            ignore=self.words.routing | finder_words(self.question),
            spans=res.spans if res is not None else (),
            common=self.words.common,
            generic=self.words.generic,
        )
        held = self.held
        if self.settings.subject == "document" and self.subjects is not None:
            held |= self.subjects.about_docs(e.doc_id for e in self.outcome.evidence)
        for t in terms:
            t.covered = bool(t.ids & held)
        return terms

    @functools.cached_property
    def coverage(self) -> float:
        """The share of the salient-term weight the evidence holds (:func:`coverage`)."""
        return coverage(self.terms)

    @functools.cached_property
    def unknown(self) -> list[str]:
        """Name-like salient words the collection never contains."""
        return [t.word for t in self.terms if t.unknown_name]

    @functools.cached_property
    def unweighed(self) -> list[str]:
        """The unknown names that still carry the question's subject once weighed
        (:func:`~sectio.retrieve.answerability.weigh.weigh`); the others are in
        ``signals.weighed``."""
        kept, weighed = weigh(self)
        if weighed:
            self.signals.weighed = weighed
        return kept

    def margin(self, margin: float) -> float:
        """``margin`` (a cosine distance over the dense floor) in this collection's units
        (:mod:`~sectio.retrieve.answerability.margins`; recorded as
        ``thresholds.margin_scale``). Needs a dense floor."""
        assert self.dense_floor is not None
        scale = margin_scale(self.dense_floor)
        self.thresholds.margin_scale = round(scale, 4)
        return margin * scale

    @property
    def best(self) -> float:
        """The evidence's best score (its cosine; 0.0 without evidence)."""
        return max((e.score for e in self.outcome.evidence), default=0.0)

    @property
    def asks(self) -> bool:
        """The docs planner's route, or a question (ends with "?" or opens with an asking
        word): the rules that read a subject (unknown and guest names, margins, absent
        words) judge questions; a statement to check (a SciFact claim names many genes
        and species the corpus writes another way) is judged by coverage and the floor."""
        return self.outcome.route == PLANNER_ROUTE or is_question(self.question)

    @property
    def ranked(self) -> bool:
        """A ranked route (not an exact one, not a lookup)."""
        route = self.outcome.route
        return route not in EXACT_ROUTES and route != "lookup"

    def verdict(
        self, answerable: bool, reason: str | None, uncovered: list[str] | None = None
    ) -> Verdict:
        """A verdict carrying the signals and thresholds recorded so far."""
        return Verdict(answerable, reason, self.signals, self.thresholds, list(uncovered or []))

    def decide(self, rule: str, reason: str | None, uncovered: list[str] | None = None) -> Verdict:
        """``rule`` decided: abstain with ``reason`` (None: pass), naming ``uncovered``."""
        self.signals.rule = rule
        return self.verdict(reason is None, reason, uncovered)


class Rule(Protocol):
    """One answerability rule: ``check`` returns a verdict (the chain stops) or None."""

    name: str

    def check(self, ctx: RuleContext) -> Verdict | None:
        """The verdict of this rule on ``ctx``, or None: not this rule's to decide."""
        ...
