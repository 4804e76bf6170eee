"""Unknown words are weighed, not vetoed: which unknown names still carry the subject.

A name-like word the collection never contains ("pvc", "coreos", "qpack",
"webtransport") may be the thing the question is about, another product the
corpus does not hold, or an abbreviation, a typo or a detail of a question
the corpus does answer. It vetoes (``subject_not_in_corpus``) unless:

* the evidence explains it: it is the initials of words the evidence writes
  in a row ("pvc": "PersistentVolumeClaim", "persistent volume claim"; a
  two-letter word in capitals gives both its letters: "gpai", "general-purpose
  AI"); or
* it is a typo of a word the evidence holds: written in small letters (a
  capital opening the question aside), one edit from a word of the
  collection, both of at least :data:`TYPO_LENGTH` letters, whose terms the
  evidence has ("panick" for "panic"; "Flagger", one edit from "flagged", is
  written as a name; "ambien", one edit from "ambient", finds no ambience in
  the passages); or
* it is a word the evidence holds after a prefix: written in small letters, a
  prefix of :data:`PREFIXES` then a collection word of at least
  :data:`STEM_LENGTH` letters whose terms the evidence has ("unpickle" where the
  passages say "pickle", "rehash" where they say "hash"); or
* it is another form of a word the evidence holds: written in small letters,
  the same stem of at least :data:`FORM_STEM` letters with another ending of
  :data:`ENDINGS` ("streptococcal" where the passages say "streptococcus",
  "hypertensive" where they say "hypertension"; "interferon" is no form of
  "interfere", nor "dockershim" of "dockers"); or
* the collection writes it as two words: split in two parts of at least
  :data:`COMPOUND_PART` letters, the parts' terms stand side by side somewhere
  in the collection ("deepfakes": "deep fakes"; "healthcheck": "health check");
  or
* the rest of the question is well covered at a strong similarity: the
  coverage of its known terms reaches :data:`STRONG_COVERAGE` and the best
  cosine reaches the calibrated floor plus :data:`STRONG_MARGIN` (in the model's
  units: :mod:`~sectio.retrieve.answerability.margins`), and the word is not
  written as a name (:func:`written_as_name`: "Zorbicide", "UK"; an identifier
  such as "resetModuleRegistry" is no name): the rest of "how is AI regulated
  in the UK?" is strongly the EU's Act, which is not what it asks about.

Strengths, doses, units, versions and dosage forms never get here: they are
no salient term (:func:`sectio.retrieve.words.quantity_word`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from sectio.retrieve.words import other_endings

if TYPE_CHECKING:
    from sectio.index.lexical import LexicalEncoder
    from sectio.retrieve.answerability.context import RuleContext
    from sectio.retrieve.stats import TermStats

#: The share of the known terms' weight the evidence must hold for an unknown word to pass.
STRONG_COVERAGE = 0.75
#: How far over the calibrated dense floor the best cosine must be for it to pass.
STRONG_MARGIN = 0.35
#: How far over the dense floor a passage must be to answer a question whose closest page
#: is no closer than unrelated questions get (the docs planner's catalog rule). Measured on
#: 2026-12-04 over the docs sets' dev splits: the off-topic questions this rule stops reach
#: at most +0.22 (a Go question on the Requests docs); two of the three answerable ones it
#: stopped at the strong margin reach +0.33 (long pages such as a quickstart, whose summary
#: is far from any one of its topics), the third (+0.19) stays stopped; see
#: docs/decisions/2026-12-04-catalog-and-acronyms.md. Lowered from 0.30 on 2026-12-07 on the
#: dev splits of fifteen sets, a staff handbook among them (long policy pages, "Leave types",
#: whose summaries are far from "Can I take time off to vote?"): the off-topic questions the
#: catalog and coverage rules stop reach at most +0.242 ("Why are kubectl edits rolled back by
#: Flux?" on Argo CD's docs); answerable ones they stopped reach +0.245 to +0.296; see
#: docs/decisions/2026-12-07-a-staff-handbook-liquid-and-numbered-units.md.
CATALOG_STRONG_MARGIN = 0.25
#: How unlikely by chance one passage holding the question's known terms together must be
#: for it to answer a question the cosines call weak: the sum of their IDFs, less the log
#: of the collection's chunk count, reaches ln(10,000) (under independence: fewer than one
#: chunk in 10,000 holds them all). Chosen on the dev splits of twelve sets (2026-12-07):
#: the off-topic questions the weak-evidence rules stop reach at most 4.5 there, the two
#: answerable ones above it 14.7 and 11.4; on the holdouts, never tuned on, off-topic
#: ones reach 8.1 ("How do TCP SYN cookies protect against SYN floods?" on QUIC's RFCs).
JOINT_SURPRISE = math.log(10_000)
#: The shortest word (and the shortest word of the collection) read as a typo of another.
TYPO_LENGTH = 5
#: The shortest part of an unknown word read as two words the collection writes.
COMPOUND_PART = 3
#: The lengths of an abbreviation the evidence can explain by initials.
ACRONYM_LENGTHS = range(3, 7)
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def weigh(ctx: RuleContext) -> tuple[list[str], list[str]]:
    """``(kept, weighed)``: the unknown names that veto, and those that pass (see the
    module doc), each in question order."""
    unknown = ctx.unknown
    if not unknown:
        return [], []
    strong = strong_evidence(ctx)
    initials = acronyms(e.text for e in ctx.outcome.evidence) if ctx.outcome.evidence else set()
    kept = [
        w
        for w in unknown
        if not (strong and not written_as_name(w, ctx.question))
        and w not in initials
        and not written_apart(w, ctx.words.lexical, ctx.stats)
        and not typo_in_evidence(w, ctx)
        and not derived_in_evidence(w, ctx)
        and not form_in_evidence(w, ctx)
    ]
    return kept, [w for w in unknown if w not in kept]


def typo_in_evidence(word: str, ctx: RuleContext) -> bool:
    """Whether ``word`` is a typo of a word the evidence holds: written in small letters
    (:func:`written_small`), one edit from a collection word (:func:`misspellings`)
    whose terms the evidence has ("panick" where the passages say "panic"; "ambien" is
    one edit from "ambient", which no passage about sleep holds)."""
    return _small_and_held(word, ctx, lambda: misspellings(word, ctx.stats.words))


#: Prefixes that make a word of a word ("unpickle", "redeploy", "deserialise").
PREFIXES = ("un", "re", "de", "pre", "non", "dis", "mis", "sub", "anti", "auto", "multi")
#: The shortest word left once a prefix is taken off.
STEM_LENGTH = 4


def derived_in_evidence(word: str, ctx: RuleContext) -> bool:
    """Whether ``word`` is a word the evidence holds with a prefix before it: written in
    small letters (:func:`written_small`), a prefix of :data:`PREFIXES` then a word of the
    collection of at least :data:`STEM_LENGTH` letters whose terms the evidence has
    ("unpickle" where the passages say "pickle"; "Unreal", written as a name, is not)."""
    return _small_and_held(
        word,
        ctx,
        lambda: [
            word[len(p) :]
            for p in PREFIXES
            if word.startswith(p)
            and len(word) - len(p) >= STEM_LENGTH
            and word[len(p) :] in ctx.stats.words
        ],
    )


#: The endings English changes between forms of one stem: adjective and noun, singular
#: and plural of Latin and Greek words ("streptococc-al" / "streptococc-us",
#: "hypertens-ive" / "hypertens-ion", "anaesthe-tic" / "anaesthe-sia").
ENDINGS = frozenset(
    {"a", "ae", "al", "ate", "ation", "e", "ed", "er", "ers", "i", "ia", "ial", "ic", "ical"}
    | {"ics", "ies", "ing", "ion", "ions", "ism", "ist", "ity", "ive", "ous", "sia", "tic"}
    | {"um", "us", "y"}
)
#: The shortest stem two forms of a word share.
FORM_STEM = 8


def form_in_evidence(word: str, ctx: RuleContext) -> bool:
    """Whether ``word`` is another form of a word the evidence holds: written in small
    letters (:func:`written_small`), one of :func:`other_forms` in the collection, with
    terms the evidence has."""
    return _small_and_held(word, ctx, lambda: other_forms(word, ctx.stats.words))


def other_forms(word: str, words: frozenset[str] | set[str]) -> set[str]:
    """The words of ``words`` that are another form of ``word``: a stem of at least
    :data:`FORM_STEM` letters, ``word``'s ending and theirs both in :data:`ENDINGS`.

    Example:
        >>> sorted(other_forms("streptococcal", {"streptococcus", "streptomycin"}))
        ['streptococcus']
        >>> other_forms("hypertensive", {"hypertension"})
        {'hypertension'}
        >>> other_forms("interferon", {"interfere"}), other_forms("dockershim", {"dockers"})
        (set(), set())
    """
    return {form for form in other_endings(word, ENDINGS, FORM_STEM) if form in words}


def _small_and_held(word: str, ctx: RuleContext, candidates: Callable[[], Iterable[str]]) -> bool:
    """Whether ``word`` is written in small letters and one of the collection words it may
    stand for (``candidates``, read only then) has terms the evidence holds."""
    if not ctx.outcome.evidence or not written_small(word, ctx.question):
        return False
    words = list(candidates())
    if not words:
        return False
    return any(ctx.words.lexical.terms(v) & ctx.held for v in words)


def written_apart(word: str, lexical: LexicalEncoder, stats: TermStats) -> bool:
    """Whether the collection writes ``word`` as two words side by side: some split into
    parts of at least :data:`COMPOUND_PART` letters whose terms make a pair it writes
    ("deepfakes" where it writes "deep fakes"; a name no split explains stays one)."""
    for at in range(COMPOUND_PART, len(word) - COMPOUND_PART + 1):
        left, right = lexical.terms(word[:at]), lexical.terms(word[at:])
        if any((a, b) in stats.pairs for a in left for b in right):
            return True
    return False


def written_small(word: str, question: str) -> bool:
    """Whether ``question`` writes ``word`` in small letters only, a capital opening the
    question aside (a name is written with capitals: "Flagger", one edit from "flagged",
    and "STRIDE" are names, not typos).

    Example:
        >>> written_small("panick", "Any help with panick attacks?"), written_small(
        ...     "panick", "Panick attacks: what helps?"
        ... )
        (True, True)
        >>> written_small("flagger", "What does Flagger do?"), written_small("stride", "STRIDE?")
        (False, False)
    """
    found = _written(word, question)
    return bool(found) and all(
        m.group() == m.group().lower() or (opens and m.group()[1:] == m.group()[1:].lower())
        for m, opens in found
    )


def written_as_name(word: str, question: str) -> bool:
    """Whether ``question`` writes ``word`` with a capital first letter, a capital opening
    the question aside: a name ("Zorbicide", "UK"), not an identifier ("resetModuleRegistry").

    Example:
        >>> written_as_name("zorbicide", "Can I spray Zorbicide on aphids?")
        True
        >>> written_as_name("resetmoduleregistry", "What does resetModuleRegistry do?")
        False
        >>> written_as_name("zorbicide", "Zorbicide on aphids?")
        False
    """
    return any(m.group()[0].isupper() and not opens for m, opens in _written(word, question))


def _written(word: str, question: str) -> list[tuple[re.Match[str], bool]]:
    """Where ``question`` writes ``word`` as a whole word, any case, each with whether it
    opens the question."""
    opening = len(question) - len(question.lstrip())
    pattern = rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])"
    return [(m, m.start() == opening) for m in re.finditer(pattern, question, re.IGNORECASE)]


def misspellings(word: str, words: frozenset[str]) -> set[str]:
    """The collection's words one edit (a letter left out, added, changed, or two swapped;
    the first letter kept) from ``word``, both of at least :data:`TYPO_LENGTH` letters:
    what ``word`` may be a typo of.

    Example:
        >>> misspellings("panick", frozenset({"panic", "panel"})), misspellings("pvc", {"pc"})
        ({'panic'}, set())
        >>> misspellings("zoloft", frozenset({"zolpidem"}))
        set()
    """
    if len(word) < TYPO_LENGTH:
        return set()
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(word[:i], word[i:]) for i in range(1, len(word) + 1)]
    near = {a + b[1:] for a, b in splits if b}
    near |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    near |= {a + c + b[1:] for a, b in splits if b for c in letters}
    near |= {a + c + b for a, b in splits for c in letters}
    return {v for v in near if len(v) >= TYPO_LENGTH and v != word and v in words}


def strong_evidence(ctx: RuleContext) -> bool:
    """The rest of the question is well covered at a strong similarity (a ranked route
    with a calibrated floor; an exact route's section was named, it has none)."""
    floor = ctx.dense_floor
    if floor is None or not ctx.outcome.evidence:
        return False
    strong = floor + ctx.margin(STRONG_MARGIN)
    ctx.thresholds.strong_floor = round(strong, 4)
    ctx.thresholds.strong_coverage = STRONG_COVERAGE
    known = [t for t in ctx.terms if t.df > 0]
    return bool(known) and ctx.coverage >= STRONG_COVERAGE and ctx.best >= strong


def strong_passage(ctx: RuleContext) -> bool:
    """A passage is strong evidence by itself: the best cosine reaches the calibrated floor
    plus :data:`CATALOG_STRONG_MARGIN` (recorded as ``catalog_strong_floor``). It answers
    a question no page summary is close to (the docs catalog rule) and one whose words the
    corpus writes otherwise ("employees" where a regulation writes "staff", "how long must"
    where it writes "shall ... for a period of"; the coverage rule)."""
    floor = ctx.dense_floor
    if floor is None or not ctx.outcome.evidence:
        return False
    strong = floor + ctx.margin(CATALOG_STRONG_MARGIN)
    ctx.thresholds.catalog_strong_floor = round(strong, 4)
    return ctx.best >= strong


def joint_threshold(lexical: LexicalEncoder) -> float | None:
    """The joint surprise a passage must reach on a collection with this BM25
    (:data:`JOINT_SURPRISE`), None where it keeps stopwords and :func:`joint_passage`
    never reads it (what ``sectio info`` shows)."""
    return JOINT_SURPRISE if lexical.settings.stopwords else None


def joint_passage(ctx: RuleContext) -> bool:
    """One evidence passage holds the question's known terms together at odds no chance
    explains: the IDFs of the terms it holds sum to :data:`JOINT_SURPRISE` over the log of
    the collection's chunk count (recorded as ``joint_surprise``). "How do I exclude a few
    lines from the coverage report with a comment?": one Jest passage holds all five
    words, though no page summary is close (the catalog rule); "can I build a face
    recognition database by scraping photos from the internet?": Article 5 holds four of
    them, where MiniLM places the question far (the planner's margin). It lets a question
    pass the weak-evidence rules (the planner's margin without a guest name, the page
    catalog, coverage, unseen pairs); never the calibrated floor itself, an unknown name
    or a guest.

    Only where the collection's BM25 leaves out function words (``[lexical] stopwords``):
    the sum reads its terms as independent, and a BM25 that keeps them (Vietnamese's
    syllables, ``generic_vi``) adds up "của", "và" and the syllables of one word; on the
    Vietnamese laws it passed two off-topic statements. False without evidence."""
    threshold = joint_threshold(ctx.words.lexical)
    if not ctx.outcome.evidence or ctx.stats.chunks < 2 or threshold is None:
        return False
    known = [t for t in ctx.terms if t.df > 0]
    if not known:
        return False
    best = max(sum(t.idf for t in known if t.ids & held) for held in ctx.row_terms)
    surprise = best - math.log(ctx.stats.chunks)
    ctx.signals.joint_surprise = round(surprise, 3)
    ctx.thresholds.joint_surprise = round(threshold, 3)
    return surprise >= threshold


def acronyms(texts: Iterable[str]) -> set[str]:
    """Every abbreviation the texts spell by initials, lowercased, of
    :data:`ACRONYM_LENGTHS` letters: a CamelCase word's parts ("PersistentVolumeClaim"
    -> "pvc") and content words written in a row ("persistent volume claim" -> "pvc";
    a short word or a common joining word breaks the row; a two-letter word in
    capitals gives both its letters: "general-purpose AI" -> "gpai").

    Example:
        >>> sorted(acronyms(["keep the PersistentVolumeClaim"]))
        ['pvc']
        >>> "crd" in acronyms(["a custom resource definition"]), "tcr" in acronyms(["the claim"])
        (True, False)
        >>> "gpai" in acronyms(["general-purpose AI models"]), "tai" in acronyms(["to AI"])
        (True, False)
    """
    out: set[str] = set()
    for text in texts:
        row: list[str] = []
        for word in _WORDS.findall(text):
            parts = _CAMEL.findall(word)
            if len(parts) > 1:
                letters = "".join(p[0] for p in parts).lower()
                out.update(letters[:n] for n in ACRONYM_LENGTHS if n <= len(letters))
            if len(word) == 2 and word.isupper():  # "AI" of "general-purpose AI": both
                row.extend(word.lower())
            elif len(word) < 3 or word.lower() in _JOINING:
                out.update(_rows(row))
                row = []
            else:
                row.append(word[0].lower())
        out.update(_rows(row))
    return out


#: Words that break a row of content words (an abbreviation never spans them).
_JOINING = frozenset(
    {
        "the",
        "and",
        "for",
        "with",
        "from",
        "that",
        "this",
        "are",
        "was",
        "were",
        "not",
        "but",
        "can",
        "will",
        "its",
        "into",
        "when",
        "then",
        "than",
        "has",
        "have",
        "had",
        "been",
        "which",
        "what",
        "who",
        "how",
    }
)


def _rows(initials: list[str]) -> set[str]:
    """Every run of :data:`ACRONYM_LENGTHS` consecutive initials."""
    return {
        "".join(initials[i : i + n]) for n in ACRONYM_LENGTHS for i in range(len(initials) - n + 1)
    }
