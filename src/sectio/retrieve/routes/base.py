"""The shapes every route shares: the turn being answered, what a route returns, the protocol.

A route is an object with a ``name`` and a ``run(scope, turn)`` that returns an
:class:`Outcome`, or ``None`` when the turn is not its kind (the pipeline then
tries the next route). Routes never decide: the pipeline's later stages
(rerank, hydrate, keep, pack, decide) finish what a route returns, as its
``finish`` says.

Example:
    >>> from sectio.contract.request import AskRequest
    >>> turn = Turn(AskRequest.of("metformin dose"))
    >>> turn.request.question, turn.resolution is None
    ('metformin dose', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from sectio.contract.diagnostics import Diagnostics, DocFacts, SectionFacts
from sectio.contract.request import AskRequest
from sectio.contract.result import Decision, Evidence
from sectio.retrieve.intent import IntentReading
from sectio.retrieve.resolve_doc import DocResolution
from sectio.retrieve.resolve_section import SectionMatch
from sectio.retrieve.scope import ReadScope

#: What the pipeline does after a route: nothing (an exact answer), pack it to the
#: token budget, or rank-finish it (rerank, hydrate parents, keep top_k, pack).
Finish = Literal["none", "pack", "rank"]


@dataclass(frozen=True)
class Resolution:
    """What the resolve stage read in the question (and what the caller forced).

    Attributes:
        doc_id: the document: forced by the caller, else the one the question names.
        named: the document resolver's reading of the question (None: no name found).
        docs_named: ``(doc_id,)``, or the candidates of an ambiguous question.
        matches: every section the profile's phrases found, best first.
        match: the chosen phrase match (the best one a named document has).
        section_key: the section: forced, else the chosen match's (None for a free-form turn).
        section_forced: the caller gave the section (its absence is then the answer).
        display_name: the document's title (its id when it has none).
        sections_of_doc: the sections holding prose of ``doc_id`` (empty when unknown).
        sections_named: the sections holding prose of each of ``docs_named``, in order.
        inherited: ``doc_id`` is the conversation's previous document (the
            question named none).
        also: a second section the question asks for, its phrase joined to the
            first's by a joiner word ("indications and contraindications");
            answered whole after ``section_key``.
        doc_facts: what was read of the document, as ``details.doc_resolution``
            shows it (with the domain pack's facts: medicines no document holds).
        section_facts: what was read of the section (``details.section_resolution``).
    """

    doc_id: str | None
    named: DocResolution | None
    docs_named: tuple[str, ...]
    matches: tuple[SectionMatch, ...]
    match: SectionMatch | None
    section_key: str | None
    section_forced: bool
    display_name: str | None = None
    sections_of_doc: frozenset[str] = frozenset()
    sections_named: tuple[frozenset[str], ...] = ()
    inherited: bool = False
    also: str | None = None
    doc_facts: DocFacts = field(default_factory=lambda: DocFacts(doc_id=None, how="none"))
    section_facts: SectionFacts = field(
        default_factory=lambda: SectionFacts(section_key=None, how="none")
    )

    @property
    def spans(self) -> tuple[tuple[int, int], ...]:
        """Token spans of the document names found in the question."""
        return self.named.spans if self.named is not None else ()

    @property
    def sections(self) -> tuple[str, ...]:
        """The sections to answer: ``section_key``, then ``also`` (empty when none)."""
        keys = (self.section_key, self.also)
        return tuple(k for k in keys if k)

    @property
    def ambiguous(self) -> bool:
        return self.named is not None and self.named.ambiguous


@dataclass
class Outcome:
    """What a route found, before the finishing stages.

    Attributes:
        route: the route's name (``RetrievalResult.route``).
        evidence: candidates in the route's order (a ranked route: most relevant first).
        details: route-specific facts, merged into the result's ``details``
            (a partial :class:`~sectio.contract.diagnostics.Diagnostics`).
        finish: which finishing stages run (see :data:`Finish`).
        doc_id: ``resolved_doc_id`` of the result.
        section_key: ``resolved_section_key`` of the result.
        omitted: chunk ids left out (token budget, row limit).
        timings: extra timings (ms) for the result.
        keep: a ranked outcome's evidence kept after rerank and hydration (None: the
            request's ``top_k``, else the policy's ``rerank_top_k``).
    """

    route: str
    evidence: list[Evidence]
    details: Diagnostics = field(default_factory=Diagnostics)
    finish: Finish = "none"
    doc_id: str | None = None
    section_key: str | None = None
    omitted: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    keep: int | None = None


@dataclass
class Turn:
    """One question on its way through the pipeline (each stage fills its part).

    Attributes:
        request: what the caller asked.
        resolution: the resolve stage's reading (None before it, and for direct routes).
        outcome: the route's result (None until a route ran).
        details: the result's ``details`` (every stage sets its typed part).
        timings: stage timings in ms.
        decision: the decide stage's decision (None before it).
        reason: its stable reason string.
        intent: the section-intent reading of a named document's question (None
            when no intent step ran); the free-form route ranks with it.
    """

    request: AskRequest
    resolution: Resolution | None = None
    outcome: Outcome | None = None
    details: Diagnostics = field(default_factory=Diagnostics)
    timings: dict[str, float] = field(default_factory=dict)
    decision: Decision | None = None
    reason: str | None = None
    intent: IntentReading | None = None

    @property
    def question(self) -> str:
        return self.request.question

    @property
    def resolved(self) -> Resolution:
        """The resolution (the resolve stage has run).

        Raises:
            RuntimeError: a route that needs the resolution ran as a direct route.
        """
        if self.resolution is None:
            raise RuntimeError("the resolve stage has not run for this turn")
        return self.resolution


class Route(Protocol):
    """One way of answering a turn.

    ``name`` is the result's ``route``. ``needs_resolution``: the route reads
    ``turn.resolution``, so the pipeline resolves the question (once) before
    running it; a route that answers from the question alone (``lookup``)
    says False, and nothing is resolved for it.
    """

    name: str
    needs_resolution: bool

    def run(self, scope: ReadScope, turn: Turn) -> Outcome | None:
        """The outcome, or None when the turn is not this route's kind."""
        ...
