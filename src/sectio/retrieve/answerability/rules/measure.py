"""Not a decision: records the salient terms, the coverage and the best cosine as signals.

Every rule after it reads these (``signals.terms``, ``unknown``, ``coverage``,
``best_dense``; ``thresholds.dense_floor``).
"""

from __future__ import annotations

from sectio.retrieve.answerability.context import RuleContext
from sectio.retrieve.answerability.verdict import Verdict


class Measure:
    """Signals of the questions no earlier rule decided (always returns None)."""

    name = "measure"

    def check(self, ctx: RuleContext) -> Verdict | None:
        signals, terms = ctx.signals, ctx.terms
        signals.terms = {t.word: round(t.idf, 3) for t in terms}
        signals.unknown = ctx.unknown
        signals.coverage = round(ctx.coverage, 4)
        if ctx.ranked and ctx.outcome.evidence:
            floor = ctx.dense_floor
            signals.best_dense = round(ctx.best, 4)
            ctx.thresholds.dense_floor = None if floor is None else round(floor, 4)
        return None
