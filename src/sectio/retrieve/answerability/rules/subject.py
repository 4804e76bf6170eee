"""``subject``: documents are the subjects (``subject = "document"``); a question naming
none must not name another one.

Another subject is an unknown name, a name-like word the collection mentions
only where documents list other subjects (``subject_sections``) and never in
its lookup section, or a name the resolution says no document holds (a domain
pack's facts: a brand or an ingredient of the brand table). A lookup's phrase
is a condition, never a subject.
"""

from __future__ import annotations

from sectio.retrieve.answerability.context import RuleContext
from sectio.retrieve.answerability.verdict import SUBJECT_NOT_IN_CORPUS, Verdict


class Subject:
    """The question names a subject the collection does not hold."""

    name = "subject"

    def check(self, ctx: RuleContext) -> Verdict | None:
        if ctx.settings.subject != "document" or ctx.outcome.route == "lookup":
            return None
        unknown = ctx.unweighed
        foreign = ctx.subjects.foreign(ctx.terms) if ctx.subjects is not None else []
        foreign += [m for m in names_elsewhere(ctx) if m not in {*foreign, *unknown}]
        ctx.signals.other_subjects = foreign
        if unknown or foreign:
            return ctx.decide(self.name, SUBJECT_NOT_IN_CORPUS, [*unknown, *foreign])
        return None


def names_elsewhere(ctx: RuleContext) -> list[str]:
    """Names the resolution read that no document holds: brands whose ingredients no
    document holds ("zoloft"), then one-word ingredients no document holds
    ("clarithromycin", which a label may mention among its interactions)."""
    if ctx.turn.resolution is None:
        return []
    facts = ctx.turn.resolution.doc_facts
    brands = [b.brand.casefold() for b in facts.brands_not_in_collection]
    return list(dict.fromkeys([*brands, *facts.ingredients_not_in_collection]))
