"""Answerability: does the evidence cover what the question is about?

A pipeline stage after every route, before ``decide``. Routes always return
*something*: a similarity search returns neighbours, a planner returns rows.
This stage asks whether that something is about the question's subject, and
when it is not, the turn abstains with a stable reason, and the candidates
move out of ``evidence`` (an LLM must not read them) into
``details.answerability.closest_documents`` (a caller can say what the corpus
does cover).

Signals (all in ``details.answerability.signals``, thresholds beside them):

* **salient terms**: the question's words minus stopwords, the profile's
  routing vocabulary and the resolved document's name, each weighted by the
  collection's own IDF (BM25 terms, stemmed; a term the collection never
  contains weighs the most). A word the collection never contains is
  ``unknown``; it counts only when it is also *name-like*: not a whole word
  of the embedding model's vocabulary ("pregabalin", "clavulanic"; the
  vocabulary's ~20k whole words are the language's common ones, so "ok",
  "leg" or "bother", which a corpus may simply not use, say nothing about
  the subject). ``coverage`` is the share of the weight the evidence holds,
  over the terms the collection contains (no evidence can hold the others).
* **subject** (profiles with ``subject = "document"``): a question that names
  no document must not name another subject: an unknown name, a
  name-like word the collection mentions only where labels list other
  drugs (``subject_sections``) and never in its lookup section ("what is
  naproxen" on a corpus whose ibuprofen label lists naproxen among its
  interactions), or a medicine of the brand table no document holds (a
  brand, or a one-word ingredient such as "clarithromycin", which an
  amoxicillin label mentions in its indications). A condition ("what treats gout") is not a subject.
* **dense**: the evidence's best cosine against a floor calibrated on the
  collection (:mod:`sectio.retrieve.calibration`).
* **rerank**: with a reranker, its top score against ``rerank_floor``.
* **docs planner** (a docs collection, no document named): a question that
  is one of the collection's headings word for word passes; an unknown name
  abstains (``rule = "unknown_name"``); ``guest_names`` are words written
  with a capital that the collection mentions in at most ``guest_share`` of
  its chunks (another product, mentioned in passing: "What is Istio?" on
  Argo CD's docs); the best cosine must reach the calibrated floor plus
  ``guest_margin`` with a guest name, and so must an evidence row that
  names each guest (``rule = "guest_name"``; ``guest_cosines``,
  ``guest_names_far``), plus ``planner_margin`` without one
  (``rule = "dense"``); last, the question's
  closest page (its best cosine among the catalog entries, one per page) must
  be closer than general-knowledge questions come to the catalog (the
  ``catalog_percentile`` of theirs; ``rule = "catalog"``).

Reasons (stable strings):

* ``subject_not_in_corpus``: the question names something the collection
  does not hold (``details.answerability.uncovered`` names the terms);
* ``weak_evidence``: the evidence does not cover the question (coverage,
  best cosine or rerank score under its floor; the signal is named).

Exact routes (a named document's section or overview) pass: the document was
named, the section read whole. A name followed by a word the collection
never contains ("amoxicillin clavulanic acid") names another product.

Example:
    >>> stats = TermStats(chunks=3, df={1: 3, 2: 1}, words=frozenset({"dose"}))
    >>> round(stats.idf(2), 3) > round(stats.idf(1), 3), stats.idf(9) == stats.max_idf
    (True, True)
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sectio.contract.profile import AnswerabilitySettings
from sectio.contract.result import Evidence
from sectio.index.lexical import LexicalEncoder
from sectio.retrieve.routes.base import Outcome, Turn
from sectio.retrieve.text import tokens

SUBJECT_NOT_IN_CORPUS = "subject_not_in_corpus"
WEAK_EVIDENCE = "weak_evidence"
#: Routes that answer exactly once a document is named (the subject is the name).
EXACT_ROUTES = frozenset({"section", "overview"})
#: A word in the subject sections of more than this share of documents names a class.
CLASS_SHARE = 0.15
#: The docs planner's route (its own rules: :meth:`Judge._planner`).
PLANNER_ROUTE = "docs_plan"
#: Documents listed as the closest ones when a turn abstains.
CLOSEST_DOCUMENTS = 5
#: The ``layer`` of a docs collection's document catalog entries (one per page:
#: ``sectio.plan.models.Layer.D1_DOCUMENT_CATALOG``; ``retrieve`` sits under ``plan``).
CATALOG_LAYER = "D1"


@dataclass(frozen=True)
class CatalogMatch:
    """How close a question comes to the closest page of a docs collection's catalog.

    ``best``: the question's best cosine among the catalog entries (one per
    page); ``floor``: the ``catalog_percentile`` of the best cosines that
    general-knowledge questions reach in the same catalog.
    """

    best: float
    floor: float


@dataclass(frozen=True)
class TermStats:
    """Document frequencies of one tenant's BM25 terms and the words it contains.

    ``chunks`` is the number of points counted, ``df`` maps a term id
    (:meth:`LexicalEncoder.terms`) to the points holding it, ``words`` is every
    normalized word of every text (for "occurs verbatim in the collection"),
    ``headings`` every section title's words (a question that is one of them
    names that section).
    """

    chunks: int
    df: Mapping[int, int]
    words: frozenset[str] = frozenset()
    headings: frozenset[tuple[str, ...]] = frozenset()

    @classmethod
    def from_payloads(
        cls, payloads: Iterable[Mapping[str, Any]], lexical: LexicalEncoder
    ) -> TermStats:
        """Statistics over stored records (title, section title and text of each)."""
        df: Counter[int] = Counter()
        words: set[str] = set()
        headings: set[tuple[str, ...]] = set()
        n = 0
        for p in payloads:
            text = " ".join(
                str(p.get(k) or "") for k in ("doc_title", "section_title", "text") if p.get(k)
            )
            n += 1
            df.update(lexical.terms(text))
            words.update(tokens(text))
            if p.get("section_title"):
                headings.add(tokens(plain_words(str(p["section_title"]))))
        return cls(n, dict(df), frozenset(words), frozenset(headings))

    @property
    def max_idf(self) -> float:
        """The IDF of a term the collection never contains."""
        return self.idf_of(0)

    def idf_of(self, df: int) -> float:
        """BM25's IDF, ``ln(1 + (N - df + 0.5) / (df + 0.5))``."""
        return math.log(1.0 + (self.chunks - df + 0.5) / (df + 0.5))

    def idf(self, term: int) -> float:
        return self.idf_of(self.df.get(term, 0))


