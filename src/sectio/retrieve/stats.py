"""Collection statistics and a question's salient terms: what the answerability rules weigh.

:class:`TermStats` holds one tenant's BM25 document frequencies and words
(read once with the resolver's view); :class:`SubjectWords` the words that
tell the collection's subjects from the others it mentions; :func:`salient_terms`
the question's words that say what it is about, each weighted by IDF;
:func:`coverage` the share of that weight the evidence holds.

Example:
    >>> stats = TermStats(chunks=3, df={1: 3, 2: 1}, words=frozenset({"dose"}))
    >>> round(stats.idf(2), 3) > round(stats.idf(1), 3), stats.idf(9) == stats.max_idf
    (True, True)
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sectio.contract.result import Evidence
from sectio.index.lexical import LexicalEncoder
from sectio.retrieve.text import Tokens, tokens
from sectio.retrieve.words import name_words, plain_words, quantity_word

#: A word in the subject sections of more than this share of documents names a class.
CLASS_SHARE = 0.15


@dataclass(frozen=True, eq=False)
class TermPairs:
    """Which BM25 terms a tenant writes next to each other (stopwords skipped, either
    order): "pin requirements" is a pair of a corpus that writes "pin your requirements".
    It also keeps the pairs written one content word apart (:meth:`near`): "rules
    ... fines" of "rules on administrative fines".

    Kept as two sorted arrays of 64-bit keys (8 bytes a pair): ``keys`` side by side,
    ``apart`` one word apart.

    Example:
        >>> pairs = TermPairs.of([[3, 5, 8, 9]])
        >>> (5, 3) in pairs, (3, 5) in pairs, (3, 8) in pairs, len(pairs)
        (True, True, False, 6)
        >>> pairs.near(3, 8), pairs.near(8, 3), pairs.near(3, 9)
        (True, True, False)
    """

    keys: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    apart: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @staticmethod
    def key(a: Any, b: Any) -> Any:
        """The key of the pair ``(a, b)``: term ids, or arrays of them."""
        return (a << 32) | b

    @classmethod
    def of(cls, runs: Iterable[Sequence[int]]) -> TermPairs:
        """The pairs of each run of term ids (one text's content terms, in order)."""
        parts: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
        for run in runs:
            ids = np.asarray(run, dtype=np.int64)
            for gap, out in enumerate(parts, start=1):
                if len(ids) > gap:
                    a, b = ids[:-gap], ids[gap:]
                    out.extend((cls.key(a, b), cls.key(b, a)))
        return cls(*(cls._sorted(out) for out in parts))

    @staticmethod
    def _sorted(parts: list[np.ndarray]) -> np.ndarray:
        return np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)

    @staticmethod
    def _holds(keys: np.ndarray, k: int) -> bool:
        i = int(np.searchsorted(keys, k))
        return i < len(keys) and int(keys[i]) == k

    def __contains__(self, pair: object) -> bool:
        if not isinstance(pair, tuple) or len(pair) != 2:
            return False
        return self._holds(self.keys, self.key(int(pair[0]), int(pair[1])))

    def near(self, a: int, b: int) -> bool:
        """Whether ``a`` and ``b`` are written side by side or one content word apart."""
        k = self.key(int(a), int(b))
        return self._holds(self.keys, k) or self._holds(self.apart, k)

    def __len__(self) -> int:
        return len(self.keys)


