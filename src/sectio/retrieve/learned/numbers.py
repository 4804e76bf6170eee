"""Numbered references: the number a section's title carries, and the ones a question writes.

A section title carries its number in the forms documents print it:
"4.2. Increasing Flow Control Limits", "Article 17 - Right to erasure",
"Appendix A. Pseudocode", "A.1. Sample Decoding", "Điều 8. Điều kiện kết
hôn", "Chapter III", "Recital 26"; the section key does when the title does
not (``article_17``, ``dieu_8``, ``s4.2``). A question writes one as people
do: "article 17", "art. 17", "Art 17(3)", "§ 17", "§19.3", "section 4.2",
"sec. 21.4", "chapter III", "annex II", "recital 26", "clause 7.1", "rule 12",
"Điều 31", "appendix B.8".

A collection may number its own units: a word that opens two titles or more
followed by a whole number ("Play 3 - Observe and learn", "Play 7 - Learn how to
delegate", "RFC 003 - ...", "Step 2: ...") is a *kind word learned* from those
titles (:func:`learned_kinds`), its own family: "play 7", "RFC 4" name those
sections, as "article 17" does a regulation's.

Both sides are read into a :class:`Number`: a *family* (``article`` for
article, section, clause, rule, paragraph and §, which corpora use for the
same numbered unit; ``recital``, ``chapter``, ``annex`` for annex, appendix
and schedule, ``part``) and the number, lower-cased, Roman numerals of
chapters and parts read as integers ("III" = "3"). A title that prints a bare
number ("4.2.") has no family: any reference but a recital's may name it.

Example:
    >>> title_number("Article 17 - Right to erasure ('right to be forgotten')")
    (Number(family='article', value='17'), "Right to erasure ('right to be forgotten')")
    >>> title_number("4.2. Increasing Flow Control Limits")
    (Number(family=None, value='4.2'), 'Increasing Flow Control Limits')
    >>> [r.number for r in question_refs("What does Art 17(3) say? And § 6?")]
    [Number(family='article', value='17'), Number(family='article', value='6')]
    >>> question_refs("chapter III and annex ii")[1].number
    Number(family='annex', value='ii')
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass

#: The words (casefolded) that name a numbered unit, each with its family.
KIND_WORDS: dict[str, str] = {
    **dict.fromkeys(
        ("article", "articles", "art", "arts", "artikel", "điều", "dieu", "§", "§§"), "article"
    ),
    **dict.fromkeys(
        ("section", "sections", "sec", "sect", "clause", "clauses", "paragraph", "para"), "article"
    ),
    **dict.fromkeys(("rule", "rules", "item", "mục"), "article"),
    **dict.fromkeys(("recital", "recitals"), "recital"),
    **dict.fromkeys(("chapter", "chapters", "chap", "ch", "chương", "chuong"), "chapter"),
    **dict.fromkeys(("annex", "annexes", "appendix", "appendices", "app", "schedule"), "annex"),
    **dict.fromkeys(("phụ lục", "phu luc"), "annex"),
    **dict.fromkeys(("part", "parts", "phần"), "part"),
}
#: The families the kind words above name (a learned kind word is a family of its own).
FAMILIES = frozenset(KIND_WORDS.values())
#: Kind words that, right after a chapter or part, name a unit inside it.
SUBSECTION_WORDS = frozenset({"section", "sections", "sec", "sect", "§"})
#: Families whose numbers may be Roman numerals or letters ("chapter III", "annex B").
LETTERED = frozenset({"chapter", "annex", "part"})
#: Families whose Roman numerals read as integers (an annex "C" stays a letter).
ROMAN_FAMILIES = frozenset({"chapter", "part"})

_KINDS = "|".join(sorted((re.escape(k) for k in KIND_WORDS), key=len, reverse=True))
_NUM = r"(?:\d+|[ivxlcdm]+|[a-z])(?:\.(?:\d+|[a-z]))*"
#: A reference in a (casefolded) question: kind word, optional "." / "no.", the number.
_REF = re.compile(
    rf"(?<![\w§])(?P<kind>{_KINDS})(?:\.|\s)*(?:no\.?\s*|nr\.?\s*)?(?P<num>{_NUM})(?![\w]|\.\d)",
    re.UNICODE,
)
#: A number at the start of a title, with or without its kind word.
_TITLE = re.compile(
    rf"^\s*(?:(?P<kind>{_KINDS})\.?\s*)?(?P<num>\d+(?:\.\d+)*|[A-Z](?:\.\d+)+|[IVXLCDM]+|[A-Z])"
    r"(?P<sep>\s*[.:)\-–—]\s*|\s+|$)(?P<rest>.*)$",
    re.UNICODE | re.IGNORECASE | re.DOTALL,
)
#: A title opening with a word and a whole number, then a separator or the title's end
#: ("Play 7 - Learn how to delegate", "RFC 004 - Hiring", "Step 2: Install", "Week 3").
_LEARNED_TITLE = re.compile(
    r"^\s*(?P<kind>[^\W\d_]{2,20})\s+(?P<num>\d{1,4})(?P<sep>\s*[.:)\-–—]\s+|\s*$)(?P<rest>.*)$",
    re.UNICODE | re.DOTALL,
)
#: The fewest titles (each with a number of its own) that make a word a kind word.
LEARNED_KIND_MIN = 2
#: A number at the end of a section key: ``article_17``, ``dieu_8``, ``s4.2``, ``sA.1``.
_KEY = re.compile(r"^(?P<kind>[^\W\d_]*?)[_\-.]?(?P<num>\d+(?:[._]\d+)*|[A-Z](?:\.\d+)*)$")
_ROMAN = re.compile(r"^m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


@dataclass(frozen=True)
class Number:
    """A section number: its family (None: printed bare) and its value, normalized."""

    family: str | None
    value: str

    def parent(self) -> Number | None:
        """The enclosing number ("5.2" -> "5"), or None at the top."""
        if "." not in self.value:
            return None
        return Number(self.family, self.value.rsplit(".", 1)[0])


@dataclass(frozen=True)
class Ref:
    """A numbered reference in a question: what it names and where (character offsets)."""

    number: Number
    text: str
    start: int
    end: int


def roman_value(text: str) -> int | None:
    """The integer a Roman numeral writes ("xiv" -> 14), or None when it is none."""
    t = text.lower()
    if not t or not _ROMAN.match(t):
        return None
    total = 0
    for i, ch in enumerate(t):
        v = _ROMAN_VALUES[ch]
        total += -v if i + 1 < len(t) and _ROMAN_VALUES[t[i + 1]] > v else v
    return total


def normalized(family: str | None, value: str) -> Number:
    """``value`` lower-cased, a Roman numeral of a chapter or part read as an integer."""
    v = value.lower().strip(".")
    if family in ROMAN_FAMILIES and not v.isdigit():
        roman = roman_value(v)
        if roman is not None:
            v = str(roman)
    return Number(family, v)


def _kind(word: str) -> str | None:
    return KIND_WORDS.get(unicodedata.normalize("NFC", word).casefold().rstrip("."))


def learned_kinds(titles: Iterable[str]) -> frozenset[str]:
    """The words (casefolded) that open :data:`LEARNED_KIND_MIN` titles or more followed by
    a whole number, each title with a number of its own, and a separator or nothing after
    it (see the module doc); the kind words every corpus has are not among them.

    Example:
        >>> sorted(learned_kinds(["Play 3 - Observe", "Play 7 - Delegate", "RFC 003 - Advisor",
        ...                       "RFC 004 - Hiring", "Python 3 support", "Article 2 - Scope"]))
        ['play', 'rfc']
    """
    numbers: dict[str, set[int]] = {}
    for title in titles:
        m = _LEARNED_TITLE.match(title)
        if m is not None and _kind(m["kind"]) is None:
            numbers.setdefault(m["kind"].casefold(), set()).add(int(m["num"]))
    return frozenset(k for k, nums in numbers.items() if len(nums) >= LEARNED_KIND_MIN)


def title_number(title: str, kinds: Collection[str] = ()) -> tuple[Number, str] | None:
    """The number a title starts with and the title without it, or None.

    A bare number needs a separator after it ("4.2. X", "6 X") and a bare
    letter or Roman numeral a full stop ("A. Pseudocode"), so a title that
    merely begins with a word is not read as numbered. ``kinds``: the kind words the
    collection's titles taught (:func:`learned_kinds`; "Play 7 - Delegate" is play 7).

    Example:
        >>> title_number("Play 7 - Learn how to delegate", {"play"})
        (Number(family='play', value='7'), 'Learn how to delegate')
        >>> title_number("Play 7 - Learn how to delegate") is None
        True
    """
    m = _TITLE.match(title)
    if m is None:
        return _learned_title(title, kinds) if kinds else None
    family = _kind(m["kind"]) if m["kind"] else None
    num, sep = m["num"], m["sep"]
    if not num[0].isdigit() and "." not in num:
        if family is None and not sep.strip().startswith("."):
            return None
        if family is not None and family not in LETTERED:
            return None
    if family is None and not num[0].isdigit() and not num[0].isupper():
        return None
    if family is None and not sep.strip() and not m["rest"]:
        return None
    return normalized(family, num), m["rest"].strip()


def _learned_title(title: str, kinds: Collection[str]) -> tuple[Number, str] | None:
    """A title opening with one of ``kinds`` and a whole number (leading zeros dropped:
    "RFC 004" is rfc 4), or None."""
    m = _LEARNED_TITLE.match(title)
    if m is None or m["kind"].casefold() not in kinds:
        return None
    return Number(m["kind"].casefold(), str(int(m["num"]))), m["rest"].strip()


def key_number(key: str) -> Number | None:
    """The number at the end of a section key (``article_17``, ``dieu_8``, ``s4.2``), or None."""
    m = _KEY.match(key)
    if m is None:
        return None
    family = _kind(m["kind"]) if m["kind"] else None
    return normalized(family, m["num"].replace("_", "."))


def question_refs(question: str, kinds: Collection[str] = ()) -> list[Ref]:
    """Every numbered reference ``question`` writes, in order (see the module doc);
    ``kinds``: the kind words a collection's titles taught ("play 7", "RFC 4", "rfc #004").

    Letters and Roman numerals count only after a chapter, annex or part word,
    or when a letter has sub-numbers ("appendix B.8", "section A.1"). A section
    written right after a chapter or part ("chapter III section 2") is a unit of
    that chapter, not the corpus's section 2: it is no reference of its own.

    Example:
        >>> [r.number.family for r in question_refs("chapter III section 2 of the act")]
        ['chapter']
        >>> [r.number.family for r in question_refs("chapter III and section 2")]
        ['chapter', 'article']
        >>> [r.text for r in question_refs("Chi phí cho người; chapter ii; art17")]
        ['chapter ii', 'art17']
    """
    text = unicodedata.normalize("NFC", question).casefold()
    out: list[Ref] = []
    for m in _REF.finditer(text):
        family = KIND_WORDS[m["kind"]]
        num = m["num"]
        if not num[0].isdigit() and family not in LETTERED and "." not in num:
            continue
        if not num[0].isdigit() and family not in LETTERED and not num.split(".")[1].isdigit():
            continue
        if not num[0].isdigit() and not text[m.end("kind") : m.start("num")]:
            continue  # a letter glued to a kind word is a word: "chi", "cho", "apps"
        if out and _within(out[-1], m, text):
            continue
        out.append(Ref(normalized(family, num), m.group(0), m.start(), m.end()))
    if kinds:
        out.extend(
            Ref(Number(m["kind"], str(int(m["num"]))), m.group(0), m.start(), m.end())
            for m in _learned_refs(frozenset(kinds)).finditer(text)
        )
        out.sort(key=lambda r: r.start)
    return out


@functools.lru_cache(maxsize=64)
def _learned_refs(kinds: frozenset[str]) -> re.Pattern[str]:
    """The references a (casefolded) question writes with one of ``kinds`` and a whole
    number ("play 7", "rfc 004", "rfc #4", "play no. 3"), compiled once per vocabulary's
    kinds (every question of a collection asks with the same)."""
    words = "|".join(sorted((re.escape(k) for k in kinds), key=len, reverse=True))
    return re.compile(
        rf"(?<![\w§])(?P<kind>{words})(?:\.|\s)*(?:#\s*|no\.?\s*)?"
        r"(?P<num>\d{1,4})(?![\w]|\.\d)"
    )


def _within(previous: Ref, m: re.Match[str], text: str) -> bool:
    """Whether the reference ``m`` is a section of the chapter or part written right before
    it ("chapter III section 2", "Part 2, Section 4"): a unit of that chapter, not the
    corpus's article or section of that number."""
    return (
        previous.number.family in ("chapter", "part")
        and m["kind"] in SUBSECTION_WORDS
        and not text[previous.end : m.start()].strip(" ,")
    )


def names(ref: Number, section: Number) -> bool:
    """Whether a question's reference names a section of that number.

    Same value, and the families agree: the same family, or the section's
    number printed bare (any family but ``recital`` and the learned ones names it: "RFC 4"
    is no page's fourth step).

    Example:
        >>> bare = Number(None, "4")
        >>> names(Number("article", "4"), bare), names(Number("rfc", "4"), bare)
        (True, False)
    """
    if ref.value != section.value:
        return False
    if section.family is None:
        return ref.family != "recital" and ref.family in FAMILIES
    return ref.family == section.family
