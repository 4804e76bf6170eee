"""How a question's words read: possessives and contractions cut, capitals, common words.

Text normalisation for the answerability rules (and the resolver's "known
word" test): :func:`plain_words` cuts what would read as an unknown name,
:func:`capitalised_words` finds the words written with a capital, and
:func:`common_words` tells a word of the language from a name by the
embedding model's vocabulary.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from sectio.retrieve.text import tokens

_POSSESSIVE = re.compile(r"(\w)['\u2019]s\b")
_CONTRACTION = re.compile(r"\b\w+['\u2019](?:t|ve|ll|re|d|m)\b", re.IGNORECASE)
#: Contractions written without their apostrophe ("Ive", "dont"): informal spelling.
_BARE_CONTRACTION = re.compile(
    r"\b(?:ive|youve|weve|theyve|youre|theyre|dont|doesnt|didnt|cant|couldnt|wouldnt"
    r"|shouldnt|isnt|arent|wasnt|werent|wont|havent|hasnt|hadnt)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*")
#: What a question may open with before its first word: numbers and versions
#: ("1.3.0-rc4", "v3.5", "2)"), each followed by a space.
_OPENING_NUMBERS = re.compile(r"^(?:\s*[^\sA-Za-z]*[vV]?\d\S*\s+)+")


def plain_words(question: str) -> str:
    """``question`` with possessives cut to their noun ("Istio's" -> "Istio") and
    contractions ("can't", "I've", "Ive") left out, so neither reads as an unknown name.

    Example:
        >>> plain_words("Why can't Istio's proxy start? Ive tried")
        'Why  Istio proxy start?  tried'
    """
    return _BARE_CONTRACTION.sub("", _CONTRACTION.sub("", _POSSESSIVE.sub(r"\1", question)))


#: A file name or a dotted or underscored identifier as a question writes one ("hatch.toml",
#: ".npmrc", "Pipfile.lock", "PUSH_PROMISE", "installer.max-workers"); not "e.g." nor "v1.2".
_IDENTIFIER = re.compile(
    r"(?<![\w.])\.[A-Za-z][A-Za-z0-9]+(?![\w.])"
    r"|(?<![\w.])[A-Za-z][A-Za-z0-9-]*(?:[._][A-Za-z][A-Za-z0-9-]*)+"
)


def identifier_words(question: str) -> frozenset[str]:
    """The words (lowercased, two letters or more) of the file names and dotted or
    underscored identifiers written in ``question``: a common word written inside one
    ("hatch" in "hatch.toml") is part of a name, not the word of the language.

    Example:
        >>> sorted(identifier_words("Configure hatch.toml, .npmrc and PUSH_PROMISE, e.g. v1.2"))
        ['hatch', 'npmrc', 'promise', 'push', 'toml']
    """
    return frozenset(
        part
        for match in _IDENTIFIER.findall(question)
        for part in re.split(r"[._-]", match.lower())
        if len(part) >= 2
    )


#: A word written as code: inner capitals (``toHaveBeenCalledWith``, ``beforeAll``), or
#: called (``spyOn()``), or in backticks.
_CODE_WORD = re.compile(r"`([^`\s]+)`|\b([a-z]+[A-Z]\w*|[A-Za-z_]\w*(?=\(\)))")


def code_words(question: str) -> frozenset[str]:
    """The question's one-token words written as code (see :data:`_CODE_WORD`), normalized:
    a one-word heading such a word names stands on its own (a call's name: ``toBe`` of
    ``.toBe(value)``).

    Example:
        >>> sorted(code_words("Is toBe like `isEqual`, or spyOn() or Sync?"))
        ['isequal', 'spyon', 'tobe']
    """
    out = set()
    for m in _CODE_WORD.finditer(question):
        words = tokens(m.group(1) or m.group(2))
        if len(words) == 1:
            out.add(words[0])
    return frozenset(out)


def singular(word: str) -> str:
    """A light plural fold, the same on both sides of a comparison ("cookies" -> "cookie",
    "headers" -> "header"; not "class", "status", "analysis", nor a word of three letters).

    Example:
        >>> [singular(w) for w in ("cookies", "class", "status", "analysis", "gas", "tests")]
        ['cookie', 'class', 'status', 'analysis', 'gas', 'test']
    """
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def capitalised_words(question: str) -> list[str]:
    """The words written with a capital inside the question (not its first word), lowercased.

    The first word is the first one the question writes after any number or version it
    opens with ("1.3.0-rc4 Unable to provide ...": "Unable" opens it). A hyphenated
    compound gives its parts written with a capital, as the question's terms split it
    ("Envoy-based" -> "envoy", "non-Istio" -> "istio"). A word of the language written
    in capitals by custom (:data:`WORDS_IN_CAPITALS`: "OK", "ID", "US") is not a name.

    Example:
        >>> capitalised_words("What is Istio? How does Envoy-based non-Flux work")
        ['istio', 'how', 'envoy', 'flux']
        >>> capitalised_words("Is it OK to put the session ID in a URL with Go?")
        ['url', 'go']
        >>> capitalised_words("v3.5 Unable to sync with Flux")
        ['flux']
    """
    words = _WORD.findall(_OPENING_NUMBERS.sub("", plain_words(question)))[1:]
    return [
        p.lower()
        for w in words
        for p in w.split("-")
        if p[:1].isupper() and not (p.isupper() and p.lower() in WORDS_IN_CAPITALS)
    ]


def acronym_words(question: str) -> frozenset[str]:
    """The words written all in capitals (two letters or more), lowercased: "DNS", "TCP",
    "MKCOL", the parts of "TLS/SSL"; not "A/B" nor a capitalised name ("Istio").

    Example:
        >>> sorted(acronym_words("Does Istio reuse the TCP connection over TLS/SSL for A/B?"))
        ['ssl', 'tcp', 'tls']
    """
    words = _WORD.findall(plain_words(question))
    return frozenset(p.lower() for w in words for p in w.split("-") if len(p) >= 2 and p.isupper())


def name_words(question: str) -> frozenset[str]:
    """The words ``question`` writes as part of a name, whatever the language uses them
    for: those of file names and identifiers (:func:`identifier_words`), those written
    all in capitals (:func:`acronym_words`: "MIT" of "the MIT license"; not the words of
    the language written so by custom, :data:`WORDS_IN_CAPITALS`) and those written with
    a capital inside the question (:func:`capitalised_words`: "Artistic" of "the
    Artistic License"), unless the question writes most of its words in capitals (then
    capitals say nothing).

    Example:
        >>> sorted(name_words("Is it OK that the MIT license covers hatch.toml?"))
        ['hatch', 'mit', 'toml']
        >>> sorted(name_words("What does the Artistic License say?"))
        ['artistic', 'license']
        >>> sorted(name_words("DOES THE MIT LICENSE APPLY?"))
        []
    """
    words = _WORD.findall(plain_words(question))
    if sum(w.isupper() and len(w) >= 2 for w in words) * 2 > len(words):  # shouting
        return identifier_words(question)
    capitals = acronym_words(question) | frozenset(capitalised_words(question))
    return identifier_words(question) | (capitals - WORDS_IN_CAPITALS)


#: Words of the language written in capitals by custom, not as names ("Is it OK to pass the
#: session ID?"): they are neither a name the collection lacks nor another product.
WORDS_IN_CAPITALS = frozenset({"ok", "id", "us", "tv", "am", "pm"})


#: The words a question uses to ask *where* the docs say something ("Which page explains
#: v3.4 to v3.5?", "Where is X documented?", "What does the Templates page cover?"): they
#: name the docs, not the question's subject.
FINDER_WORDS = frozenset(
    [
        "page",
        "pages",
        "doc",
        "docs",
        "document",
        "documents",
        "documentation",
        "documented",
        "guide",
        "guides",
        "section",
        "sections",
        "article",
        "articles",
        "explain",
        "explains",
        "explained",
        "cover",
        "covers",
        "covered",
        "describe",
        "describes",
        "described",
        "mention",
        "mentions",
        "mentioned",
        "discuss",
        "discusses",
        "discussed",
        "say",
        "says",
        "said",
        "tell",
        "tells",
        "summarize",
        "summarise",
        "show",
        "overview",
    ]
)
_FINDER = re.compile(
    r"\b(?:which|what)\s+(?:page|doc|document|guide|section|article)s?\b"
    r"|\bwhere\b.*\b(?:documented|described|explained|covered|mentioned|discussed)\b"
    r"|\b(?:page|doc|docs|document|guide|section|article)s?\s+"
    r"(?:explain|cover|describe|document|mention|discuss)(?:s|es)?\b"
    r"|\bwhat\s+(?:does|do|did)\b.*\b(?:say|says|tell|tells|mention|mentions)\s+about\b"
    r"|^\W*(?:please\s+)?(?:(?:can|could|would)\s+you\s+)?(?:tell\s+me\s+about|explain|describe"
    r"|summari[sz]e|show\s+me|give\s+me\s+an\s+overview\s+of)\b",
    re.IGNORECASE,
)


def finder_words(question: str) -> frozenset[str]:
    """:data:`FINDER_WORDS` when ``question`` asks where the docs say something, else none:
    in "Which page explains v3.4 to v3.5?" the subject is the versions; "page" and
    "explains" are how the question asks for it. A question that merely uses such a word
    ("How do I cover a test?") keeps it.

    Example:
        >>> sorted(finder_words("Which page explains v3.4 to v3.5?"))[:3]
        ['article', 'articles', 'cover']
        >>> "page" in finder_words("What does the Templates page cover?")
        True
        >>> finder_words("How do I cover the page with tests?")
        frozenset()
        >>> "say" in finder_words("What does the GDPR say about erasure?")
        True
        >>> "tell" in finder_words("Please tell me about the right to erasure")
        True
    """
    return FINDER_WORDS if _FINDER.search(question) else frozenset()


#: Words a question asks with in any domain, verbs of saying, getting, going and meaning
#: and the quantifiers of "how many" ("what does refresh mean?", "do I have to tell users
#: I use a chatbot", "who gets a loan", "how many calls go into one batch"): they carry
#: no subject, so a collection that never writes them (a law writes "inform" and
#: "obtain"), or never beside the question's other words, says nothing about whether it
#: holds the question's subject
#: (:mod:`~sectio.retrieve.answerability.rules.absent`, ``unseen``).
ASKING_WORDS = frozenset({
    "say", "says", "said", "saying", "tell", "tells", "told", "telling", "talk", "talks",
    "talked", "talking", "get", "gets", "got", "getting", "want", "wants", "wanted",
    "wanting", "happen", "happens", "happened", "happening", "go", "goes", "went", "going",
    "ask", "asks", "asked", "asking", "many", "much", "several", "mean", "means", "meant",
    "meaning",
})  # fmt: skip


#: Endings of inflected and derived words ("meds", "thinners", "blurry", "blockers",
#: "addictive", "dispensed"): a common stem plus one of them is a common word, not a name.
INFLECTIONS = ("ing", "ers", "es", "ed", "ry", "ive", "ly", "ness", "ment", "s", "y", "d")
#: Endings of a verb's forms on one stem ("deplet": "deplete", "depleted", "depletion"); a
#: word is common when another form of its stem is a whole word of the vocabulary.
VERB_ENDINGS = ("ions", "ion", "ing", "ers", "er", "ed", "es", "e", "ive")
#: The shortest half of a compound of two common words ("heartburn", "bedtime").
COMPOUND_PART = 4


def other_endings(word: str, endings: Iterable[str], shortest: int) -> Iterator[str]:
    """``word``'s stem with each other ending of ``endings``: for each ending ``word``
    has after a stem of at least ``shortest`` letters, that stem and every other ending
    (the forms a word may take on one stem; whether one is a word, the caller reads).

    Example:
        >>> sorted(other_endings("depletion", ("ion", "ed", "e"), 4))
        ['deplete', 'depleted']
        >>> list(other_endings("ion", ("ion", "ed"), 4))
        []
    """
    ends = tuple(endings)
    for end in ends:
        stem = word[: -len(end)]
        if word.endswith(end) and len(stem) >= shortest:
            yield from (stem + other for other in ends if other != end)


def common_words(count_tokens: Callable[[str], int]) -> Callable[[str], bool]:
    """A ``common`` test for :func:`salient_terms` from the embedding model's tokenizer.

    A word is common when it is one whole word of the model's vocabulary,
    such a word of at least three letters plus one of :data:`INFLECTIONS`
    ("meds", "thinners", "blockers"), a form of a verb another form of which is
    whole (:data:`VERB_ENDINGS`: "depletion" of "depleted"), or two such words of at least
    :data:`COMPOUND_PART` letters written as one ("heartburn"; shorter parts
    would read "Prozac" as pro + zac). Brand names such as "Sudafed",
    "Lovenox" or "Cialis" keep a part the vocabulary does not hold, so they
    stay name-like.

    Example:
        >>> vocab = {"med", "thinner", "dose", "heart", "burn", "love", "no", "pro", "depleted"}
        >>> common = common_words(lambda w: 1 if w in vocab else 3)
        >>> words = ("dose", "meds", "thinners", "heartburn", "sudafed", "lovenox", "prozac")
        >>> [common(w) for w in words]
        [True, True, True, True, False, False, False]
        >>> common("depletion"), common("kustomization")
        (True, False)
    """

    def whole(word: str, shortest: int) -> bool:
        return len(word) >= shortest and count_tokens(word) <= 1

    def common(word: str) -> bool:
        if count_tokens(word) <= 1:
            return True
        stems = [word[: -len(end)] for end in INFLECTIONS if word.endswith(end)]
        if any(whole(stem, 3) for stem in stems):
            return True
        if any(whole(form, 5) for form in other_endings(word, VERB_ENDINGS, 4)):
            return True  # another form of the same verb is whole: "depletion" of "depleted"
        return any(
            whole(word[:i], COMPOUND_PART) and whole(word[i:], COMPOUND_PART)
            for i in range(COMPOUND_PART, len(word) - COMPOUND_PART + 1)
        )

    return common


#: Units a strength, dose or amount is written in ("40mg", "1gm", "5 ml", "500 iu").
UNITS = frozenset(
    {
        "mg",
        "mcg",
        "ug",
        "µg",
        "g",
        "gm",
        "gms",
        "gram",
        "grams",
        "kg",
        "ml",
        "l",
        "iu",
        "units",
        "unit",
        "meq",
        "mmol",
        "mol",
        "mg/ml",
        "mgs",
        "mcgs",
        "cc",
        "oz",
        "tsp",
        "tbsp",
        "drops",
        "puffs",
        "hr",
        "hrs",
        "h",
    }
)
#: Dosage forms and release tags: what a product is made as, never which product.
DOSAGE_FORMS = frozenset(
    {
        "tablet",
        "tablets",
        "tab",
        "tabs",
        "capsule",
        "capsules",
        "cap",
        "caps",
        "pill",
        "pills",
        "caplet",
        "caplets",
        "softgel",
        "softgels",
        "injection",
        "injections",
        "injectable",
        "shot",
        "shots",
        "syrup",
        "elixir",
        "suspension",
        "solution",
        "cream",
        "ointment",
        "gel",
        "lotion",
        "patch",
        "patches",
        "spray",
        "inhaler",
        "drops",
        "suppository",
        "suppositories",
        "powder",
        "lozenge",
        "er",
        "xr",
        "sr",
        "dr",
        "cr",
        "xl",
        "ir",
        "la",
        "od",
        "ec",
        "dispersible",
        "chewable",
    }
)
_AMOUNT = re.compile(r"\d+(?:[.,]\d+)?([a-zµ/%]*)")
#: A version part as :func:`~sectio.retrieve.text.tokens` cuts "v3.5", "1.3.0-rc4".
_VERSION = re.compile(r"v\d+|(?:rc|alpha|beta|pre|dev|post|patch)\d+|\d+x")


def quantity_word(word: str) -> bool:
    """Whether ``word`` (one normalized token) is a strength, dose, unit, version part or
    dosage form: words that never say *which* subject a question is about.

    Example:
        >>> words = ("40mg", "1gm", "mcg", "v3", "rc4", "2", "tablets", "xr", "ifit1", "beta")
        >>> [quantity_word(w) for w in words]
        [True, True, True, True, True, True, True, True, False, False]
    """
    if word in UNITS or word in DOSAGE_FORMS or _VERSION.fullmatch(word):
        return True
    amount = _AMOUNT.fullmatch(word)
    return amount is not None and (not amount.group(1) or amount.group(1) in UNITS)


#: Endings of verb and adjective forms ("dispensed", "addictive", "swallowing", "safely").
_VERB_FORM = re.compile(r"[a-z]{4,}(?:ed|ing|ive|ly|able|ible)")


def verb_form(word: str) -> bool:
    """Whether ``word`` reads as a verb or adjective form (a word written after a product's
    name that says what happens to it, not which product).

    Example:
        >>> [verb_form(w) for w in ("dispensed", "addictive", "swallowing", "clavulanic", "xr")]
        [True, True, True, False, False]
    """
    return _VERB_FORM.fullmatch(word) is not None