@dataclass
class Term:
    """One salient word of the question."""

    word: str
    ids: frozenset[int]
    df: int
    idf: float
    covered: bool = False
    name_like: bool = True

    @property
    def unknown_name(self) -> bool:
        """A name-like word the collection never contains."""
        return self.df == 0 and self.name_like


def salient_terms(
    question: str,
    *,
    lexical: LexicalEncoder,
    stats: TermStats,
    ignore: frozenset[str],
    spans: Sequence[tuple[int, int]] = (),
    common: Callable[[str], bool] = lambda _w: False,
    generic: frozenset[int] = frozenset(),
) -> list[Term]:
    """The question's words that say what it is about, with their weight (IDF).

    Stopwords (no BM25 term), ``ignore`` (the routing vocabulary), words whose
    BM25 terms are all ``generic`` (the profile's ``[anchors] generic`` words,
    "medicine", "treatments": they name no subject), the words inside
    ``spans`` (the resolved document names) and common words the collection
    never contains (``common``: a whole word of the model's vocabulary) are
    left out; a word is kept once.
    """
    named = {i for start, end in spans for i in range(start, end)}
    out: list[Term] = []
    seen: set[str] = set()
    for i, word in enumerate(tokens(plain_words(question))):
        if i in named or word in ignore or word in seen or word.isdigit():
            continue
        seen.add(word)
        ids = lexical.terms(word)
        if not ids or ids <= generic:
            continue
        df = max(stats.df.get(t, 0) for t in ids)
        is_common = common(word)
        if df == 0 and is_common:
            continue
        out.append(Term(word, ids, df, stats.idf_of(df), name_like=not is_common))
    return out