@dataclass(frozen=True)
class TermStats:
    """Document frequencies of one tenant's BM25 terms and the words it contains.

    ``chunks`` is the number of points counted, ``df`` maps a term id
    (:meth:`LexicalEncoder.terms`) to the points holding it, ``words`` is every
    normalized word of every text (for "occurs verbatim in the collection"),
    ``headings`` every section title's words (a question that is one of them
    names that section), ``pairs`` the terms it writes side by side (:class:`TermPairs`),
    ``identifiers`` the names a docs collection documents as code (its catalog's
    identifier entries, ``entity_kind = "code"``: ``PreSync``, ``GZipMiddleware``, that
    its texts also write as a code span, or a section title as a word: a product name
    listed in a table's first column, "MongoDB", is no identifier of it), lowercased,
    each with the pages (``doc_id``) that document it.
    """

    chunks: int
    df: Mapping[int, int]
    words: frozenset[str] = frozenset()
    headings: frozenset[tuple[str, ...]] = frozenset()
    pairs: TermPairs = field(default_factory=TermPairs)
    identifiers: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def from_payloads(
        cls, payloads: Iterable[Mapping[str, Any]], lexical: LexicalEncoder, df_only: bool = False
    ) -> TermStats:
        """Statistics over stored records (title, section title and text of each);
        ``df_only``: the chunk count and document frequencies alone (no words,
        headings or pairs: a third of the work, for a salience test).

        A title shared by many records is read once (its tokens, term run and
        terms kept); a record's terms are the union of its fields' terms (BM25
        reads word by word, so that is the terms of the fields joined)."""
        df: Counter[int] = Counter()
        words: set[str] = set()
        headings: set[tuple[str, ...]] = set()
        identifiers: dict[str, set[str]] = {}
        spans: set[str] = set()  # every code span's text, lowercased
        runs: list[list[int]] = []
        term_of: dict[str, tuple[int, ...]] = {}
        titles: dict[str, tuple[Tokens, list[int], frozenset[int]]] = {}
        n = 0
        for p in payloads:
            n += 1
            terms: set[int] = set()
            for key in ("doc_title", "section_title", "text"):
                if not p.get(key):
                    continue
                field_text = str(p[key])
                if df_only:
                    terms |= lexical.terms(field_text)
                    continue
                got = titles.get(field_text) if key != "text" else None
                if got is not None:  # a title read before: its words and pairs are in
                    terms |= got[2]
                    continue
                toks = tokens(field_text)
                got = (toks, _term_run(toks, lexical, term_of), lexical.terms(field_text))
                if key != "text":
                    titles[field_text] = got
                terms |= got[2]
                words.update(toks)
                runs.append(got[1])  # a run each: a title does not run into its text
            df.update(terms)
            if df_only:
                continue
            if p.get("section_title"):
                headings.update(heading_forms(str(p["section_title"])))
            _code_names(p, identifiers, spans)
        return cls(
            n,
            dict(df),
            frozenset(words),
            frozenset(headings),
            TermPairs.of(runs),
            {name: frozenset(pages) for name, pages in identifiers.items() if name in spans},
        )

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


def _code_names(p: Mapping[str, Any], identifiers: dict[str, set[str]], spans: set[str]) -> None:
    """Add what payload ``p`` tells of names written as code: a catalog identifier entry
    (``entity_kind = "code"``) to ``identifiers`` (its name lowercased -> its pages), its
    text's code spans to ``spans``, and its section title's words too (a heading's code
    loses its marks in the title), lowercased."""
    if p.get("section_title"):
        spans.update(w.strip(_TITLE_PUNCTUATION).lower() for w in str(p["section_title"]).split())
    if p.get("entity_kind") == "code" and p.get("entity"):
        identifiers.setdefault(str(p["entity"]).lower(), set()).add(str(p.get("doc_id") or ""))
    elif "`" in str(p.get("text") or ""):
        spans.update(m.group(2).strip().lower() for m in _CODE_SPAN.finditer(p["text"]))


#: A Markdown code span (its text in group 2): what a docs page writes as code.
_CODE_SPAN = re.compile(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)")
#: What a word of a section title may carry around a name ("(PreSync)", "PreSync:").
_TITLE_PUNCTUATION = "()[]{},:;!?\"'`"
#: A heading that is a call: its name, then its arguments (``.toBe(value)``, ``jest.fn()``).
_CALL = re.compile(r"^\W*([A-Za-z_$][\w.$]*)\(")


def heading_forms(title: str) -> list[Tokens]:
    """A section title's words as a question names it: the title, and a call's name
    alone (``toBe`` for ``.toBe(value)``: people write the name, not the arguments).

    Example:
        >>> heading_forms(".toBe(value)"), heading_forms("Sync waves")
        ([('tobe', 'value'), ('tobe',)], [('sync', 'waves')])
    """
    forms = [tokens(plain_words(title))]
    call = _CALL.match(title.strip())
    if call is not None and tokens(call.group(1)) not in forms:
        forms.append(tokens(call.group(1)))
    return forms


