"""The docs planner's rules (a docs collection: no document is named, the plan finds pages).

``exact_seed``: the plan found a page by its exact path, or read a named section
whole: the page or the section was named.
The :class:`Planner` rules, for a question no document was named in: a docs
collection is about one product; a question about another one ("What is
Istio?", "How do I rename a Flux Kustomization?") still finds its words here,
so coverage says little. In order: an unknown name (a name-like word the collection
never contains) abstains unless weighed out (see
:mod:`~sectio.retrieve.answerability.weigh`), whatever heading the question names
beside it ("How do I add a flake8 hook ... for the pre-commit framework?" on Git's
manual pages names the ``pre-commit`` hook's heading: the hook it asks about is
flake8's); a question that is word for word one of the collection's section headings
passes (it names that section, as a FAQ heading does), and so does one that names a
heading of three words or more, or a two-word one written as one identifier
("keyring.enabled"), inside itself (:func:`names_heading`); a *guest name* (a word
written with a capital that the collection mentions in at most ``guest_share`` of its
chunks: another product it mentions in passing) needs evidence at least ``guest_margin`` above the
calibrated floor, and that close evidence must name each guest (a close page
that never names it is about something else), except a guest the question writes
all in capitals that the closest row's section names, or that the question writes as an
alternative of a word that section names ("DNS", "TCP", "MKCOL" on the Requests docs,
"TLS/SSL"; "AES" beside "ECB mode", "MD5 or SHA1" on the OWASP cheat sheets: a protocol
or an algorithm mentioned rarely, written where the answer is: :func:`acronyms_at_best`);
a guest the collection documents as code (its catalog has it as an identifier and its
pages write it as a code span: :attr:`~sectio.retrieve.stats.TermStats.identifiers`;
``PreSync``, a sync hook of Argo CD's docs, is no product; ``signals.guest_identifiers``)
needs the planner's floor, not the guest's;
any other question needs evidence ``planner_margin`` above it (each margin in the model's units:
:mod:`~sectio.retrieve.answerability.margins`), or one passage holding its words together at
odds no chance explains (:func:`~sectio.retrieve.answerability.weigh.joint_passage`: the model
can place far a question whose words one passage holds). Last, a question whose closest page
(its best cosine among the page catalog entries) is no closer than
general-knowledge questions come to the catalog is about no page
(``rule = "catalog"``): evidence passages can share a question's words
("Docker Desktop", "Istio") where no page is about its subject; unless a
passage is strong evidence itself (its cosine
:data:`~sectio.retrieve.answerability.weigh.CATALOG_STRONG_MARGIN` over the
floor: a page's summary can miss what one of its passages answers), or one that holds
the question's words together (:func:`~sectio.retrieve.answerability.weigh.joint_passage`).

The rules run on every ranked route, not only the docs planner's: a
collection of any profile gets the same headings, unknown names, guest
names and margins (the page catalog exists only where a docs collection
built one), on the docs planner's route and on questions
(:attr:`~sectio.retrieve.answerability.context.RuleContext.asks`: a claim to
check names genes and species in capitals, none of them a guest). Where
documents are the subjects (``subject = "document"``) the ``subject`` rule
reads other names from where documents list them, which capitals only guess
at: no guest names there ("GERD" is a condition the drug labels mention
rarely, not another product).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence

from sectio.contract.result import Evidence
from sectio.retrieve.answerability.context import PLANNER_ROUTE, RuleContext
from sectio.retrieve.answerability.verdict import SUBJECT_NOT_IN_CORPUS, WEAK_EVIDENCE, Verdict
from sectio.retrieve.answerability.weigh import joint_passage, strong_passage
from sectio.retrieve.stats import Term, evidence_terms
from sectio.retrieve.text import tokens
from sectio.retrieve.words import acronym_words, capitalised_words, code_words, plain_words

#: The plan step of a row found by its exact path (``sectio.plan.executor``).
EXACT_SEED = "exact_seed"
#: The plan step of a named section's rows, read whole (a caller's ``section_key``, or a
#: heading the question names).
SECTION_SEED = "section_seed"


def plan_step(evidence: Evidence) -> str | None:
    """The plan step a docs-plan row came from (an extra field of its evidence)."""
    step = (evidence.model_extra or {}).get("plan_step")
    return None if step is None else str(step)


class ExactSeed:
    """``named_document``: a docs plan with a row found by its exact path, or a named
    section read whole, passes (the page or the section was named)."""

    name = "exact_seed"

    def check(self, ctx: RuleContext) -> Verdict | None:
        outcome = ctx.outcome
        if outcome.route != PLANNER_ROUTE:
            return None
        steps = {plan_step(e) for e in outcome.evidence}
        step = next((s for s in (EXACT_SEED, SECTION_SEED) if s in steps), None)
        if step is None:
            return None
        ctx.signals.document_named = step
        return ctx.decide("named_document", None)


class Planner:
    """Headings, unknown names, guest names, the planner's floors and the page catalog."""

    name = "planner"

    def check(self, ctx: RuleContext) -> Verdict | None:
        outcome, dense_floor = ctx.outcome, ctx.dense_floor
        if not ctx.ranked or not ctx.asks or dense_floor is None or not outcome.evidence:
            return None
        cfg, signals, thresholds, terms = ctx.settings, ctx.signals, ctx.thresholds, ctx.terms
        words = tokens(plain_words(ctx.question))
        if ctx.unweighed:
            return ctx.decide("unknown_name", SUBJECT_NOT_IN_CORPUS, ctx.unweighed)
        if words in ctx.stats.headings or names_heading(ctx.question, words, ctx.stats.headings):
            return ctx.decide("named_heading", None)  # the question names a heading
        limit = max(1, int(cfg.guest_share * ctx.stats.chunks))
        by_word = {t.word: t for t in terms}
        guests = [
            w
            for w in dict.fromkeys(capitalised_words(ctx.question))
            if w in by_word and 0 < by_word[w].df <= limit and cfg.subject != "document"
        ]
        planner_floor = dense_floor + ctx.margin(cfg.planner_margin)
        guest_floor = dense_floor + ctx.margin(cfg.guest_margin)
        signals.guest_names = guests
        thresholds.guest_df = limit
        thresholds.planner_floor = round(planner_floor, 4)
        thresholds.guest_floor = round(guest_floor, 4)
        near = guest_cosines(ctx, guests, by_word)
        written = acronyms_at_best(ctx, near)
        headed = headed_guests(ctx, guests)
        held = compounds_held(ctx, guests)
        documented = [w for w in guests if w in ctx.stats.identifiers]
        kept = [w for w in guests if w not in written + headed + held + documented]
        floor = guest_floor if kept else planner_floor
        far = [w for w in kept if near[w] < floor]
        signals.guest_cosines = {w: round(c, 4) for w, c in near.items()}
        signals.guest_names_far = far
        signals.guest_acronyms_at_best = written or None
        signals.guest_headings_at_best = headed or None
        signals.guest_compounds_held = held or None
        signals.guest_identifiers = documented or None
        if (ctx.best >= floor and not far) or (not kept and joint_passage(ctx)):
            return self._catalog(ctx)
        reason = SUBJECT_NOT_IN_CORPUS if kept else WEAK_EVIDENCE
        return ctx.decide("guest_name" if kept else "dense", reason, far or kept)

    @staticmethod
    def _catalog(ctx: RuleContext) -> Verdict | None:
        """The last rule: some page must be closer than unrelated questions get."""
        catalog = ctx.catalog() if ctx.catalog is not None else None
        if catalog is None:
            return None
        ctx.signals.catalog_best = round(catalog.best, 4)
        ctx.thresholds.catalog_floor = round(catalog.floor, 4)
        if catalog.best > catalog.floor:
            return None
        if strong_passage(ctx):  # passages this close answer it, whatever page they are on
            return None
        if joint_passage(ctx):  # a passage holds the question's words, as no chance does
            return None
        if heading_named_in_part(ctx):  # the evidence's own heading, named in part
            return None
        if ctx.signals.guest_headings_at_best:  # the question names the closest heading
            return None
        if identifier_at_best(ctx):  # it names a name the closest page documents as code
            return None
        return ctx.decide("catalog", WEAK_EVIDENCE)