_POSSESSIVE = re.compile(r"(\w)['\u2019]s\b")
_CONTRACTION = re.compile(r"\b\w+['\u2019](?:t|ve|ll|re|d|m)\b", re.IGNORECASE)
#: Contractions written without their apostrophe ("Ive", "dont"): informal spelling.
_BARE_CONTRACTION = re.compile(
    r"\b(?:ive|youve|weve|theyve|youre|theyre|dont|doesnt|didnt|cant|couldnt|wouldnt"
    r"|shouldnt|isnt|arent|wasnt|werent|wont|havent|hasnt|hadnt)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*")


def plain_words(question: str) -> str:
    """``question`` with possessives cut to their noun ("Istio's" -> "Istio") and
    contractions ("can't", "I've", "Ive") left out, so neither reads as an unknown name.

    Example:
        >>> plain_words("Why can't Istio's proxy start? Ive tried")
        'Why  Istio proxy start?  tried'
    """
    return _BARE_CONTRACTION.sub("", _CONTRACTION.sub("", _POSSESSIVE.sub(r"\1", question)))


def capitalised_words(question: str) -> list[str]:
    """The words written with a capital inside the question (not its first word), lowercased.

    A hyphenated compound gives its parts written with a capital, as the
    question's terms split it ("Envoy-based" -> "envoy", "non-Istio" -> "istio").

    Example:
        >>> capitalised_words("What is Istio? How does Envoy-based non-Flux work")
        ['istio', 'how', 'envoy', 'flux']
    """
    words = _WORD.findall(plain_words(question))
    return [p.lower() for w in words[1:] for p in w.split("-") if p[:1].isupper()]


#: Endings of inflected words ("meds", "thinners", "blurry", "blockers"): a common stem
#: plus one of them is a common word, not a name.
INFLECTIONS = ("ing", "ers", "es", "ed", "ry", "s", "y")
#: The shortest half of a compound of two common words ("heartburn", "bedtime").
COMPOUND_PART = 4


def common_words(count_tokens: Callable[[str], int]) -> Callable[[str], bool]:
    """A ``common`` test for :func:`salient_terms` from the embedding model's tokenizer.

    A word is common when it is one whole word of the model's vocabulary,
    such a word of at least three letters plus one of :data:`INFLECTIONS`
    ("meds", "thinners", "blockers"), or two such words of at least
    :data:`COMPOUND_PART` letters written as one ("heartburn"; shorter parts
    would read "Prozac" as pro + zac). Brand names such as "Sudafed",
    "Lovenox" or "Cialis" keep a part the vocabulary does not hold, so they
    stay name-like.

    Example:
        >>> vocab = {"med", "thinner", "dose", "heart", "burn", "love", "no", "pro"}
        >>> common = common_words(lambda w: 1 if w in vocab else 3)
        >>> words = ("dose", "meds", "thinners", "heartburn", "sudafed", "lovenox", "prozac")
        >>> [common(w) for w in words]
        [True, True, True, True, False, False, False]
    """

    def whole(word: str, shortest: int) -> bool:
        return len(word) >= shortest and count_tokens(word) <= 1

    def common(word: str) -> bool:
        if count_tokens(word) <= 1:
            return True
        stems = [word[: -len(end)] for end in INFLECTIONS if word.endswith(end)]
        if any(whole(stem, 3) for stem in stems):
            return True
        return any(
            whole(word[:i], COMPOUND_PART) and whole(word[i:], COMPOUND_PART)
            for i in range(COMPOUND_PART, len(word) - COMPOUND_PART + 1)
        )

    return common


@dataclass
class Verdict:
    """The stage's judgement: pass, or abstain with a reason; always its signals."""

    answerable: bool
    reason: str | None
    signals: dict[str, Any] = field(default_factory=dict)
    thresholds: dict[str, Any] = field(default_factory=dict)
    uncovered: list[str] = field(default_factory=list)

    def as_details(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "answerable": self.answerable,
            "reason": self.reason,
            "signals": self.signals,
            "thresholds": self.thresholds,
        }
        if self.uncovered:
            out["uncovered"] = self.uncovered
        return out


