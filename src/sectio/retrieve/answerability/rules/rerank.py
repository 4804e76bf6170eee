"""``rerank``: with a reranker that answered, its top score against ``rerank_floor``."""

from __future__ import annotations

from sectio.retrieve.answerability.context import RuleContext
from sectio.retrieve.answerability.verdict import WEAK_EVIDENCE, Verdict


class RerankFloor:
    """A reranked top score under the profile's ``rerank_floor`` abstains."""

    name = "rerank"

    def check(self, ctx: RuleContext) -> Verdict | None:
        rerank, floor = ctx.turn.details.rerank, ctx.settings.rerank_floor
        ok = rerank is not None and rerank.status == "ok"
        if floor is None or not ok or not ctx.outcome.evidence:
            return None
        ctx.thresholds.rerank_floor = floor
        return ctx.decide(self.name, WEAK_EVIDENCE) if ctx.best < floor else None