#: The fewest words of a heading a question may name inside a longer question; one of two
#: words counts only written as one identifier ("keyring.enabled", "max-workers").
HEADING_WORDS = 3


def names_heading(
    question: str, words: tuple[str, ...], headings: frozenset[tuple[str, ...]]
) -> bool:
    """Whether ``words`` (the question's) hold, in a row, a heading of :data:`HEADING_WORDS`
    words or more, or one of two written joined as the question writes a setting
    ("How does the installer.max-workers setting work?", "keyring.enabled setting"), or
    one word written as code (:func:`~sectio.retrieve.words.code_words`: a call's name,
    "toBe" of ``.toBe(value)``). "Flux release cadence and supported versions" does not
    name "Supported versions".

    Example:
        >>> hs = frozenset({("installer", "max", "workers"), ("supported", "versions"),
        ...                 ("keyring", "enabled")})
        >>> q = "How does the installer.max-workers setting work?"
        >>> names_heading(q, ("how", "does", "the", "installer", "max", "workers"), hs)
        True
        >>> names_heading("keyring.enabled setting", ("keyring", "enabled", "setting"), hs)
        True
        >>> names_heading("flux supported versions", ("flux", "supported", "versions"), hs)
        False
    """
    if any((w,) in headings for w in code_words(question)):
        return True  # a heading's name written as code ("What does toHaveBeenCalledWith do?")
    n = len(words)
    folded = question.casefold()
    for h in headings:
        if len(h) < 2 or len(h) > n:
            continue
        if not any(words[i : i + len(h)] == h for i in range(n - len(h) + 1)):
            continue
        if len(h) >= HEADING_WORDS or re.search(r"[._\-]".join(map(re.escape, h)), folded):
            return True
    return False