@dataclass(frozen=True)
class Judge:
    """The answerability rules of one collection (see the module doc for the order)."""

    settings: AnswerabilitySettings
    lexical: LexicalEncoder
    routing_vocabulary: frozenset[str]
    common: Callable[[str], bool] = field(default=lambda _w: False)
    #: BM25 terms of the profile's ``[anchors] generic`` words (never salient).
    generic: frozenset[int] = frozenset()

    def judge(
        self,
        turn: Turn,
        stats: TermStats,
        *,
        dense_floor: float | None,
        subjects: SubjectWords | None = None,
        catalog: Callable[[], CatalogMatch | None] | None = None,
    ) -> Verdict:
        """The verdict on ``turn``'s outcome (which must be set).

        ``subjects``: the words that name this collection's subjects and the
        others it mentions (needed for ``subject = "document"``); ``catalog``:
        the question against a docs collection's page catalog (the docs planner's
        last rule; called only when a question reaches it).
        """
        outcome = turn.outcome
        assert outcome is not None
        named = _named_how(turn)
        signals: dict[str, Any] = {"route": outcome.route, "document_named": named}
        thresholds: dict[str, Any] = {"min_coverage": self.settings.min_coverage}

        # 1. a named document: the name is the subject (unless it names another product);
        #    decided before the coverage signals are computed (exact routes stay cheap)
        if named is not None:
            return self._named(turn, stats, signals, thresholds)
        if outcome.route == "lookup" and outcome.details.get("stage") == "keyword":
            signals["rule"] = "lookup_keyword"
            return Verdict(True, None, signals, thresholds)
        if outcome.route == "docs_plan" and any(
            getattr(e, "plan_step", None) == "exact_seed" for e in outcome.evidence
        ):
            signals["document_named"] = "exact_seed"
            signals["rule"] = "named_document"
            return Verdict(True, None, signals, thresholds)

        terms = self.terms(turn, stats, subjects)
        coverage = _coverage(terms)
        unknown = [t.word for t in terms if t.unknown_name]
        best = max((e.score for e in outcome.evidence), default=0.0)
        signals.update(terms={t.word: round(t.idf, 3) for t in terms}, unknown=unknown)
        signals["coverage"] = round(coverage, 4)
        ranked = outcome.route not in EXACT_ROUTES and outcome.route != "lookup"
        if ranked and outcome.evidence:
            signals["best_dense"] = round(best, 4)
            thresholds["dense_floor"] = None if dense_floor is None else round(dense_floor, 4)

        # 2. documents are the subjects: a question naming none must not name another one
        #    (a lookup's phrase is a condition, never a subject)
        if self.settings.subject == "document" and outcome.route != "lookup":
            foreign = subjects.foreign(terms) if subjects is not None else []
            foreign += [m for m in _medicines_elsewhere(turn) if m not in {*foreign, *unknown}]
            signals["other_subjects"] = foreign
            if unknown or foreign:
                signals["rule"] = "subject"
                return Verdict(
                    False, SUBJECT_NOT_IN_CORPUS, signals, thresholds, [*unknown, *foreign]
                )

        # 3. coverage of the salient terms
        if coverage < self.settings.min_coverage:
            uncovered = [t.word for t in terms if not t.covered]
            reason = SUBJECT_NOT_IN_CORPUS if unknown else WEAK_EVIDENCE
            signals["rule"] = "coverage"
            return Verdict(False, reason, signals, thresholds, uncovered)

        # 4. the docs planner: unknown names, guest names and its own floors
        if outcome.route == PLANNER_ROUTE and dense_floor is not None and outcome.evidence:
            verdict = self._planner(
                turn, terms, stats, (best, dense_floor), catalog, signals, thresholds
            )
            if verdict is not None:
                return verdict

        # 5. the evidence's similarity and the reranker's score
        if ranked and dense_floor is not None and outcome.evidence and best <= dense_floor:
            signals["rule"] = "dense"
            return Verdict(False, WEAK_EVIDENCE, signals, thresholds)
        return self._reranked(turn, best, signals, thresholds)

    def _reranked(
        self, turn: Turn, best: float, signals: dict[str, Any], thresholds: dict[str, Any]
    ) -> Verdict:
        """The last rule: with a reranker, its top score against ``rerank_floor``."""
        rerank = turn.details.get("rerank") or {}
        floor = self.settings.rerank_floor
        assert turn.outcome is not None
        if floor is not None and rerank.get("status") == "ok" and turn.outcome.evidence:
            thresholds["rerank_floor"] = floor
            if best < floor:
                signals["rule"] = "rerank"
                return Verdict(False, WEAK_EVIDENCE, signals, thresholds)
        signals["rule"] = "covered"
        return Verdict(True, None, signals, thresholds)

    def _planner(
        self,
        turn: Turn,
        terms: Sequence[Term],
        stats: TermStats,
        dense: tuple[float, float],
        catalog: Callable[[], CatalogMatch | None] | None,
        signals: dict[str, Any],
        thresholds: dict[str, Any],
    ) -> Verdict | None:
        """The docs planner's rules (a question no document was named in), or None: pass.

        A docs collection is about one product; a question about another one
        ("What is Istio?", "How do I rename a Flux Kustomization?") still finds
        its words here, so coverage says little. In order: a question that
        is word for word one of the collection's section headings passes (it
        names that section, as a FAQ heading does); an unknown name
        (a name-like word the collection never contains) abstains; a *guest
        name* (a word written with a capital that the collection mentions in
        at most ``guest_share`` of its chunks: another product it mentions in
        passing) needs evidence at least ``guest_margin`` above the calibrated
        floor, and that close evidence must name each guest (a close page that
        never names it is about something else: :meth:`_guest_cosines`); any
        other question needs evidence ``planner_margin`` above it. Last, a question
        whose closest page (``catalog``: its best cosine among the page catalog
        entries) is no closer than general-knowledge questions come to the
        catalog is about no page (``rule = "catalog"``): evidence passages can
        share a question's words ("Docker Desktop", "Istio") where no page is
        about its subject.
        """
        cfg = self.settings
        best, dense_floor = dense
        assert turn.outcome is not None
        asked = tokens(plain_words(turn.question))
        if asked in stats.headings:
            signals["rule"] = "named_heading"  # the question is a heading of the collection
            return Verdict(True, None, signals, thresholds)
        unknown = [t.word for t in terms if t.unknown_name]
        if unknown:
            signals["rule"] = "unknown_name"
            return Verdict(False, SUBJECT_NOT_IN_CORPUS, signals, thresholds, unknown)
        limit = max(1, int(cfg.guest_share * stats.chunks))
        by_word = {t.word: t for t in terms}
        guests = [
            w
            for w in dict.fromkeys(capitalised_words(turn.question))
            if w in by_word and 0 < by_word[w].df <= limit
        ]
        floor = dense_floor + (cfg.guest_margin if guests else cfg.planner_margin)
        signals["guest_names"] = guests
        thresholds.update(
            guest_df=limit,
            planner_floor=round(dense_floor + cfg.planner_margin, 4),
            guest_floor=round(dense_floor + cfg.guest_margin, 4),
        )
        near = self._guest_cosines(guests, by_word, turn.outcome.evidence)
        far = [w for w, cosine in near.items() if cosine < floor]
        signals.update(guest_cosines={w: round(c, 4) for w, c in near.items()}, guest_names_far=far)
        if best >= floor and not far:
            return self._catalog(catalog, signals, thresholds)
        signals["rule"] = "guest_name" if guests else "dense"
        reason = SUBJECT_NOT_IN_CORPUS if guests else WEAK_EVIDENCE
        return Verdict(False, reason, signals, thresholds, far or guests)

    def _guest_cosines(
        self, guests: Sequence[str], by_word: Mapping[str, Term], evidence: Sequence[Evidence]
    ) -> dict[str, float]:
        """Each guest name's best cosine among the evidence rows that hold it (0.0: none
        does), in the order of ``guests``.

        Evidence close to a question about another product must be where the
        collection talks about that product: a close row that never names it
        ("Flux release cadence" against Argo CD's own release page, where Flux
        is named only in a distant upgrade note) is about something else.
        """
        rows = [(e.score, _evidence_terms([e], self.lexical)) for e in evidence] if guests else []
        return {w: max((s for s, ids in rows if by_word[w].ids & ids), default=0.0) for w in guests}

    @staticmethod
    def _catalog(
        read: Callable[[], CatalogMatch | None] | None,
        signals: dict[str, Any],
        thresholds: dict[str, Any],
    ) -> Verdict | None:
        """The docs planner's last rule: some page must be closer than unrelated questions get."""
        catalog = read() if read is not None else None
        if catalog is None:
            return None
        signals["catalog_best"] = round(catalog.best, 4)
        thresholds["catalog_floor"] = round(catalog.floor, 4)
        if catalog.best > catalog.floor:
            return None
        signals["rule"] = "catalog"
        return Verdict(False, WEAK_EVIDENCE, signals, thresholds)

    def terms(
        self, turn: Turn, stats: TermStats, subjects: SubjectWords | None = None
    ) -> list[Term]:
        """The question's salient terms, each marked covered when the evidence holds it.

        With ``subject = "document"``, a term is also covered when the lookup
        section of one of the evidence's documents holds it: that section says
        what the document is for, so "side effects of statins" is covered by
        atorvastatin's adverse reactions ("statins" is in its indications).
        """
        assert turn.outcome is not None
        res = turn.resolution
        terms = salient_terms(
            turn.question,
            lexical=self.lexical,
            stats=stats,
            ignore=self.routing_vocabulary,
            spans=res.spans if res is not None else (),
            common=self.common,
            generic=self.generic,
        )
        evidence_terms = _evidence_terms(turn.outcome.evidence, self.lexical)
        if self.settings.subject == "document" and subjects is not None:
            evidence_terms |= subjects.about_docs(e.doc_id for e in turn.outcome.evidence)
        for t in terms:
            t.covered = bool(t.ids & evidence_terms)
        return terms

    def _named(
        self,
        turn: Turn,
        stats: TermStats,
        signals: dict[str, Any],
        thresholds: dict[str, Any],
    ) -> Verdict:
        """A named document passes, unless a word right after its name names a product
        the collection does not hold ("amoxicillin clavulanic acid"), or the question
        names a brand that combines the document's ingredient with others the
        collection does not hold ("is Augmentin the same as amoxicillin"), or names such a
        combination by its ingredients ("amoxicillin and clavulanic acid")."""
        resolution = turn.details.get("doc_resolution") or {}
        combined = [
            b["brand"].casefold()
            for b in resolution.get("brands_not_in_collection", ())
            if b.get("combines") is not None and b.get("combines") == resolution.get("doc_id")
        ]
        if combined:
            signals["rule"] = "combination_brand"
            return Verdict(False, SUBJECT_NOT_IN_CORPUS, signals, thresholds, combined)
        with_others = resolution.get("combined_with") or {}
        if with_others.get("doc_id") == resolution.get("doc_id") and with_others.get("ingredients"):
            signals["rule"] = "combination_ingredients"
            others = list(with_others["ingredients"])
            return Verdict(False, SUBJECT_NOT_IN_CORPUS, signals, thresholds, others)
        compound = [
            w
            for w in _compound_name(turn)
            if w not in stats.words
            and w not in self.routing_vocabulary
            and self.lexical.terms(w)
            and not self.common(w)
        ]
        if compound:
            signals["compound_name"] = compound
            signals["rule"] = "compound_name"
            return Verdict(False, SUBJECT_NOT_IN_CORPUS, signals, thresholds, compound)
        signals["rule"] = "named_document"
        return Verdict(True, None, signals, thresholds)


