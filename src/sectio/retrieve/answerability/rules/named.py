"""A named document is the subject: it passes, unless a word right after its name names
another product the collection does not hold ("amoxicillin clavulanic acid"), or the
question names another document of the collection's kind ("the Business Source
License" beside licences, "the Colorado AI Act" beside the EU's).

Decided before the coverage signals are computed, so exact routes stay cheap.
A domain pack adds its own rules for named documents before these
(:mod:`sectio.domains.drug_labels`: combination products).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable

from sectio.retrieve.answerability.context import PLANNER_ROUTE, RuleContext
from sectio.retrieve.answerability.verdict import SUBJECT_NOT_IN_CORPUS, Verdict
from sectio.retrieve.learned.names import name_variants
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


class OtherDocument:
    """``other_document``: the question names, with capitals, a document of the kind the
    evidence documents are (its last word is the last word of one of their names:
    "Act", "License") that the collection does not hold: "Digital Services Act
    content moderation ..." beside the AI Act, "the Business Source License" beside
    seven licences, "Colorado AI Act requirements ..." (the AI Act's name inside it,
    with a word the collection never contains before it: another state's act).

    A name of two capitalised words or more, not a document's name, that the
    collection never writes as such (some pair of its neighbouring words is never
    written side by side, :class:`~sectio.retrieve.stats.TermPairs`); a name
    holding a document's name ("the EU AI Act") needs a word the collection never
    contains beside it; one beside a document the question names ("How does the AI
    Act relate to the General Data Protection Regulation?") is a detail of it. Not
    where documents are the subjects (``subject = "document"``: the subject rules
    read other products there), nor on the docs planner's route (a page title's
    last word is no kind: "Custom Generator"), nor for a claim to check.
    """

    name = "other_document"

    def check(self, ctx: RuleContext) -> Verdict | None:
        outcome = ctx.outcome
        if ctx.settings.subject == "document" or outcome.route == PLANNER_ROUTE:
            return None
        if not ctx.asks and ctx.question.rstrip().endswith("."):
            return None  # a sentence: a claim to check, whose names are details
        kinds = kind_words(e.doc_title or "" for e in outcome.evidence)
        if not kinds:
            return None
        names = document_spans(ctx.turn)
        for run in capitalised_runs(ctx.question):
            if run[-1] not in kinds:
                continue
            inside = next((n for n in names if _within(n, run)), None)
            if inside is not None:
                rest = [w for w in run if w not in inside]
                if all(w in ctx.stats.words for w in rest):
                    continue  # "the EU AI Act": the document's own name, qualified
            elif names or _written(run, ctx):
                continue  # beside a document it names ("the AI Act and the GDPR"): details
            return ctx.decide(self.name, SUBJECT_NOT_IN_CORPUS, list(run))
        return None


def kind_words(titles: Iterable[str]) -> frozenset[str]:
    """The last word (letters only) of each title, its parenthesised parts left out, and
    of each of its names of two words or more (:func:`name_variants`): what kind of
    document it is ("Regulation (EU) 2024/1689 (Artificial Intelligence Act)":
    "regulation", "act"; "GNU General Public License v3.0": "license").

    Example:
        >>> sorted(kind_words(["Regulation (EU) 2024/1689 (Artificial Intelligence Act)"]))
        ['act', 'regulation']
    """
    out: set[str] = set()
    for title in dict.fromkeys(titles):
        bare = re.sub(r"\([^()]*\)", " ", title)
        for name in (bare, *name_variants(title)):
            words = [w for w in tokens(name) if w.isalpha()]
            if len(words) >= 2 or (name is bare and words):
                out.add(words[-1])
    return frozenset(out)


def capitalised_runs(question: str) -> list[tuple[str, ...]]:
    """Every run of two words or more written with a capital, lowercased ("Digital
    Services Act", "the EU AI Act" -> ``("eu", "ai", "act")``).

    Example:
        >>> capitalised_runs("Is the Business Source License like the MIT License?")
        [('business', 'source', 'license'), ('mit', 'license')]
    """
    words = re.findall(r"[^\W\d_][\w'’-]*", question)
    groups = (list(g) for upper, g in itertools.groupby(words, lambda w: w[:1].isupper()) if upper)
    return [tuple(w for r in run for w in tokens(r)) for run in groups if len(run) >= 2]


def document_spans(turn: Turn) -> list[tuple[str, ...]]:
    """The words of each document name the resolution read in the question."""
    res = turn.resolution
    if res is None or not res.spans:
        return []
    words = tokens(turn.question)
    return [tuple(words[start:end]) for start, end in res.spans]


def _within(name: tuple[str, ...], run: tuple[str, ...]) -> bool:
    n = len(name)
    return any(run[i : i + n] == name for i in range(len(run) - n + 1))


def _written(run: tuple[str, ...], ctx: RuleContext) -> bool:
    """Whether the collection writes every pair of the run's neighbouring content words
    side by side (stopwords skipped; either order)."""
    terms = [t for t in (ctx.words.lexical.terms(w) for w in run) if t]
    return all(
        any((a, b) in ctx.stats.pairs for a in x for b in y) for x, y in itertools.pairwise(terms)
    )


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