def heading_named_in_part(ctx: RuleContext) -> bool:
    """Whether the question writes :data:`HEADING_WORDS` or more content words in a row
    (stopwords skipped) of an evidence row's own section heading ("How do I use a
    custom certificate authority?" against "Custom certificate authority and mutual TLS
    authentication"), or the whole of a heading of two ("I'm in a detached HEAD state"
    against Git's "DETACHED HEAD"; one word names nothing): a page's summary can miss a
    section its passages hold; the section's heading does not.
    Records ``signals.heading_named``."""
    lexical = ctx.words.lexical

    def content(text: str) -> tuple[str, ...]:  # stopwords out: "how do I" names nothing
        return tuple(w for w in tokens(plain_words(text)) if lexical.terms(w))

    words = content(ctx.question)
    for e in ctx.outcome.evidence:
        heading = content(e.section_title or "")
        if _shares_run(words, heading, min(HEADING_WORDS, max(len(heading), 2))):
            ctx.signals.heading_named = e.section_title
            return True
    return False


def _shares_run(a: tuple[str, ...], b: tuple[str, ...], n: int) -> bool:
    """Whether ``a`` and ``b`` share ``n`` words in a row."""
    if len(a) < n or len(b) < n:
        return False
    runs = {b[i : i + n] for i in range(len(b) - n + 1)}
    return any(a[i : i + n] in runs for i in range(len(a) - n + 1))


def closest_row(evidence: Sequence[Evidence]) -> Evidence:
    """The evidence row closest to the question (the highest score; the first of equals):
    the row the rules' "closest row" means. ``evidence`` must not be empty."""
    return max(evidence, key=lambda e: e.score)


def identifier_at_best(ctx: RuleContext) -> bool:
    """Whether the question writes a guest name that the closest evidence row's page
    documents as code (``signals.guest_identifiers``, on that page: "Are PreSync hook
    behaviors not suitable for DB migration?", closest to the sync phases page, which
    documents ``PreSync``): it names what that page is about, whatever the page's
    summary is close to."""
    named = ctx.signals.guest_identifiers
    evidence = ctx.outcome.evidence
    if not named or not evidence:
        return False
    best = closest_row(evidence)
    return any(best.doc_id in ctx.stats.identifiers.get(w, ()) for w in named)


def acronyms_at_best(ctx: RuleContext, near: Mapping[str, float]) -> list[str]:
    """The guest names the question writes all in capitals ("DNS", "TCP", "MKCOL") that the
    closest evidence row's section names (the closest row itself, or another row of its
    section among the evidence: "Is AES in ECB mode OK ...?", where the cipher modes
    section names ECB in its closest passage and AES in another), or that the question
    writes as an alternative of a word that section names ("TLS/SSL", "MD5 or SHA1":
    :func:`alternatives`): a protocol, an algorithm or a format the collection mentions
    rarely, written where the answer is, is a detail of the question, not another
    product; it needs the planner's floor, not the guest's. A capitalised name
    ("Istio", "Prometheus") stays a guest wherever it is written, and so does an
    acronym only a row of another section names ("SACK" on the QUIC RFCs).
    """
    caps = [w for w in near if w in acronym_words(ctx.question)]
    evidence = ctx.outcome.evidence
    if not caps or not evidence:
        return []
    best = closest_row(evidence)
    section = [e for e in evidence if (e.doc_id, e.section_key) == (best.doc_id, best.section_key)]
    held = evidence_terms(section, ctx.words.lexical)
    terms = ctx.words.lexical.terms
    pairs = alternatives(ctx.question)
    return [
        w
        for w in caps
        if (near[w] > 0 and terms(w) & held) or any(terms(o) & held for o in pairs.get(w, ()))
    ]


