"""``dense``: a ranked route's best cosine must be over the calibrated dense floor."""

from __future__ import annotations

from sectio.retrieve.answerability.context import RuleContext
from sectio.retrieve.answerability.verdict import WEAK_EVIDENCE, Verdict


class DenseFloor:
    """The evidence's best cosine at or under the floor abstains (``weak_evidence``)."""

    name = "dense"

    def check(self, ctx: RuleContext) -> Verdict | None:
        floor = ctx.dense_floor
        if ctx.ranked and floor is not None and ctx.outcome.evidence and ctx.best <= floor:
            return ctx.decide(self.name, WEAK_EVIDENCE)
        return None