def _medicines_elsewhere(turn: Turn) -> list[str]:
    """Medicines the question names that no document holds, by the resolver's brand table:
    brands whose ingredients no document holds ("zoloft") and one-word ingredients no
    document holds ("clarithromycin", which a label may mention among its interactions).
    """
    resolution = turn.details.get("doc_resolution") or {}
    brands = [b["brand"].casefold() for b in resolution.get("brands_not_in_collection", ())]
    return list(dict.fromkeys([*brands, *resolution.get("ingredients_not_in_collection", ())]))


def _coverage(terms: Sequence[Term]) -> float:
    """The share of the salient-term weight the evidence holds, over the terms the
    collection contains.

    A word the collection never contains can be held by no evidence at all, so it
    says nothing about *this* evidence: it is judged by the rules for unknown names
    (the subject rule, the docs planner's), not here. Counted here at the highest
    IDF, it abstained SciFact claims whose abstract names the thing another way
    ("ivermectin", "400mg", "IFIT1" against "IFITs"). 1.0 when no term is left.

    Example:
        >>> seen = Term("dose", frozenset({1}), 3, 1.0, covered=True)
        >>> unseen = Term("ifit1", frozenset({2}), 0, 9.0)
        >>> _coverage([seen, unseen]), _coverage([unseen])
        (1.0, 1.0)
    """
    known = [t for t in terms if t.df > 0]
    total = sum(t.idf for t in known)
    return sum(t.idf for t in known if t.covered) / total if total else 1.0


