"""``unseen_pairs``: a question whose known words the collection never writes together.

An off-topic question in the corpus's own words ("How do I use uv pip compile
to pin requirements?" on the Poetry docs, "What is the statute of limitations
for breach of contract in California?" on licence texts) passes coverage:
each word is somewhere in the collection. What the collection never does is
write them side by side. Where terms decide (``subject = "terms"``), a
question on a ranked route whose known salient terms make at least one
adjacent pair, none of which the collection writes next to each other or one
content word apart (stopwords skipped, either order:
:meth:`~sectio.retrieve.stats.TermPairs.near`; "fines for breaking the rules"
where the AI Act writes "rules on administrative fines"), abstains
(``subject_not_in_corpus``, the pairs' words uncovered) unless the
evidence is strong (:func:`~sectio.retrieve.answerability.weigh.strong_evidence`),
one passage holds the question's words together at odds no chance explains
(:func:`~sectio.retrieve.answerability.weigh.joint_passage`), or the docs plan
put first the rows of a section whose own title the question writes
(:func:`titled`: "How do I set a coverageThreshold so the build fails below
80%?" writes a Jest option's heading).

Not on a drug corpus (``subject = "document"``): consumers write conditions
and complaints in words no label puts together ("leg swelling caused by
steroids"), and the subject rule reads other drugs from the labels.
"""

from __future__ import annotations

import itertools

from sectio.retrieve.answerability.context import RuleContext
from sectio.retrieve.answerability.rules.absent import terms_decide
from sectio.retrieve.answerability.verdict import SUBJECT_NOT_IN_CORPUS, Verdict
from sectio.retrieve.answerability.weigh import joint_passage, strong_evidence
from sectio.retrieve.stats import Term
from sectio.retrieve.words import ASKING_WORDS


def question_pairs(terms: list[Term]) -> list[tuple[Term, Term]]:
    """The adjacent pairs of the question's salient terms the collection contains, the
    words a question asks with left out (:data:`~sectio.retrieve.words.ASKING_WORDS`:
    "how many calls go into one batch" pairs "calls" with "one")."""
    known = [t for t in terms if t.df > 0 and t.word not in ASKING_WORDS]
    return list(itertools.pairwise(known))


class UnseenPairs:
    """Known words the collection never writes together (see the module doc)."""

    name = "unseen_pairs"

    def check(self, ctx: RuleContext) -> Verdict | None:
        if not terms_decide(ctx) or ctx.dense_floor is None or not ctx.outcome.evidence:
            return None
        pairs = question_pairs(ctx.terms)
        if not pairs or titled(ctx):
            return None
        written = ctx.stats.pairs
        if any(written.near(a, b) for x, y in pairs for a in x.ids for b in y.ids):
            return None
        if strong_evidence(ctx) or joint_passage(ctx):
            return None
        words = list(dict.fromkeys(t.word for pair in pairs for t in pair))
        return ctx.decide(self.name, SUBJECT_NOT_IN_CORPUS, words)


def titled(ctx: RuleContext) -> bool:
    """Whether the docs plan put first the rows of a section whose own title the question
    writes (:func:`~sectio.plan.executor.titled_first`): it writes the collection's words
    as a heading of it does."""
    return any(step.get("titled_first") for step in ctx.outcome.details.steps or ())
