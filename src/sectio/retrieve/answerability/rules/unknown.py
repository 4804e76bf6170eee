"""``unknown_name``: an unknown name that carries the subject abstains, on every profile.

A ranked route (not the docs planner's, whose rules read the collection's
headings first: :mod:`~sectio.retrieve.answerability.rules.planner`) whose
question holds a name-like word the collection never contains, and that the
weighing (:mod:`~sectio.retrieve.answerability.weigh`) leaves standing, in a
question (:attr:`~sectio.retrieve.answerability.context.RuleContext.asks`):
``subject_not_in_corpus``, ``uncovered`` naming the words.
"""

from __future__ import annotations

from sectio.retrieve.answerability.context import PLANNER_ROUTE, RuleContext
from sectio.retrieve.answerability.verdict import SUBJECT_NOT_IN_CORPUS, Verdict


class UnknownName:
    """A name the collection never contains, not weighed out, abstains."""

    name = "unknown_name"

    def check(self, ctx: RuleContext) -> Verdict | None:
        if not ctx.ranked or ctx.outcome.route == PLANNER_ROUTE or not ctx.asks:
            return None
        kept = ctx.unweighed
        return ctx.decide(self.name, SUBJECT_NOT_IN_CORPUS, kept) if kept else None
