"""The routing vocabulary a collection teaches: section numbers and titles, read from its records.

Built from one tenant's records (the same complete read that builds the
document catalog), so it holds only what that tenant's records say, and is
rebuilt whenever they change. Two shapes of corpus, both handled:

* **shared section keys**: a key without a number that at least
  :data:`SHARED_MIN_DOCS` documents and half of them have (``preamble``,
  ``contraindications``, ``item_7``-free 10-K keys): its words and its
  titles become phrases that route in every document that has it;
* **per-document sections**: each section's number, read from its title or
  key (:mod:`sectio.retrieve.learned.numbers`), and its title without the
  number, split at a dash, colon or bracket ("Right to erasure", "right to
  be forgotten"), as phrases of that document.

Sections the profile lists are left to the profile (it wins where it speaks).

Matching (:meth:`LearnedVocabulary.match`), after the profile's phrases found
nothing: a numbered reference first ("article 17", "§19.3"; a sub-number the
document lacks reads as its parent: "clause 5.2" -> section 5), then title
phrases, longest first, on word boundaries, exact then accent-folded, the
document's name read as "it". A title of one word routes only next to a word
that names a unit ("the Pacing section"); a title routes when it is most of
what the question asks (:meth:`LearnedVocabulary.claims`), not a term of art
it uses; shared keys' phrases route wherever they occur, as a profile's do.
Only the named document's sections are candidates; with no document named,
a number or title that exactly one document has names that document too; one
several documents share names nothing (never a guess).

Example:
    >>> v = LearnedVocabulary.from_payloads([
    ...     {"doc_id": "gdpr", "section_key": "article_17",
    ...      "section_title": "Article 17 - Right to erasure ('right to be forgotten')"},
    ...     {"doc_id": "gdpr", "section_key": "recital_26", "section_title": "Recital 26"},
    ... ])
    >>> m = v.match("what does art. 17(3) say")
    >>> m.doc_id, m.key, m.via
    ('gdpr', 'article_17', 'learned_number')
    >>> v.match("the right to be forgotten").key
    'article_17'
    >>> v.match("recital 17") is None
    True
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sectio.retrieve.learned.numbers import (
    FAMILIES,
    KIND_WORDS,
    Number,
    key_number,
    learned_kinds,
    names,
    question_refs,
    title_number,
)
from sectio.retrieve.learned.versions import (
    question_versions,
    same_release,
    same_version,
    title_version,
)
from sectio.retrieve.resolve_section import substitute_names
from sectio.retrieve.text import Tokens, find_phrase, folded_tokens, tokens
from sectio.retrieve.words import code_words, finder_words, singular

#: A shared key is one at least this many documents have (and half of them).
SHARED_MIN_DOCS = 3
#: How the learned vocabulary chose a section (``details.section_resolution.via``).
Via = Literal["learned_number", "learned_title"]
_SPLIT = re.compile(r"\s+[-–—]\s+|[:;()\[\]\"“”‘’«»]|(?<!\w)'|'(?!\w)")
#: A cross-reference a legal title ends with ("List of criminal offences referred to in
#: Article 5(1)", "Information to be submitted as set out in Annex VIII"): the title
#: people say is the part before it.
_REFERENCE_TAIL = re.compile(
    r"\s+(?:as\s+)?(?:referred\s+to|mentioned|specified|listed|set\s+out|laid\s+down"
    r"|provided\s+for|described)\s+(?:in|by|under)\s+(?:the\s+)?(?:article|annex|section"
    r"|chapter|paragraph|point|part|schedule|title|regulation|directive|rule|clause)\b.*$",
    re.IGNORECASE,
)
#: A word that only numbers: digits, a Roman numeral of i, v and x, one letter.
_NUMBERING = re.compile(r"\d+|[ivx]+|[^\W\d_]")
#: A call's arguments in a title: brackets right after a name (``toBe(value)``).
_ARGUMENTS = re.compile(r"(?<=\w)\(([^()]*)\)")
#: Unit words a one-word title must stand next to ("the Pacing section").
UNIT_WORDS = frozenset(w for k in KIND_WORDS for w in k.split()) | {"chapter", "heading"}
_UNIT_WORDS = UNIT_WORDS
#: The most words before a unit word read as a title's part.
_CUE_WORDS = 6


@dataclass(frozen=True)
class LearnedSection:
    """One section of one document as the vocabulary read it."""

    doc_id: str
    key: str
    title: str
    number: Number | None
    phrases: tuple[str, ...]
    #: Words that say where the section is, not what is asked (its headings above it,
    #: its page's title): a question's words among them are not counted against a title.
    context: frozenset[str] = frozenset()
    #: The headings down to the section (a docs page's; empty: none recorded).
    path: tuple[str, ...] = ()


#: The words that say two titles are compared ("toEqual vs toStrictEqual", "the difference
#: between material scope and territorial scope"), not what is asked.
_COMPARING = ("vs", "versus", "compare", "comparing", "comparison", "difference", "differences")


@dataclass(frozen=True)
class LearnedMatch:
    """A section the vocabulary found: the document (None: a shared key, no document named)."""

    doc_id: str | None
    key: str
    via: Via
    phrase: str
    #: A second section of the same document the question names beside it by title
    #: ("toEqual vs toStrictEqual"), answered whole after it (None: none).
    also: LearnedMatch | None = None


@dataclass(frozen=True)
class _Phrase:
    text: str
    doc_id: str | None  # None: a shared key's phrase (every document that has the key)
    key: str
    exact: Tokens
    folded: Tokens

    @property
    def weight(self) -> int:
        return len(" ".join(self.exact))


@dataclass
class _Index:
    """Phrases by first token, longest first (exact and folded forms)."""

    exact: dict[str, list[_Phrase]] = field(default_factory=lambda: defaultdict(list))
    folded: dict[str, list[_Phrase]] = field(default_factory=lambda: defaultdict(list))

    def add(self, phrase: _Phrase) -> None:
        self.exact[phrase.exact[0]].append(phrase)
        self.folded[phrase.folded[0]].append(phrase)

    def hits(
        self,
        words: Tokens,
        *,
        folded: bool,
        units: Collection[str] = _UNIT_WORDS,
        identifiers: Collection[str] = (),
        placed: Callable[[_Phrase], bool] = lambda _p: False,
    ) -> list[tuple[_Phrase, int]]:
        """Every phrase occurrence in ``words`` (a one-word title only beside a unit word,
        written as an identifier: ``identifiers``, or where ``placed`` says so)."""
        table = self.folded if folded else self.exact
        out = []
        for i, word in enumerate(words):
            for p in table.get(word, ()):
                needle = p.folded if folded else p.exact
                if words[i : i + len(needle)] == needle and (
                    p.doc_id is None or _stands(needle, words, i, units, identifiers) or placed(p)
                ):
                    out.append((p, i))
        return out


def _cue(words: Tokens, start: int, end: int, units: Collection[str] = _UNIT_WORDS) -> bool:
    """Whether a unit word stands right before or after ``words[start:end]`` ("the Pacing
    section"), one not followed by a number (that is a numbered reference)."""
    for j in (start - 1, end):
        if 0 <= j < len(words) and words[j] in units:
            after = words[j + 1] if j + 1 < len(words) else ""
            if not after[:1].isdigit():
                return True
    return False


#: What introduces examples of the thing just named ("custom verbs *like* MKCOL").
_EXAMPLE_MARKERS: tuple[Tokens, ...] = (("like",), ("such", "as"), ("e", "g"), ("for", "example"))
#: The most words of the examples after a marker.
_EXAMPLE_WORDS = 2


def _examples_end(words: Tokens, end: int) -> int:
    """Where the examples written right after a phrase ending at ``end`` stop ("custom
    verbs like MKCOL": the marker and up to :data:`_EXAMPLE_WORDS` words after it, the
    question's end at the latest); ``end`` when no marker follows the phrase.

    Example:
        >>> _examples_end(("use", "custom", "verbs", "like", "mkcol"), 3)
        5
        >>> _examples_end(("custom", "verbs", "for", "uploads"), 2)
        2
    """
    for marker in _EXAMPLE_MARKERS:
        if words[end : end + len(marker)] == marker:
            return min(len(words), end + len(marker) + _EXAMPLE_WORDS)
    return end


def _stands(
    needle: Tokens,
    words: Tokens,
    at: int,
    units: Collection[str] = _UNIT_WORDS,
    identifiers: Collection[str] = (),
) -> bool:
    """A one-word phrase counts only beside a unit word ("the Pacing section") or written
    as code ("What does toHaveBeenCalledWith check?": :func:`~sectio.retrieve.words.code_words`)."""
    return len(needle) > 1 or _cue(words, at, at + 1, units) or needle[0] in identifiers


#: Articles a title and a question write interchangeably ("Mount the sub-application",
#: "how do I mount a sub-application").
_ARTICLES = ("the", "a", "an")
#: What a question writes between a verb and its object where a gerund title writes nothing
#: ("How do I cancel my transit benefit?" for "Cancelling transit benefit").
_DETERMINERS = (*_ARTICLES, "my", "your", "our", "their")


def article_forms(
    exact: Tokens, folded: Tokens, units: Collection[str] = _UNIT_WORDS
) -> list[tuple[Tokens, Tokens]]:
    """A title's tokens as written, then with its first article inside the title (not its
    first or last word, nor a letter after a unit word: "Appendix A") written as each other
    article and left out: a question writes "mount a sub-application" for "Mount the
    sub-application".

    Example:
        >>> title = ("mount", "the", "app")
        >>> [" ".join(e) for e, _ in article_forms(title, title)]
        ['mount the app', 'mount a app', 'mount an app', 'mount app']
        >>> appendix = ("appendix", "a", "pseudocode")
        >>> len(article_forms(appendix, appendix))
        1
    """
    out = [(exact, folded)]
    if len(exact) != len(folded):
        return out
    at = next(
        (
            i
            for i in range(1, len(exact) - 1)
            if exact[i] in _ARTICLES and not (exact[i] == "a" and exact[i - 1] in units)
        ),
        None,
    )
    if at is None:
        return out
    for other in (*(a for a in _ARTICLES if a != exact[at]), None):
        put = (other,) if other else ()
        out.append((exact[:at] + put + exact[at + 1 :], folded[:at] + put + folded[at + 1 :]))
    return out


#: The least letters of a title's first word read as a gerund ("Using", not "Ring").
_GERUND_LETTERS = 5


def _bases(gerund: str) -> tuple[str, ...]:
    """The verb forms a gerund may come from: its stem, the stem with an "e", and the
    stem with a doubled last consonant made single ("using" -> "us", "use"; "running"
    -> "runn", "runne", "run"). Only one is a word the question writes; the others
    are phrases no question holds.

    Example:
        >>> _bases("using"), _bases("adding"), _bases("setting")
        (('us', 'use'), ('add', 'adde', 'ad'), ('sett', 'sette', 'set'))
    """
    stem = gerund[: -len("ing")]
    out = [stem, stem + "e"]
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiou":
        out.append(stem[:-1])
    return tuple(out)


def verb_forms(exact: Tokens, folded: Tokens) -> list[tuple[Tokens, Tokens]]:
    """A title that starts with a gerund ("Using TestClient", "Adding a middleware"), also
    as the verb a question writes, alone and before each article or possessive: "How do I
    use the TestClient?" writes "Using TestClient", "How do I cancel my transit benefit?"
    "Cancelling transit benefit". A title of one word, or one whose first word is no
    gerund, has no other form.

    Example:
        >>> title = ("using", "testclient")
        >>> [" ".join(e) for e, _ in verb_forms(title, title)][:4]
        ['us testclient', 'us the testclient', 'us a testclient', 'us an testclient']
        >>> title = ("cancelling", "transit", "benefit")
        >>> forms = [" ".join(e) for e, _ in verb_forms(title, title)]
        >>> "cancel transit benefit" in forms, "cancel my transit benefit" in forms
        (True, True)
        >>> verb_forms(("ring", "buffers"), ("ring", "buffers"))
        []
    """
    first = exact[0] if exact else ""
    if len(exact) < 2 or len(first) < _GERUND_LETTERS or not first.endswith("ing"):
        return []
    if len(exact) != len(folded):
        return []
    rest, rest_folded = exact[1:], folded[1:]
    had = rest[0] in _ARTICLES
    out: list[tuple[Tokens, Tokens]] = []
    for base in _bases(first):
        for article in () if had else (None, *_DETERMINERS):
            put = (base, article) if article else (base,)
            out.append((put + rest, put + rest_folded))
        if had:
            out.append(((base, *rest), (base, *rest_folded)))
    return out


def title_phrases(rest: str, content: Callable[[str], bool]) -> tuple[str, ...]:
    """A title (its number cut), its parts between dashes, colons, brackets and quotes, and
    its part before a cross-reference it ends with ("... referred to in Article 5(1)"),
    each with a meaningful word (``content``); longest first, each once. A call's
    arguments are not a part: "value" of ``.toBe(value)`` names no section; nor is a
    part that only numbers ("(h)(iii)" of "... point (h)(iii)": "chapter III" named it).

    Example:
        >>> title_phrases(".toBeCloseTo(number, numDigits?)", lambda w: True)
        ('toBeCloseTo(number, numDigits?)', 'toBeCloseTo')
        >>> title_phrases("Article 17 (Right to erasure)", lambda w: True)
        ('Article 17 (Right to erasure)', 'Right to erasure', 'Article 17')
        >>> title_phrases("Offences in Article 5(1), point (h)(iii)", lambda w: True)
        ('Offences in Article 5(1), point (h)(iii)', 'Offences in Article 5', 'point')
        >>> title_phrases("List of offences referred to in Article 5(1)", lambda w: True)[-1]
        'List of offences'
    """
    head = _REFERENCE_TAIL.sub("", rest)
    parts = [rest.strip(" .")] + [p.strip(" .,") for p in _SPLIT.split(rest)]
    parts += [head.strip(" .,")] if head != rest else []
    arguments = {tokens(a) for a in _ARGUMENTS.findall(rest)}
    seen: dict[tuple[str, ...], str] = {}
    for part in parts:
        words = tokens(part)
        if all(_NUMBERING.fullmatch(w) for w in words):
            continue
        if any(content(w) for w in words) and words not in seen.keys() | arguments:
            seen[words] = part
    return tuple(sorted(seen.values(), key=lambda p: -len(" ".join(tokens(p)))))


class LearnedVocabulary:
    """Section numbers and title phrases of one tenant's documents (see the module doc)."""

    def __init__(
        self,
        sections: Sequence[LearnedSection],
        shared: Mapping[str, Sequence[str]],
        salient: Callable[[str], bool] = lambda _w: True,
        units: Collection[str] = _UNIT_WORDS,
        cue_extra: int | None = None,
    ):
        """``salient``: whether a question word says what it asks (a rare content word);
        a title phrase must cover most of them (:meth:`claims`). ``units``: the words
        that name a unit ("section", "article"; a docs tree adds "setting", "command"):
        a one-word title routes beside one. ``cue_extra``: the most salient words a
        question may hold beside a title a unit word stands next to (None: any; a docs
        tree says 0: "automated sync settings" asks about automation, not "sync")."""
        self.sections = tuple(sections)
        self._salient = salient
        self.units = frozenset(units)
        self.cue_extra = cue_extra
        self._context = {(s.doc_id, s.key): s.context for s in self.sections}
        #: Shared keys, each with its phrases (key words and titles).
        self.shared = {k: tuple(v) for k, v in shared.items()}
        self._numbers: dict[str, list[tuple[Number, str]]] = defaultdict(list)
        #: The kind words the titles taught ("play" of "Play 7 - ...": numbers.learned_kinds).
        self.kinds: frozenset[str] = frozenset(
            family
            for s in self.sections
            if s.number is not None and (family := s.number.family) and family not in FAMILIES
        )
        #: Each document's releases ``(version, key)``, once each, in section order.
        self._versions: dict[str, dict[tuple[str, str], None]] = defaultdict(dict)
        self._keys: dict[str, set[str]] = defaultdict(set)
        self._index = _Index()
        for s in self.sections:
            self._keys[s.doc_id].add(s.key)
            if s.number is not None:
                self._numbers[s.doc_id].append((s.number, s.key))
            if releases := _releases(s):  # only documents that print releases have an entry
                self._versions[s.doc_id].update(dict.fromkeys(releases))
            for text in s.phrases:
                exact, folded = tokens(text), folded_tokens(text)
                forms = article_forms(exact, folded, self.units) + verb_forms(exact, folded)
                for e, f in forms:
                    self._add(_Phrase(text, s.doc_id, s.key, e, f))
        for key, phrases in self.shared.items():
            for text in phrases:
                self._add(_Phrase(text, None, key, tokens(text), folded_tokens(text)))
        for table in (self._index.exact, self._index.folded):
            for plist in table.values():
                plist.sort(key=lambda p: -p.weight)

    def _add(self, phrase: _Phrase) -> None:
        if phrase.exact and phrase.folded:
            self._index.add(phrase)

    # --- building ---------------------------------------------------------------------
    @classmethod
    def from_payloads(
        cls,
        payloads: Iterable[Mapping[str, Any]],
        *,
        skip: Collection[str] = (),
        content: Callable[[str], bool] = lambda _w: True,
        salient: Callable[[str], bool] | None = None,
    ) -> LearnedVocabulary:
        """The vocabulary of these records (prose chunks; any order).

        Args:
            payloads: stored records (``doc_id``, ``section_key``, ``section_title``).
            skip: section keys left to the profile (it lists them).
            content: whether a word carries meaning (a title of stopwords routes nothing).
            salient: whether a question word says what it asks (default: ``content``).
        """
        titles: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        for p in payloads:
            doc_id, key = str(p.get("doc_id") or ""), str(p.get("section_key") or "")
            if not doc_id or not key or key in skip or (p.get("chunk_kind") or "prose") != "prose":
                continue
            titles[(doc_id, key)][str(p.get("section_title") or "").strip()] += 1
        usual = {dk: t.most_common(1)[0][0] for dk, t in titles.items()}  # each key's title
        kinds = learned_kinds(usual.values())
        read = {dk: _read_title(dk[1], title, kinds) for dk, title in usual.items()}
        shared = _shared_keys(read, content)
        sections = []
        for (doc_id, key), (title, number, rest) in read.items():
            phrases = () if key in shared else title_phrases(rest, content)
            sections.append(LearnedSection(doc_id, key, title, number, phrases))
        return cls(sections, shared, salient or content)

    # --- reading ----------------------------------------------------------------------
    def match(
        self,
        question: str,
        spans: Iterable[tuple[int, int]] = (),
        docs: Sequence[str] = (),
    ) -> LearnedMatch | None:
        """The section ``question`` names by number, else by title, or None.

        Args:
            question: the user's text.
            spans: token spans of the document names found in it (read as "it").
            docs: the documents it names (empty: any document may be the one).
        """
        return (
            self.by_number(question, docs)
            or self.by_version(question, docs)
            or self.by_title(question, spans, docs)
        )

    def by_number(self, question: str, docs: Sequence[str] = ()) -> LearnedMatch | None:
        """The first numbered reference that names one section (a sub-number read as its
        parent when the documents lack it)."""
        return next(self.by_numbers(question, docs), None)

    def by_numbers(self, question: str, docs: Sequence[str] = ()) -> Iterator[LearnedMatch]:
        """Each numbered reference that names one section, in question order (see
        :meth:`by_number`; "compare article 5 and article 6" names two)."""
        scope = list(docs) or list(self._numbers)
        for ref in question_refs(question, self.kinds):
            number: Number | None = ref.number
            while number is not None:
                found = [
                    (d, key)
                    for d in scope
                    for n, key in self._numbers.get(d, ())
                    if names(number, n)
                ]
                if len({d for d, _ in found}) == 1:
                    yield LearnedMatch(found[0][0], found[0][1], "learned_number", ref.text)
                    break
                if found:
                    break  # several documents have it: no guess
                number = number.parent()

    def by_version(self, question: str, docs: Sequence[str] = ()) -> LearnedMatch | None:
        """The changelog entry a version the question writes names
        (:mod:`sectio.retrieve.learned.versions`: "What changed in 0.141.0?", "zorbctl
        2.1"), read as a section's number (``via: learned_number``): the first version
        that one section of ``docs`` has, else, when those documents have none, one
        section of any document (the product's name, "FastAPI 0.141.0", names its docs,
        not the release notes). Where several documents print releases (a tree of
        several projects' changelogs, ``/usr/share/doc``), a document the question did
        not name is read only when its path names a word of the question, other than a
        changelog's file words (:func:`path_words`: "zorbctl 2.1" in
        ``zorbctl/changelog.Debian.gz``): "Does zorbctl run on Python 3.12?" is not the
        3.12 upload of whichever package has one. Among several candidates, the one that
        prints the version as the question writes it is read ("zorbctl 2.1": upstream's
        ``2.1`` in ``zorbctl/changelog.gz``, not Debian's ``2.1-1`` beside it); a
        release that several candidates print alike names nothing (never a guess).

        Example:
            >>> v = LearnedVocabulary.from_payloads([
            ...     {"doc_id": "notes", "section_key": "v2", "section_title": "2.1.0 (2024-05-01)"},
            ...     {"doc_id": "notes", "section_key": "v1", "section_title": "2.0.0 (2024-01-01)"},
            ... ])
            >>> v.match("what changed in v2.1?").key, v.match("is 2.1.1 out?")
            ('v2', None)
            >>> w = LearnedVocabulary.from_payloads([
            ...     {"doc_id": d, "section_key": "r", "section_title": t}
            ...     for d, t in (("zorbctl/changelog.Debian.gz", "zorbctl (2.1-1) unstable"),
            ...                  ("libquux2/changelog.Debian.gz", "libquux (2.1-1) sid"),
            ...                  ("libquux2/NEWS.Debian.gz", "libquux (3.12-1) sid"))
            ... ])
            >>> w.match("what changed in 2.1?"), w.match("what changed in zorbctl 2.1?").doc_id
            (None, 'zorbctl/changelog.Debian.gz')
            >>> w.match("Does zorbctl run on Python 3.12?")
            >>> u = LearnedVocabulary.from_payloads([
            ...     {"doc_id": "zorbctl/changelog.Debian.gz", "section_key": "deb",
            ...      "section_title": "zorbctl (2.1-1) unstable"},
            ...     {"doc_id": "zorbctl/changelog.gz", "section_key": "up",
            ...      "section_title": "Version 2.1"},
            ... ])
            >>> u.match("what changed in zorbctl 2.1?").key, u.match("zorbctl 2.1-1").key
            ('up', 'deb')
        """
        asked_words = set(tokens(question))
        anywhere = (list(self._versions), len(self._versions) > 1)
        scopes = ((list(docs), False), anywhere) if docs else (anywhere,)
        for asked in question_versions(question):
            for scope, unnamed in scopes:
                found = [
                    (d, key, version)
                    for d in scope
                    for version, key in self._versions.get(d, ())
                    if same_release(asked, version)
                ]
                found = _narrowed(found, asked, asked_words, unnamed)
                if len(found) == 1:
                    return LearnedMatch(found[0][0], found[0][1], "learned_number", asked)
                if found:
                    break  # several sections print it: no guess
        return None

    def by_title(
        self, question: str, spans: Iterable[tuple[int, int]] = (), docs: Sequence[str] = ()
    ) -> LearnedMatch | None:
        """The longest title phrase in ``question`` that names one section (see the module
        doc); with a second title of its document beside it, the first of the two in the
        question's order, the other as ``also`` (:meth:`_title_pair`)."""
        spans = sorted(set(spans))
        allowed = set(docs)
        code = code_words(question)
        for folded in (False, True):
            words = substitute_names(folded_tokens(question) if folded else tokens(question), spans)
            found = [
                (p, at)
                for p, at in self._index.hits(
                    words, folded=folded, units=self.units, identifiers=code
                )
                if self._usable(p, allowed)
            ]
            hits = [
                p
                for p, at in found
                if p.doc_id is None or self._claimed(question, words, p, at, folded)
            ]
            if hits:
                best = self._best(hits, allowed)
                if best is None or best.doc_id is None:
                    return best
                return self._title_pair(question, words, found, folded, best) or best
            pair = self._title_pair(question, words, found, folded)
            if pair is not None:
                return pair
        return self.by_cue(substitute_names(tokens(question), spans), allowed)

    def titled(self, question: str, docs: Sequence[str] = ()) -> frozenset[tuple[str, str]]:
        """The sections whose own title the question writes, whether or not it is what
        the question asks (:meth:`claims`), as ``(doc_id, key)``: a title of two words or
        more, one written as code, or one word beside a word of where it is (its page's
        title or the headings above it, their initials: "What problems can HSTS cause?"
        for "Problems" under "HTTP Strict Transport Security Cheat Sheet"), that exactly
        one section of ``docs`` (any document when empty) has, or one section and
        sections below it (the topmost: the ``coverageThreshold`` option above
        ``coverageThreshold.global.branches``).

        Example:
            >>> v = LearnedVocabulary.from_payloads([
            ...     {"doc_id": "m", "section_key": "codemods", "section_title": "jest-codemods"},
            ...     {"doc_id": "m", "section_key": "intro", "section_title": "Introduction"},
            ... ])
            >>> v.match("How do I use jest-codemods to migrate my Mocha tests?") is None
            True
            >>> sorted(v.titled("How do I use jest-codemods to migrate my Mocha tests?"))
            [('m', 'codemods')]
        """
        allowed = set(docs)
        words = tokens(question)
        out: set[tuple[str, str]] = set()
        asked = {singular(w) for w in words}
        hits = self._index.hits(
            words,
            folded=False,
            units=self.units,
            identifiers=code_words(question),
            placed=lambda p: self._placed(p, asked),
        )
        for p, _at in hits:
            if p.doc_id is None or not self._usable(p, allowed):
                continue
            owners = {
                (q.doc_id, q.key) for q in self._index.exact[p.exact[0]] if q.exact == p.exact
            }
            top = _topmost(owners)
            if top is not None:
                out.add(top)
        return frozenset(out)

    def _placed(self, p: _Phrase, asked: Collection[str]) -> bool:
        """Whether the question (``asked``: its words, singular) writes a word of where
        phrase ``p``'s section is (its context), other than the phrase's own words."""
        where = {singular(w) for w in self._context.get((p.doc_id or "", p.key), ())}
        return bool(where & set(asked) - {singular(w) for w in p.exact})

    def _claimed(
        self,
        question: str,
        words: Tokens,
        p: _Phrase,
        at: int,
        folded: bool,
        beside: Collection[str] = frozenset(),
    ) -> bool:
        """:meth:`claims` for phrase ``p`` found at ``at``; ``beside``: more words that say
        where, not what (the other title of a pair)."""
        context = self._context.get((p.doc_id or "", p.key), frozenset())
        phrase = p.folded if folded else p.exact
        return self.claims(question, words, phrase, at, context | frozenset(beside))

    def _places(
        self, found: list[tuple[_Phrase, int]], folded: bool
    ) -> list[tuple[int, _Phrase]] | None:
        """Each place's longest phrase of a document's section, in question order, a place
        inside an earlier place's words left out (None: a place whose phrase titles
        several sections: never a guess)."""
        at_place: dict[int, list[_Phrase]] = defaultdict(list)
        for p, at in found:
            if p.doc_id is not None:
                at_place[at].append(p)
        places: list[tuple[int, _Phrase]] = []
        end = 0
        for at in sorted(at_place):
            if at < end:
                continue
            top = max(p.weight for p in at_place[at])
            best = [p for p in at_place[at] if p.weight == top]
            if len({(p.doc_id, p.key) for p in best}) != 1:
                return None
            places.append((at, best[0]))
            end = at + len(best[0].folded if folded else best[0].exact)
        return places

    def _as_pair(
        self,
        question: str,
        words: Tokens,
        places: list[tuple[int, _Phrase]],
        first: tuple[str | None, str],
        folded: bool,
    ) -> LearnedMatch | None:
        """Section ``first`` (a document and a key) and the one other section of its
        document at ``places`` (neither above the other), in question order, when each
        claims the question with the other's words (and "vs") set aside as context; None
        when there is no such other section, or several."""
        doc_id, key = first
        mine = [(at, p) for at, p in places if (p.doc_id, p.key) == first]
        others = [
            (at, p)
            for at, p in places
            if p.doc_id == doc_id
            and p.key != key
            and not p.key.startswith(key + "/")
            and not key.startswith(p.key + "/")
        ]
        if not mine or len({p.key for _, p in others}) != 1:
            return None
        (at1, p1), (at2, p2) = sorted([mine[0], others[0]], key=lambda x: x[0])
        words1 = (p1.folded if folded else p1.exact) + _COMPARING
        words2 = (p2.folded if folded else p2.exact) + _COMPARING
        if not (
            self._claimed(question, words, p1, at1, folded, words2)
            and self._claimed(question, words, p2, at2, folded, words1)
        ):
            return None
        second = LearnedMatch(p2.doc_id, p2.key, "learned_title", p2.text)
        return LearnedMatch(p1.doc_id, p1.key, "learned_title", p1.text, also=second)

    def _title_pair(
        self,
        question: str,
        words: Tokens,
        found: list[tuple[_Phrase, int]],
        folded: bool,
        best: LearnedMatch | None = None,
    ) -> LearnedMatch | None:
        """Two titles of one document's sections the question names together, the first in
        question order, the second as its ``also`` ("toEqual vs toStrictEqual: when should
        I use which?", where neither alone is what it asks; "AI literacy and Prohibited AI
        practices", beside ``best``, the one that is). A place whose phrase titles several
        sections names no pair (never a guess); with no ``best``, neither does a third
        section; beside ``best``, only its document's sections that are neither above nor
        below it count, and exactly one of them must be there."""
        places = self._places(found, folded)
        if not places:
            return None
        if best is not None:
            return self._as_pair(question, words, places, (best.doc_id, best.key), folded)
        sections = {(p.doc_id, p.key) for _, p in places}
        if len(sections) != 2 or len({d for d, _ in sections}) != 1:
            return None
        return self._as_pair(
            question, words, places, (places[0][1].doc_id, places[0][1].key), folded
        )

    def claims(
        self,
        question: str,
        words: Tokens,
        phrase: Tokens,
        at: int,
        context: Collection[str] = frozenset(),
    ) -> bool:
        """Whether a title found at ``at`` is what the question asks for, not a term it uses.

        Yes in quotes, or beside a unit word ("the Pacing section"; with ``cue_extra``
        set, when the question holds at most that many salient words more); else when the
        question's salient words outside it (and outside the names, the section's
        ``context``: the headings above it, in the singular or the plural, "cookies"
        under "SameSite Cookie Attribute"; the words that ask what a text says,
        "What does the GDPR *say* about ...": :func:`~sectio.retrieve.words.finder_words`,
        and the examples written right after it, "custom verbs *like MKCOL*")
        are at most a third as many as its own words.
        """
        end = at + len(phrase)
        if any(q in question for q in '"“”«'):
            return True
        cue = _cue(words, at, end, self.units)
        if cue and self.cue_extra is None:
            return True
        asking = finder_words(question)
        examples = range(end, _examples_end(words, end))
        where = {singular(w) for w in context}
        extra = [
            w
            for j, w in enumerate(words)
            if not at <= j < end
            and j not in examples
            and w not in self.units
            and w != "it"
            and singular(w) not in where
            and w not in asking
            and self._salient(w)
        ]
        if cue:
            return len(extra) <= (self.cue_extra or 0)
        return len(extra) <= (len(phrase) - 1) // 3

    @functools.cached_property
    def _titles(self) -> list[tuple[LearnedSection, Tokens, Tokens]]:
        """Each section with its title (its number cut) as tokens, as written and folded
        (read once, on the first question with a unit word: :meth:`by_cue`)."""
        return [
            (s, tokens(s.phrases[0]), folded_tokens(s.phrases[0])) if s.phrases else (s, (), ())
            for s in self.sections
        ]

    def by_cue(
        self, words: Tokens, allowed: set[str], *, folded: bool = False
    ) -> LearnedMatch | None:
        """A title part written before a unit word ("the Anti-Circumvention Law section"):
        the longest run of at least two words there, one of them salient, that one
        section's title holds ("What is the page catalog?" names no section whose title
        holds "is the")."""
        for j, word in enumerate(words):
            if word not in self.units or (j + 1 < len(words) and words[j + 1][:1].isdigit()):
                continue
            for n in range(min(j, _CUE_WORDS), 1, -1):
                run = words[j - n : j]
                if "it" in run or not any(self._salient(w) for w in run):
                    continue
                found = {
                    (s.doc_id, s.key)
                    for s, exact, bent in self._titles
                    if (not allowed or s.doc_id in allowed)
                    and find_phrase(bent if folded else exact, run)
                }
                if len(found) == 1:
                    ((doc_id, key),) = found
                    return LearnedMatch(doc_id, key, "learned_title", " ".join(run))
                if found:
                    break
        return None

    def _usable(self, p: _Phrase, allowed: set[str]) -> bool:
        if not allowed:
            return True
        if p.doc_id is None:
            return any(p.key in self._keys[d] for d in allowed)
        return p.doc_id in allowed

    def _best(self, hits: list[_Phrase], allowed: set[str]) -> LearnedMatch | None:
        """The longest phrase's section; a section found beside one it lies under (its key
        below the other's: ``a/b`` under ``a``) wins over it ("package-mode in the
        tool.poetry section")."""
        keys = {(p.doc_id, p.key) for p in hits}
        hits = [
            p for p in hits if not any(d == p.doc_id and k.startswith(p.key + "/") for d, k in keys)
        ]
        top = max(p.weight for p in hits)
        best = [p for p in hits if p.weight == top]
        pairs = {(p.doc_id, p.key) for p in best}
        if len(pairs) != 1:
            return None  # the same words title sections of several documents
        doc_id, key = next(iter(pairs))
        if doc_id is None and len(allowed) == 1:
            doc_id = next(iter(allowed))
        return LearnedMatch(doc_id, key, "learned_title", best[0].text)

    # --- reporting --------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """What was learned: shared keys with their phrase counts, numbered and titled sections."""
        per_doc: dict[str, dict[str, int]] = defaultdict(lambda: {"numbered": 0, "phrases": 0})
        for s in self.sections:
            per_doc[s.doc_id]["numbered"] += s.number is not None
            per_doc[s.doc_id]["phrases"] += len(s.phrases)
        return {
            "documents": len(per_doc),
            "sections": len(self.sections),
            "numbered_sections": sum(s.number is not None for s in self.sections),
            "numbered_units": sorted(self.kinds),
            "releases": self.releases,
            "title_phrases": sum(len(s.phrases) for s in self.sections),
            "shared_sections": [
                {"section_key": k, "phrases": list(v)} for k, v in self.shared.items()
            ],
            "per_document": dict(sorted(per_doc.items())),
        }

    @property
    def releases(self) -> int:
        """How many releases the changelogs' headings name (:meth:`by_version`)."""
        return sum(len(v) for v in self._versions.values())

    def __len__(self) -> int:
        return len(self.sections)


def _narrowed(
    found: list[tuple[str, str, str]], asked: str, words: Collection[str], unnamed: bool
) -> list[tuple[str, str, str]]:
    """The releases ``(doc_id, key, version)`` the question may mean among ``found``: with
    ``unnamed`` (documents it did not name) or several documents, those whose path names
    one of its ``words``; then, of several, those printing ``asked`` as it is written."""
    if unnamed or len({d for d, _, _ in found}) > 1:  # the project the question names
        found = [f for f in found if path_words(f[0]) & set(words)]
    if len(found) > 1:  # "2.1": the upstream changelog's 2.1, not Debian's 2.1-1
        found = [f for f in found if same_version(asked, f[2])] or found
    return found


#: The words a changelog's path holds whatever its project (its file's and folders' names).
CHANGELOG_PATH_WORDS = frozenset(
    {
        *("changelog", "changelogs", "changes", "change", "history", "news", "whatsnew"),
        *("release", "releases", "notes", "readme", "debian", "upgrading", "log"),
        *("doc", "docs", "md", "markdown", "rst", "txt", "gz"),
    }
)


def path_words(doc_id: str) -> frozenset[str]:
    """The words of a document's path that may name its project (folders and file name,
    :data:`CHANGELOG_PATH_WORDS` left out).

    Example:
        >>> sorted(path_words("zorbctl/changelog.Debian.gz")), sorted(path_words("CHANGES.rst"))
        (['zorbctl'], [])
    """
    return frozenset(tokens(re.sub(r"[/._\-]+", " ", doc_id))) - CHANGELOG_PATH_WORDS


def _releases(section: LearnedSection) -> list[tuple[str, str]]:
    """The releases ``section`` is or is under, each with its section key: its own title's
    version, and a heading above it that is a version (FastAPI's ``0.141.0 (2026-07-29)``
    holds only ``Features`` and ``Docs``: no text of its own, so no learned section of
    its own), read where the key names one part per heading of the path
    (``release-notes/0-141-0-2026-07-29/features``).

    Example:
        >>> s = LearnedSection("r.md", "notes/0-2-0/fixes", "Fixes", None, (), frozenset(),
        ...                    ("Notes", "0.2.0 (2024-01-02)", "Fixes"))
        >>> _releases(s)
        [('0.2.0', 'notes/0-2-0')]
    """
    out = []
    own = title_version(section.title)
    if own is not None:
        out.append((own, section.key))
    parts = section.key.split("/")
    if len(parts) == len(section.path):
        for depth, heading in enumerate(section.path[:-1]):
            version = title_version(heading)
            if version is not None:
                out.append((version, "/".join(parts[: depth + 1])))
    return out


def _topmost(owners: Collection[tuple[str | None, str]]) -> tuple[str, str] | None:
    """The one section of ``owners`` (``(doc_id, key)``) the others are below, in one
    document (None: sections of several documents, side by side, or a shared key).

    Example:
        >>> _topmost({("d", "a"), ("d", "a/b")}), _topmost({("d", "a"), ("d", "c")})
        (('d', 'a'), None)
    """
    docs = {d for d, _ in owners}
    if len(docs) != 1 or None in docs:
        return None
    (doc_id,) = docs
    top = min((k for _, k in owners), key=len)
    if all(k == top or k.startswith(f"{top}/") for _, k in owners):
        return str(doc_id), top
    return None


def _read_title(
    key: str, title: str, kinds: frozenset[str] = frozenset()
) -> tuple[str, Number | None, str]:
    """A section's title, its number (from the title, else the key) and the title without it
    (``kinds``: the kind words the collection's titles taught)."""
    found = title_number(title, kinds) if title else None
    if found is not None:
        return title, found[0], found[1]
    return title, key_number(key), title


def _shared_keys(
    read: Mapping[tuple[str, str], tuple[str, Number | None, str]],
    content: Callable[[str], bool],
) -> dict[str, tuple[str, ...]]:
    """Keys without a number most documents have, each with its words and titles as phrases."""
    docs = {d for d, _ in read}
    holders: dict[str, list[str]] = defaultdict(list)
    for (_doc, key), (_title, number, rest) in read.items():
        if number is None:
            holders[key].append(rest)
    out: dict[str, tuple[str, ...]] = {}
    for key, rests in holders.items():
        if len(rests) >= max(SHARED_MIN_DOCS, (len(docs) + 1) // 2):
            texts = [key.replace("_", " "), *sorted(set(rests))]
            phrases = [t for t in texts if any(content(w) for w in tokens(t))]
            out[key] = tuple(dict.fromkeys(phrases))
    return out
