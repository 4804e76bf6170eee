"""``class_subject``: a class or category question about what the corpus does not hold.

"What type of drug is ecstasy", "what is normal saline", "what kind of
license is the Unlicense": the question asks what its subject *is*, so the
subject is the words after the question's verb, whatever their share of the
question's weight. A ranked route abstains (``subject_not_in_corpus``) when
one of those words is nowhere in the collection (common words too: "saline",
"ecstasy" are words of the language, and still not in the corpus), or, for a
class question where documents are the subjects (``subject = "document"``),
when no evidence document is about them (not in its names nor its lookup
section) — unless
the evidence is strong (:func:`~sectio.retrieve.answerability.weigh.strong_evidence`).
English question forms only; other questions are not this rule's.
"""

from __future__ import annotations

import re

from sectio.retrieve.answerability.context import RuleContext
from sectio.retrieve.answerability.rules.absent import held
from sectio.retrieve.answerability.verdict import SUBJECT_NOT_IN_CORPUS, Verdict
from sectio.retrieve.answerability.weigh import strong_evidence
from sectio.retrieve.text import tokens
from sectio.retrieve.words import plain_words, quantity_word

#: "what type of drug is X", "which class of medicine are X".
_CLASS = re.compile(
    r"^\s*(?:what|which)\s+(?:type|types|kind|kinds|class|sort|category|group|family)\s+of"
    r"(?:\s+\w+)?\s+(?:is|are)\s+(?P<subject>[^?.!]+)",
    re.IGNORECASE,
)
#: "what is X", "what are X", "what's X", "who is X" (a short X only: a definition).
_WHAT_IS = re.compile(
    r"^\s*(?:what|who)(?:\s+(?:is|are)|'s|’s)\s+(?:an?\s+|the\s+)?(?P<subject>[^?.!]+)[?.!]*\s*$",
    re.IGNORECASE,
)
#: The most content words a "what is X" subject may have (longer: not a definition question).
SHORT_SUBJECT = 3


def class_subject(question: str) -> tuple[tuple[str, ...], bool]:
    """The subject words of a class or definition question (``()``: not one), and whether
    it asks for a class ("what type of drug is X") rather than a definition.

    Example:
        >>> class_subject("What type of drug is ecstasy?"), class_subject("what is normal saline")
        ((('ecstasy',), True), (('normal', 'saline'), False))
        >>> class_subject("what is the maximum dose of ibuprofen for a child with fever")
        ((), False)
    """
    match = _CLASS.match(question)
    if match is not None:
        return tokens(plain_words(match["subject"])), True
    match = _WHAT_IS.match(question)
    subject = tokens(plain_words(match["subject"])) if match is not None else ()
    return (subject, False) if len(subject) <= SHORT_SUBJECT else ((), False)


class ClassSubject:
    """A class or definition question whose subject the collection does not hold."""

    name = "class_subject"

    def check(self, ctx: RuleContext) -> Verdict | None:
        if not ctx.ranked or ctx.named is not None:
            return None
        words = ctx.words
        found, is_class = class_subject(ctx.question)
        subject = [
            w
            for w in found
            if words.lexical.terms(w) and not quantity_word(w) and w not in words.routing
        ]
        if not subject:
            return None
        missing = [w for w in subject if not held(ctx, w)]
        documents = ctx.settings.subject == "document" and ctx.subjects is not None
        if not missing and is_class and documents and ctx.subjects is not None:
            about = ctx.subjects.about_docs(e.doc_id for e in ctx.outcome.evidence)
            names = ctx.subjects.names
            missing = [w for w in subject if w not in names and not words.lexical.terms(w) & about]
        if not missing or strong_evidence(ctx):
            return None
        return ctx.decide(self.name, SUBJECT_NOT_IN_CORPUS, missing)
