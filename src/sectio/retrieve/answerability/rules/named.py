"""A named document is the subject: it passes, unless a word right after its name names
another product the collection does not hold ("amoxicillin clavulanic acid").

Decided before the coverage signals are computed, so exact routes stay cheap.
A domain pack adds its own rules for named documents before these
(:mod:`sectio.domains.drug_labels`: combination products).
"""

from __future__ import annotations

import re
import unicodedata

from sectio.retrieve.answerability.context import RuleContext
from sectio.retrieve.answerability.verdict import SUBJECT_NOT_IN_CORPUS, Verdict
from sectio.retrieve.routes.base import Turn
from sectio.retrieve.text import tokens
from sectio.retrieve.words import quantity_word, verb_form


class CompoundName:
    """``compound_name``: the word written right after a document's name is a name the
    collection never contains (a space, hyphen, slash or plus between); a strength, dose,
    version or dosage form there ("amoxicillin 40mg"), or a verb or adjective form
    ("azithromycin dispensed"), names no other product."""

    name = "compound_name"

    def check(self, ctx: RuleContext) -> Verdict | None:
        if ctx.named is None:
            return None
        words = ctx.words
        compound = [
            w
            for w in compound_name(ctx.turn)
            if w not in ctx.stats.words
            and not quantity_word(w)
            and not verb_form(w)
            and w not in words.routing
            and words.lexical.terms(w)
            and not words.common(w)
        ]
        if not compound:
            return None
        ctx.signals.compound_name = compound
        return ctx.decide(self.name, SUBJECT_NOT_IN_CORPUS, compound)


class NamedDocument:
    """``named_document``: the question named a document of the collection: it passes."""

    name = "named_document"

    def check(self, ctx: RuleContext) -> Verdict | None:
        return None if ctx.named is None else ctx.decide(self.name, None)


def compound_name(turn: Turn) -> list[str]:
    """The word written right after each document name (space, hyphen, slash or plus between).

    "amoxicillin clavulanic acid" or "amoxicillin-clavulanate" names a
    combination; "Prilosec, Nexium" (a comma) is a list, and a word inside
    another name span is that name. The caller keeps the words that name
    something the collection does not hold.
    """
    res = turn.resolution
    if res is None or turn.request.doc_id or not res.spans:
        return []
    words = tokens(turn.question)
    named = {i for start, end in res.spans for i in range(start, end)}
    joined = _joined_pairs(turn.question)
    seen: dict[tuple[str, ...], bool] = {}  # one look per (name, next word): linear in the question
    out: list[str] = []
    for start, end in res.spans:
        if end >= len(words) or end in named:
            continue
        key = (*words[start:end], words[end])
        if key not in seen:
            k = end - start
            seen[key] = any(
                p >= k - 1 and words[p - k + 1 : p + 1] == key[:-1]
                for p in joined.get((key[-2], key[-1]), ())
            )
        if seen[key]:
            out.append(words[end])
    return out


_JOINERS = re.compile(r"[\s\-/+]+")
_WORD = re.compile(r"[^\W_]+")
_APOSTROPHE = re.compile(r"['’ʼ`´]")


def _joined_pairs(question: str) -> dict[tuple[str, str], list[int]]:
    """Each pair of neighbouring words (as :func:`tokens` reads them) written with only
    spaces, hyphens, slashes or pluses between, and the positions of the first, in order.
    One pass over the question."""
    norm = _APOSTROPHE.sub("", unicodedata.normalize("NFC", question).casefold())
    pairs: dict[tuple[str, str], list[int]] = {}
    previous: re.Match[str] | None = None
    for i, match in enumerate(_WORD.finditer(norm)):
        if previous is not None and _JOINERS.fullmatch(norm, previous.end(), match.start()):
            pairs.setdefault((previous.group(), match.group()), []).append(i - 1)
        previous = match
    return pairs


def named_how(turn: Turn) -> str | None:
    """How the turn's document was named (``flag``, ``exact``, ``folded``, ``fuzzy``,
    ``brand``, ``conversation``), or None (an ambiguous question: how its names were read)."""
    res = turn.resolution
    if res is None or not res.doc_id:
        if res is not None and res.ambiguous:
            return res.named.how if res.named is not None else None
        return None
    if turn.request.doc_id:
        return "flag"
    if res.inherited:
        return "conversation"
    return res.named.how if res.named is not None else None