def _term_run(
    toks: Sequence[str], lexical: LexicalEncoder, term_of: dict[str, tuple[int, ...]]
) -> list[int]:
    """The BM25 term ids of ``toks`` in order (stopwords have none; ``term_of`` caches)."""
    run: list[int] = []
    for w in toks:
        ids = term_of.get(w)
        if ids is None:
            ids = term_of[w] = tuple(sorted(lexical.terms(w)))
        run.extend(ids)
    return run


#: The words a question names the tool it works with after ("use uv ...", "with bun test").
TOOL_CUES = frozenset({"use", "using", "with", "via"})


def tool_named(words: Sequence[str], i: int) -> bool:
    """Whether ``words[i]`` is written as a tool the question works with: right after
    :data:`TOOL_CUES` and followed by more of the question ("How do I run tests in watch
    mode with bun test?", "How do I use uv pip compile ...?"). Such a word is a name even
    where the model's vocabulary holds it as a common word; the last word of a question
    after "with" is what something is done with ("... interacts with antibiotics").

    Example:
        >>> words = "run tests with bun test".split()
        >>> tool_named(words, 3), tool_named(words, 4)
        (True, False)
        >>> tool_named("a thinner that interacts with antibiotics".split(), 5)
        False
    """
    return 0 < i < len(words) - 1 and words[i - 1] in TOOL_CUES and words[i] not in TOOL_CUES


#: A capital letter standing alone ("C", "R"), not inside a word, a path or a query string.
_LONE_CAPITAL = re.compile(r"(?<![\w=&?/.-])[A-Z](?![\w=&/.-])")


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
    left out, unless the question writes them inside a file name or a dotted
    identifier ("hatch" of "hatch.toml") or all in capitals ("MIT" of "the MIT
    license": :func:`~sectio.retrieve.words.name_words`); a word is kept once.
    A common word written as the tool the question works with stays a name
    (:func:`tool_named`: "with bun test", "use uv pip compile").
    Strengths, doses, units, version parts and dosage forms ("40mg", "v3",
    "tablets": :func:`quantity_word`) read as common words: never a name, so never
    a subject by themselves. A one-letter word is no term unless the question writes it
    as a capital standing alone (the language "C"): "b" of "?tag=a&tag=b" is a value.
    """
    named = {i for start, end in spans for i in range(start, end)}
    in_name = name_words(question)
    capitals = set(_LONE_CAPITAL.findall(question))
    out: list[Term] = []
    seen: set[str] = set()
    words = tokens(plain_words(question))
    for i, word in enumerate(words):
        if i in named or word in ignore or word in seen or word.isdigit():
            continue
        if len(word) == 1 and word.upper() not in capitals:
            continue
        seen.add(word)
        ids = lexical.terms(word)
        if not ids or ids <= generic:
            continue
        df = max(stats.df.get(t, 0) for t in ids)
        tool = tool_named(words, i)
        is_common = (common(word) and word not in in_name and not tool) or quantity_word(word)
        if df == 0 and is_common:
            continue
        out.append(Term(word, ids, df, stats.idf_of(df), name_like=not is_common))
    return out


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


def evidence_terms(evidence: Sequence[Evidence], lexical: LexicalEncoder) -> frozenset[int]:
    """Every BM25 term of the evidence (titles, section titles and texts)."""
    ids: set[int] = set()
    for e in evidence:
        ids |= lexical.terms(" ".join(x for x in (e.doc_title, e.section_title, e.text) if x))
    return frozenset(ids)


def coverage(terms: Sequence[Term]) -> float:
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
        >>> coverage([seen, unseen]), coverage([unseen])
        (1.0, 1.0)
    """
    known = [t for t in terms if t.df > 0]
    total = sum(t.idf for t in known)
    return sum(t.idf for t in known if t.covered) / total if total else 1.0
