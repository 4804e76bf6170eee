"""A definition question gets the passage that defines its term first.

Laws, licences and standards define their terms in one place ("'deployer' means a
natural or legal person ...", "\u201cLicensor\u201d shall mean ...", "Ack-eliciting
packet: A QUIC packet that ..."), while the term is used everywhere else: "what is a
deployer?" comes nearest the article of the deployers' obligations, which uses the word
ten times. When a question asks what a term is or means (:func:`defined_term`: "what is
a deployer?", "who is an importer?", "what does 'provider' mean?", "definition of
biometric data", "what counts as an AI system?"), the candidate chunk that defines it
(:func:`defines`: the term, maybe quoted, in the singular or the plural, then "means",
"shall mean", "is defined as" or "refers to"; the term in bold opening a list item; in a
glossary section, the term and a colon opening a line) comes first, taken from the
candidates behind it if it is there. Nothing else moves; a question that asks something
else, or candidates that define nothing, are untouched.
"""

from __future__ import annotations

import re

from sectio.contract.result import Evidence

_QUOTES = "'\"\u2018\u2019\u201c\u201d`"
#: The forms of a definition question; ``term`` is what it asks about.
_ASKS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"^\s*what\s+(?:is|are)\s+(?:meant\s+by\s+)?(?:an?\s+|the\s+)?(?P<term>.+?)\s*\??\s*$",
        r"^\s*what\s+(?:does|do)\s+(?:the\s+\w+\s+mean\s+by\s+)?(?:an?\s+|the\s+)?"
        r"(?P<term>.+?)\s+mean\s*\??\s*$",
        r"^\s*(?:the\s+)?(?:legal\s+)?(?:definition|meaning)\s+of\s+(?:an?\s+|the\s+)?"
        r"(?P<term>.+?)\s*\??\s*$",
        r"^\s*define\s+(?:an?\s+|the\s+)?(?P<term>.+?)\s*\??\s*$",
        r"^\s*(?:what|who)\s+(?:legally\s+)?counts\s+as\s+(?:an?\s+|the\s+)?(?P<term>.+?)\s*\??\s*$",
        r"^\s*how\s+(?:is|are)\s+(?:an?\s+|the\s+)?(?P<term>.+?)\s+defined\s*\??\s*$",
        r"^\s*who\s+(?:is|are)\s+(?:considered\s+)?(?:an?\s+|the\s+)?(?P<term>.+?)\s*\??\s*$",
    )
]
#: Where a term's text ends and the question's context begins ("a Contribution *in the
#: Apache license*", "convey *under the GPL*").
_CONTEXT = re.compile(
    r"\s+(?:in|under|according\s+to|for\s+the\s+purposes\s+of|within)\s+(?:the\s+|this\s+|an?\s+)?"
    r"[\w\-. ]+$",
    re.IGNORECASE,
)
#: The most words a defined term has ("the placing on the market" is four).
TERM_WORDS = 5


def defined_term(question: str) -> str | None:
    """The term a definition question asks about, quotes stripped, lowercased (None: the
    question asks something else, or the term is longer than :data:`TERM_WORDS` words).

    Example:
        >>> defined_term("what is a deployer?"), defined_term("What does 'provider' mean?")
        ('deployer', 'provider')
        >>> defined_term("definition of biometric data"), defined_term("how do I deploy?")
        ('biometric data', None)
        >>> defined_term("what legally counts as an 'AI system'?")
        'ai system'
        >>> defined_term("what is a Contribution in the Apache license?")
        'contribution'
        >>> defined_term("Who is a deployer under the AI Act?")
        'deployer'
    """
    for pattern in _ASKS:
        m = pattern.match(question)
        if m:
            term = _CONTEXT.sub("", m.group("term"))
            term = " ".join(term.strip(_QUOTES + " ").split()).lower()
            if len(term.split()) <= TERM_WORDS and re.fullmatch(r"\w[\w\- ]*", term):
                return term
            return None
    return None


#: Section titles of a glossary, where a term opening a line with a colon is defined
#: ("Terminology", "Definitions", "Terms and definitions", "Glossary").
_GLOSSARY = re.compile(r"\b(?:terminology|definitions?|glossary|terms)\b", re.IGNORECASE)


def _term_pattern(term: str) -> str:
    """A pattern of ``term``'s words in singular or plural, whichever the question wrote
    ("distributors" finds "distributor"; "notified body" finds "notified bodies")."""
    *head, last = re.split(r"[\s\-]+", term)
    if re.search(r"[^aeiou]ies$", last):
        last = last[:-3] + "y"
    elif re.search(r"[^su]s$", last) and len(last) > 3:
        last = last[:-1]
    if re.search(r"[^aeiou]y$", last):
        end = re.escape(last[:-1]) + "(?:y|ies)"
    else:
        end = re.escape(last) + "(?:s|es)?"
    return r"[\s\-]+".join([*(re.escape(w) for w in head), end])


def defines(text: str, term: str, section_title: str = "") -> bool:
    """Whether ``text`` defines ``term``: the term (any case, maybe in quotes, maybe in
    the plural) then "means", "shall mean", "is defined as", "refers to" or "has the
    meaning"; or the term in bold opening an item of a list, its definition after it
    ("* **Live state** The live state ...", a docs site's glossary); or, in a glossary
    section (``section_title``: "Terminology", "Definitions"), the term opening a line
    with a colon after it (elsewhere such a line is often a field of a format:
    "Connection ID:  The connection ID of the frame").

    Example:
        >>> defines("(4) \u2018deployer\u2019 means a natural or legal person", "deployer")
        True
        >>> text = "Ack-eliciting packet:  A QUIC packet that"
        >>> defines(text, "ack-eliciting packet", "2. Conventions and Definitions")
        True
        >>> defines(text, "ack-eliciting packet", "19.3. ACK Frames")
        False
        >>> defines("Deployers shall keep the logs", "deployer")
        False
        >>> defines("* **Live state** The live state of that application.", "live state")
        True
        >>> defines("Which **Tool** is used to build it", "tool")
        False
        >>> defines("(7) \u2018distributor\u2019 means a natural", "distributors")
        True
        >>> defines("\u2018notified bodies\u2019 means", "notified body")
        True
    """
    words = _term_pattern(term)
    quoted = rf"[{_QUOTES}]?{words}[{_QUOTES}]?"
    said = r"(?:means|shall\s+mean|is\s+defined\s+as|refers\s+to|has\s+the\s+meaning)\b"
    pattern = rf"(?<![\w-]){quoted},?\s+{said}"
    if _GLOSSARY.search(section_title):
        pattern += rf"|(?m:^\s*{quoted}\s*:)"
    if re.search(pattern, text, re.IGNORECASE):
        return True
    # a definition list: "* **Live state** The live state of that application."
    listed = rf"(?:^|[*+\-]\s+)\*\*(?i:{words})\*\*:?\s+[A-Z(]"
    return re.search(listed, text) is not None


def definition_first(question: str, evidence: list[Evidence]) -> list[Evidence]:
    """``evidence`` with the first chunk among it that defines the question's term moved to
    the front (see the module doc); unchanged when the question asks no definition or no
    chunk defines its term."""
    term = defined_term(question)
    if term is None:
        return evidence
    at = next(
        (i for i, e in enumerate(evidence) if defines(e.text, term, e.section_title or "")),
        None,
    )
    if at is None or at == 0:
        return evidence
    return [evidence[at], *evidence[:at], *evidence[at + 1 :]]


__all__ = ["TERM_WORDS", "defined_term", "defines", "definition_first"]
