"""``coverage``: the evidence must hold enough of the salient-term weight (``min_coverage``)."""

from __future__ import annotations

from sectio.retrieve.answerability.context import RuleContext
from sectio.retrieve.answerability.verdict import (
    SUBJECT_NOT_IN_CORPUS,
    WEAK_EVIDENCE,
    Verdict,
)


class Coverage:
    """Coverage under ``min_coverage`` abstains (an unknown name among the terms: the
    subject is not in the corpus; else the evidence is weak)."""

    name = "coverage"

    def check(self, ctx: RuleContext) -> Verdict | None:
        if ctx.coverage >= ctx.settings.min_coverage:
            return None
        uncovered = [t.word for t in ctx.terms if not t.covered]
        reason = SUBJECT_NOT_IN_CORPUS if ctx.unknown else WEAK_EVIDENCE
        return ctx.decide(self.name, reason, uncovered)
