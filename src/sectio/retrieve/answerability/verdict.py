"""The answerability verdict, its stable reasons, and how a verdict is applied to a turn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sectio.contract.diagnostics import ClosestDocument, Signals, Thresholds, VerdictReport
from sectio.contract.result import Evidence
from sectio.retrieve.routes.base import Outcome, Turn

SUBJECT_NOT_IN_CORPUS = "subject_not_in_corpus"
WEAK_EVIDENCE = "weak_evidence"
#: Documents listed as the closest ones when a turn abstains.
CLOSEST_DOCUMENTS = 5


@dataclass
class Verdict:
    """The stage's judgement: pass, or abstain with a reason; always its signals.

    Example:
        >>> v = Verdict(False, WEAK_EVIDENCE, Signals(route="x", document_named=None),
        ...             Thresholds(min_coverage=0.5), ["flux"])
        >>> v.as_details().model_dump()["uncovered"]
        ['flux']
    """

    answerable: bool
    reason: str | None
    signals: Signals
    thresholds: Thresholds
    uncovered: list[str] = field(default_factory=list)

    def as_details(self) -> VerdictReport:
        """What ``details.answerability`` shows of the verdict."""
        out = VerdictReport(
            answerable=self.answerable,
            reason=self.reason,
            signals=self.signals,
            thresholds=self.thresholds,
        )
        if self.uncovered:
            out.uncovered = self.uncovered
        return out


def closest_documents(evidence: Sequence[Evidence]) -> list[ClosestDocument]:
    """The documents of withheld candidates, best first (what the corpus does cover)."""
    out: dict[str, ClosestDocument] = {}
    for e in evidence:
        if e.doc_id not in out:
            out[e.doc_id] = ClosestDocument(
                doc_id=e.doc_id, doc_title=e.doc_title, score=round(e.score, 4)
            )
    return list(out.values())[:CLOSEST_DOCUMENTS]


def apply(outcome: Outcome, verdict: Verdict, turn: Turn) -> None:
    """Record ``verdict`` on the turn; an abstained turn keeps its candidates out of evidence."""
    details = verdict.as_details()
    if not verdict.answerable:
        details.closest_documents = closest_documents(outcome.evidence)
        details.withheld_evidence_ids = [e.chunk_id for e in outcome.evidence]
        brands = turn.resolution.doc_facts.brands_not_in_collection if turn.resolution else []
        if brands:  # "Zoloft -> sertraline": what the question named, and why nothing matched
            details.brands_not_in_collection = brands
        outcome.evidence = []
        turn.decision, turn.reason = "ABSTAIN", verdict.reason
    turn.details.answerability = details
