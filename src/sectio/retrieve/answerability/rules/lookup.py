"""``lookup_keyword``: a reverse lookup whose phrase was found word for word passes."""

from __future__ import annotations

from sectio.retrieve.answerability.context import RuleContext
from sectio.retrieve.answerability.verdict import Verdict


class LookupKeyword:
    """A lookup that matched its phrase in the lookup section (``stage = "keyword"``)."""

    name = "lookup_keyword"

    def check(self, ctx: RuleContext) -> Verdict | None:
        outcome = ctx.outcome
        if outcome.route == "lookup" and outcome.details.stage == "keyword":
            return ctx.decide(self.name, None)
        return None