#: What joins two alternatives: a slash, or "or" between spaces.
_ALTERNATIVE = re.compile(r"\s*/\s*|\s+or\s+", re.IGNORECASE)
_ALT_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[.\-][A-Za-z0-9]+)*")


def headed_guests(ctx: RuleContext, guests: Sequence[str]) -> list[str]:
    """The guest names written as an identifier (:data:`_IDENTIFIER`) that the heading of
    the closest evidence row's section writes ("What does GZipMiddleware do?" on the
    FastAPI docs, closest to the section headed ``GZipMiddleware``; "`FormData` Input" on
    tRPC's): a class or a function the collection documents in one section, not another
    product it mentions in passing; it needs the planner's floor, not the guest's. A
    product's name stays a guest where a
    section is headed by it ("What is Istio?" on Argo CD's docs, whose "Istio" section
    says how to route traffic through it), and so does a name headed where the question
    does not come closest ("Flask" of a comparison page, for a question about routes)."""
    evidence = ctx.outcome.evidence
    named = {w.lower() for w in _IDENTIFIER.findall(ctx.question)}
    if not guests or not evidence or not named:
        return []
    best = closest_row(evidence)
    heading = tokens(plain_words(best.section_title or ""))
    return [w for w in guests if w in named and w in heading]


#: A name written as an identifier: a capital inside the word after a small letter
#: ("GZipMiddleware", "TestClient"), a capitalised word after capitals ("HTTPException"),
#: or a digit between letters ("Jinja2Templates").
_IDENTIFIER = re.compile(r"\b[A-Za-z]*(?:[a-z][A-Z]|[A-Z][A-Z][a-z]|[a-zA-Z][0-9]+[a-zA-Z])\w*")


#: A word of parts joined by hyphens ("Cache-Control", "X-Request-ID", "Envoy-based").
_COMPOUND = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+\b")


def compounds_held(ctx: RuleContext, guests: Sequence[str]) -> list[str]:
    """The guest names that are parts of a hyphenated word the question writes whose parts
    the collection writes side by side ("Cache-Control", "Content-Type": a header's name,
    capitalised by custom, that the collection writes where it sets that header,
    ``'cache-control'``): the part ("control") is a word of the collection's term, not
    another product. A part of a compound the collection never writes together
    ("Envoy-based", "non-Istio") stays a guest."""
    if not guests:
        return []
    terms, pairs = ctx.words.lexical.terms, ctx.stats.pairs
    out: list[str] = []
    for m in _COMPOUND.finditer(ctx.question):
        parts = m.group().lower().split("-")
        if not any(w in guests for w in parts):
            continue
        ids = [terms(p) for p in parts]
        if all(any((a, b) in pairs for a in x for b in y) for x, y in itertools.pairwise(ids)):
            out.extend(w for w in parts if w in guests and w not in out)
    return out


def alternatives(question: str) -> dict[str, set[str]]:
    """Each word the question writes as an alternative of another ("TLS/SSL", "MD5 or
    SHA1", "GET or POST"), lowercased, with the words it stands beside that way.

    Example:
        >>> alternatives("Can I force TLS/SSL, or use MD5 or SHA1?") == {
        ...     "tls": {"ssl"}, "ssl": {"tls"}, "md5": {"sha1"}, "sha1": {"md5"}}
        True
        >>> alternatives("Should I sort or filter?")["sort"]
        {'filter'}
    """
    found = [m for m in _ALT_WORD.finditer(question) if m.group().lower() != "or"]
    out: dict[str, set[str]] = {}
    for a, b in itertools.pairwise(found):
        if _ALTERNATIVE.fullmatch(question, a.end(), b.start()):
            x, y = a.group().lower(), b.group().lower()
            out.setdefault(x, set()).add(y)
            out.setdefault(y, set()).add(x)
    return out


def guest_cosines(
    ctx: RuleContext,
    guests: Sequence[str],
    by_word: Mapping[str, Term],
) -> dict[str, float]:
    """Each guest name's best cosine among the evidence rows that hold it (0.0: none
    does), in the order of ``guests``.

    Evidence close to a question about another product must be where the
    collection talks about that product: a close row that never names it
    ("Flux release cadence" against Argo CD's own release page, where Flux
    is named only in a distant upgrade note) is about something else.
    """
    rows = list(zip((e.score for e in ctx.outcome.evidence), ctx.row_terms, strict=True))
    return {w: max((s for s, ids in rows if by_word[w].ids & ids), default=0.0) for w in guests}
