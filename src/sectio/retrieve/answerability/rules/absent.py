"""``absent_words``: a question made largely of words the collection never contains.

Common words the collection never contains are no salient term (they say
nothing of *which* subject: "bother", "ok"), and one of them alone is no
veto. Many of them together are: "How do I write a privacy policy for my
app?", "How long does copyright last in the United States?" on a corpus of
licence texts hold their few known words ("copyright") where the corpus does
and ask about something else. Where terms decide (``subject = "terms"``: a
collection without a subject model of its own), a ranked route whose
question's content words are at least :data:`ABSENT_SHARE` absent from the
collection, :data:`ABSENT_MIN` of them at least, abstains
(``subject_not_in_corpus``) unless the evidence is strong
(:func:`~sectio.retrieve.answerability.weigh.strong_evidence`).
"""

from __future__ import annotations

from sectio.retrieve.answerability.context import RuleContext
from sectio.retrieve.answerability.verdict import SUBJECT_NOT_IN_CORPUS, Verdict
from sectio.retrieve.answerability.weigh import strong_evidence
from sectio.retrieve.text import tokens
from sectio.retrieve.words import ASKING_WORDS, plain_words, quantity_word

#: The share of a question's content words absent from the collection that abstains.
ABSENT_SHARE = 0.4
#: The fewest absent words that abstain (one alone is a word the corpus does not use).
ABSENT_MIN = 2


def terms_decide(ctx: RuleContext) -> bool:
    """Whether the rules that read the question's words against the collection's judge
    this turn: ``subject = "terms"``, a ranked route, no document named, a question."""
    if ctx.settings.subject != "terms" or not ctx.ranked or ctx.named is not None:
        return False
    return ctx.asks


def absent_words(ctx: RuleContext) -> tuple[list[str], int]:
    """The question's content words the collection never contains (:func:`held`; question
    order, each once) and how many content words it has: words with a BM25 term, not routing words,
    not document names, no strengths, doses or versions, no words a question asks with
    (:data:`~sectio.retrieve.words.ASKING_WORDS`: "tell", "gets", "many")."""
    res = ctx.turn.resolution
    named = {i for start, end in (res.spans if res is not None else ()) for i in range(start, end)}
    lexical, routing = ctx.words.lexical, ctx.words.routing
    words: dict[str, None] = {}
    for i, w in enumerate(tokens(plain_words(ctx.question))):
        if i in named or w in routing or w.isdigit() or quantity_word(w) or w in ASKING_WORDS:
            continue
        if not lexical.terms(w):
            continue
        words.setdefault(w, None)
    return [w for w in words if not held(ctx, w)], len(words)


def held(ctx: RuleContext, word: str) -> bool:
    """Whether the collection holds ``word``: verbatim, or one of its BM25 terms (stemmed:
    "documents" is held by a corpus that writes "document")."""
    if word in ctx.stats.words:
        return True
    return any(ctx.stats.df.get(t, 0) for t in ctx.words.lexical.terms(word))


class AbsentWords:
    """A question whose content words are mostly not the collection's (see the module doc)."""

    name = "absent_words"

    def check(self, ctx: RuleContext) -> Verdict | None:
        if not terms_decide(ctx):
            return None
        absent, total = absent_words(ctx)
        if len(absent) < ABSENT_MIN or len(absent) < ABSENT_SHARE * total:
            return None
        if strong_evidence(ctx):
            return None
        return ctx.decide(self.name, SUBJECT_NOT_IN_CORPUS, absent)
