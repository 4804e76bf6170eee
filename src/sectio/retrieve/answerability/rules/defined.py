"""``defined_term``: a definition question whose first evidence chunk defines its term passes.

"What does substantial modification mean?" on the AI Act comes no closer to Article 3,
which defines sixty-eight terms in one long list, than unrelated questions come to the
collection: the dense floor would abstain. Yet the collection defines the term word for
word ("'substantial modification' means a change to an AI system ..."), which
:func:`~sectio.retrieve.definitions.definition_first` put first. On a ranked route, a
question that asks what a term is or means (:func:`~sectio.retrieve.definitions.defined_term`)
passes when its first evidence chunk defines that term
(:func:`~sectio.retrieve.definitions.defines`); ``signals.rule`` is ``defined_term``.
"""

from __future__ import annotations

from sectio.retrieve.answerability.context import RuleContext
from sectio.retrieve.answerability.verdict import Verdict
from sectio.retrieve.definitions import defined_term, defines


class DefinedTerm:
    """A definition question the first evidence chunk answers by definition."""

    name = "defined_term"

    def check(self, ctx: RuleContext) -> Verdict | None:
        evidence = ctx.outcome.evidence
        if not ctx.ranked or not evidence:
            return None
        term = defined_term(ctx.question)
        first = evidence[0]
        if term is None or not defines(first.text, term, first.section_title or ""):
            return None
        return ctx.decide(self.name, None)
