"""A toy answerability rule: what a newcomer writes to add one (one module like this one)."""

from __future__ import annotations

from sectio.retrieve.answerability import WEAK_EVIDENCE, RuleContext, Verdict


class NoHomework:
    """``no_homework``: a question that asks for homework answers abstains."""

    name = "no_homework"

    def check(self, ctx: RuleContext) -> Verdict | None:
        if "homework" not in ctx.question.casefold():
            return None
        return ctx.decide(self.name, WEAK_EVIDENCE, ["homework"])
