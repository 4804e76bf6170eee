"""``coverage``: the evidence must hold enough of the salient-term weight (``min_coverage``).

Unless a passage is strong evidence by itself
(:func:`~sectio.retrieve.answerability.weigh.strong_passage`) or holds the
question's words together at odds no chance explains
(:func:`~sectio.retrieve.answerability.weigh.joint_passage`), and no unknown name
that carries the subject is among the terms (a typo, an abbreviation or a
compound the weighing explains does not:
:mod:`~sectio.retrieve.answerability.weigh`): a question in its asker's
words ("how long must a provider keep ...", "train our employees") where the
corpus writes its own ("shall keep ... for a period of ten years", "staff")
covers little of its rare words, yet
the model reads the passage that answers it. Measured on 2026-12-06 over the
eleven sets: the off-topic questions this rule stops reach at most 0.24 over
the floor, the answerable ones it stopped 0.15 to 0.38; see
docs/decisions/2026-12-06-strong-passage-and-parallel-suite.md.
"""

from __future__ import annotations

from sectio.retrieve.answerability.context import RuleContext
from sectio.retrieve.answerability.verdict import (
    SUBJECT_NOT_IN_CORPUS,
    WEAK_EVIDENCE,
    Verdict,
)
from sectio.retrieve.answerability.weigh import joint_passage, strong_passage


class Coverage:
    """Coverage under ``min_coverage`` abstains (an unknown name among the terms: the
    subject is not in the corpus; else the evidence is weak), unless a passage is strong
    evidence by itself and no name is unknown (see the module doc)."""

    name = "coverage"

    def check(self, ctx: RuleContext) -> Verdict | None:
        if ctx.coverage >= ctx.settings.min_coverage:
            return None
        if not ctx.unweighed and (strong_passage(ctx) or joint_passage(ctx)):
            return None
        uncovered = [t.word for t in ctx.terms if not t.covered]
        reason = SUBJECT_NOT_IN_CORPUS if ctx.unknown else WEAK_EVIDENCE
        return ctx.decide(self.name, reason, uncovered)
