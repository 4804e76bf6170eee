"""``unknown_name``: an unknown name that carries the subject abstains, on every profile.

A ranked route (not the docs planner's, whose rules read the collection's
headings first: :mod:`~sectio.retrieve.answerability.rules.planner`) whose
question holds a name-like word the collection never contains, and that the
weighing (:mod:`~sectio.retrieve.answerability.weigh`) leaves standing, in a
question (:attr:`~sectio.retrieve.answerability.context.RuleContext.asks`):
``subject_not_in_corpus``, ``uncovered`` naming the words. A query that is no
question (keywords: "CCPA opt-out requirements for automated decision-making",
"HIPAA rules for using AI on patient records"; or a claim to check) abstains
only for an unknown name that is its first salient word ("The HIPAA rules
for AI", "2024 CCPA opt-out"): that is its subject, where a claim's other
names (genes and species the corpus writes another way) are details.
"""

from __future__ import annotations

from sectio.retrieve.answerability.context import PLANNER_ROUTE, RuleContext
from sectio.retrieve.answerability.verdict import SUBJECT_NOT_IN_CORPUS, Verdict


class UnknownName:
    """A name the collection never contains, not weighed out, abstains."""

    name = "unknown_name"

    def check(self, ctx: RuleContext) -> Verdict | None:
        if not ctx.ranked or ctx.outcome.route == PLANNER_ROUTE:
            return None
        if ctx.asks:
            kept = ctx.unweighed
        elif ctx.question.rstrip().endswith("."):
            return None  # a sentence: a claim to check
        else:
            first = ctx.terms[0].word if ctx.terms else None
            kept = [w for w in ctx.unweighed if w == first]
        return ctx.decide(self.name, SUBJECT_NOT_IN_CORPUS, kept) if kept else None