def _named_how(turn: Turn) -> str | None:
    """How the turn's document was named (``flag``, ``exact``, ``folded``, ``fuzzy``), or None."""
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


def _compound_name(turn: Turn) -> list[str]:
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


@dataclass(frozen=True)
class SubjectWords:
    """The words that tell a collection's subjects from the others it mentions.

    Attributes:
        names: the words of every document name (titles, aliases, word-like ids).
        lookup: the words of the lookup section (conditions: what the documents treat).
        mentioned: the words of ``subject_sections`` (where other subjects are
            listed), each with the number of documents that mention it.
        documents: the number of documents.
        about: each document's lookup-section BM25 terms (what it is for: "statins",
            "type 2 diabetes"), by document id.
    """

    names: frozenset[str]
    lookup: frozenset[str]
    mentioned: Mapping[str, int]
    documents: int = 0
    about: Mapping[str, frozenset[int]] = field(default_factory=dict)

    def about_docs(self, doc_ids: Iterable[str]) -> frozenset[int]:
        """The lookup-section terms of these documents, together."""
        out: set[int] = set()
        for d in doc_ids:
            out |= self.about.get(d, frozenset())
        return frozenset(out)

    def foreign(self, terms: Sequence[Term]) -> list[str]:
        """Name-like terms mentioned as other subjects, never named nor treated here.

        A word the subject sections of many documents use (at least
        :data:`CLASS_SHARE` of them: "NSAIDs", "beta blockers") names a class
        the documents belong to or warn about, not another subject.
        """
        limit = max(1, int(CLASS_SHARE * self.documents))
        return [
            t.word
            for t in terms
            if t.name_like
            and t.df > 0
            and 0 < self.mentioned.get(t.word, 0) <= limit
            and t.word not in self.lookup
            and t.word not in self.names
        ]


