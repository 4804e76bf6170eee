"""The drug labels' answerability rules: a named document's ingredient in a combination
product the collection holds no label of (run before ``compound_name``)."""

from __future__ import annotations

from sectio.retrieve.answerability.context import RuleContext
from sectio.retrieve.answerability.verdict import SUBJECT_NOT_IN_CORPUS, Verdict


class CombinationBrand:
    """``combination_brand``: the question names a brand that combines the named
    document's ingredients with others no label holds ("is Augmentin the same as
    amoxicillin")."""

    name = "combination_brand"

    def check(self, ctx: RuleContext) -> Verdict | None:
        if ctx.named is None or ctx.turn.resolution is None:
            return None
        facts = ctx.turn.resolution.doc_facts
        combined = [
            b.brand.casefold()
            for b in facts.brands_not_in_collection
            if b.combines is not None and b.combines == facts.doc_id
        ]
        return ctx.decide(self.name, SUBJECT_NOT_IN_CORPUS, combined) if combined else None


class CombinationIngredients:
    """``combination_ingredients``: the question names such a combination by its
    ingredients ("amoxicillin and clavulanic acid")."""

    name = "combination_ingredients"

    def check(self, ctx: RuleContext) -> Verdict | None:
        if ctx.named is None or ctx.turn.resolution is None:
            return None
        facts = ctx.turn.resolution.doc_facts
        other = facts.combined_with
        if other is None or other.doc_id != facts.doc_id or not other.ingredients:
            return None
        return ctx.decide(self.name, SUBJECT_NOT_IN_CORPUS, list(other.ingredients))