def _evidence_terms(evidence: Sequence[Evidence], lexical: LexicalEncoder) -> frozenset[int]:
    ids: set[int] = set()
    for e in evidence:
        ids |= lexical.terms(" ".join(x for x in (e.doc_title, e.section_title, e.text) if x))
    return frozenset(ids)


def closest_documents(evidence: Sequence[Evidence]) -> list[dict[str, Any]]:
    """The documents of withheld candidates, best first (what the corpus does cover)."""
    out: dict[str, dict[str, Any]] = {}
    for e in evidence:
        if e.doc_id not in out:
            out[e.doc_id] = {
                "doc_id": e.doc_id,
                "doc_title": e.doc_title,
                "score": round(e.score, 4),
            }
    return list(out.values())[:CLOSEST_DOCUMENTS]


def apply(outcome: Outcome, verdict: Verdict, turn: Turn) -> None:
    """Record ``verdict`` on the turn; an abstained turn keeps its candidates out of evidence."""
    details = verdict.as_details()
    if not verdict.answerable:
        details["closest_documents"] = closest_documents(outcome.evidence)
        details["withheld_evidence_ids"] = [e.chunk_id for e in outcome.evidence]
        brands = (turn.details.get("doc_resolution") or {}).get("brands_not_in_collection")
        if brands:  # "Zoloft -> sertraline": what the question named, and why nothing matched
            details["brands_not_in_collection"] = brands
        outcome.evidence = []
        turn.decision, turn.reason = "ABSTAIN", verdict.reason
    turn.details["answerability"] = details
