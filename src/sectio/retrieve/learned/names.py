"""The names people use for a document, read from its title, aliases and text.

From a title (or alias) "General Data Protection Regulation (EU) 2016/679":

* the title without its parenthesised parts and trailing number
  ("General Data Protection Regulation"), kept only when two words or more remain;
* its part before a colon or a spaced dash ("RFC 9000" for "RFC 9000: QUIC: ...");
* the name in parentheses after a numbered designation, the name a document
  is known by: two capitalised words or more closing a title whose rest holds
  a number ("Artificial Intelligence Act" of "Regulation (EU) 2024/1689
  (Artificial Intelligence Act)"; not "(United States)" closing a paper's
  title), and its acronym;
* its acronym, from the capitalised words (three letters or more: "GDPR"; a
  leading all-caps word left out too: "GNU General Public License" -> "GPL"),
  with the version the title ends in ("GPLv3", "GPL 3", "GPL-3.0", "MPL 2.0",
  "SOC 2"), and the first word with it ("Apache 2.0", "Apache-2.0", "Apache 2"); a
  word that announces the number is no part of a name ("Apache License, Version 2.0"
  is "Apache License", "EUPL v. 1.2" is "EUPL");
* an acronym's long form where the document's text spells it out: "General
  Data Protection Regulation (GDPR)" makes the long form a name of a document
  called "GDPR".

A variant names its document only when no other document has it (as a
variant or a name) and ``usable`` says it may (not a common word): the
catalog's typo and look-alike rules then apply to it as to any name.

Example:
    >>> name_variants("General Data Protection Regulation (EU) 2016/679")
    ['General Data Protection Regulation', 'GDPR']
    >>> name_variants("GNU General Public License v3.0")[:5]
    ['GNU General Public License', 'GPL', 'GPL 3.0', 'GPLv3.0', 'GPL-3.0']
    >>> name_variants("GNU General Public License v3.0")[5:]
    ['GPL v3', 'GPL 3', 'GPLv3']
    >>> name_variants("RFC 9000: QUIC: A UDP-Based Multiplexed and Secure Transport")
    ['RFC 9000']
    >>> name_variants("Regulation (EU) 2024/1689 (Artificial Intelligence Act)")
    ['Artificial Intelligence Act', 'AIA']
    >>> name_variants("Lipitor (atorvastatin calcium) tablets")
    ['Lipitor tablets']
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping

from sectio.retrieve.text import Tokens, tokens

_PARENS = re.compile(r"\s*[(\[][^)\]]*[)\]]")
_KNOWN_AS = re.compile(r"^(?P<rest>.+?)\s*\((?P<name>[^()]+)\)\s*$")
_VERSION = re.compile(r"^v?(\d+(?:\.\d+)*)$", re.IGNORECASE)
_TRAILING_NUMBER = re.compile(r"^(?:v?\d[\w./-]*|no\.?|nr\.?)$", re.IGNORECASE)
#: A word that announces the number after it ("Apache License, Version 2.0", "EUPL v. 1.2").
#: A year: a trailing one dates a title ("Act of 2018"), it is no version.
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_VERSION_WORD = re.compile(
    r"^(?:v\.|ver\.|version|release|rev\.?|revision|edition)$", re.IGNORECASE
)
_HEAD = re.compile(r"^(.+?)(?::\s|\s+[-–—]\s+)")
_SMALL = frozenset({"of", "and", "for", "the", "on", "to", "in", "a", "an", "de", "du", "la"})
#: Acronyms and first words shorter than this are not names of their own.
MIN_ACRONYM = 3
#: Titles with more capitalised words than this are sentences, not acronym sources.
MAX_ACRONYM = 6


def _base(title: str) -> tuple[list[str], str | None]:
    """The title's words without parenthesised parts and trailing numbers (with the word
    that announces one: "Version", "v.", the "of" of a year; and the comma before it),
    and its version (a year is none).

    Example:
        >>> _base("Apache License, Version 2.0")
        (['Apache', 'License'], '2.0')
        >>> _base("European Union Public Licence v. 1.2")
        (['European', 'Union', 'Public', 'Licence'], '1.2')
        >>> _base("Consumer Privacy Act of 2018")
        (['Consumer', 'Privacy', 'Act'], None)
    """
    written = _PARENS.sub("", title).split()
    words = list(written)
    version = None
    while len(words) > 1 and _TRAILING_NUMBER.match(words[-1]):
        number = words.pop()
        year = _YEAR.match(number) is not None
        m = None if year else _VERSION.match(number)
        if m and version is None:
            version = m.group(1)
        announced = words[-1].lower() == "of" if year else _VERSION_WORD.match(words[-1])
        if len(words) > 1 and announced:
            words.pop()
    if words and len(words) < len(written):
        words[-1] = words[-1].rstrip(",;")
    return words, version


def _acronym(words: list[str]) -> str | None:
    """The initials of the capitalised words (all-caps words, themselves acronyms, left
    out), when there are :data:`MIN_ACRONYM` to :data:`MAX_ACRONYM` of them."""
    caps = [w for w in words if w[:1].isupper() and not (w.isupper() and len(w) > 1)]
    if not MIN_ACRONYM <= len(caps) <= MAX_ACRONYM or len(words) > MAX_ACRONYM + 3:
        return None
    return "".join(w[0] for w in caps).upper()


def _versioned(name: str, version: str, joined: bool = True) -> list[str]:
    """``name`` with ``version`` as people write it ("GPL 3.0", "GPL-3.0", "GPL v3",
    "GPL 3"); ``joined``: also written as one word ("GPLv3"), as acronyms are."""
    major, _, minor = version.partition(".")
    forms = [f"{name} {version}", *([f"{name}v{version}"] if joined else []), f"{name}-{version}"]
    if minor.strip("0.") == "":  # "3.0" is also written "3", "v3"
        forms += [f"{name} v{major}", f"{name} {major}", *([f"{name}v{major}"] if joined else [])]
    return list(dict.fromkeys(forms))


def name_variants(title: str) -> list[str]:
    """The names people use for a document titled ``title`` (see the module doc), in order."""
    out: list[str] = []
    words, version = _base(title)
    base = " ".join(words)
    if len(words) >= 2 and base != title.strip():
        out.append(base)
    head = _HEAD.match(title)
    if head:
        out.append(head.group(1).strip())
        words, version = _base(head.group(1))
    acronym = _acronym(words)
    if acronym:
        out.append(acronym)
        if version:
            out += _versioned(acronym, version)
    first = words[0] if words else ""
    # "Apache 2.0", "Apache-2.0", "Apache 2"; not "Title 11" of "Title 21 CFR Part 11"
    lettered = all(w.replace("-", "").isalpha() for w in words) and not first.isupper()
    if version and lettered and len(words) >= 2 and len(first) > MIN_ACRONYM:
        out += _versioned(first, version, joined=False)
    out += _named_parts(title)
    return list(dict.fromkeys(v for v in out if tokens(v) and v != title))


def _named_parts(title: str) -> list[str]:
    """The name in round parentheses closing ``title`` after a numbered designation (two
    words or more written with a capital, no digit; the rest of the title holds one), and
    its acronym.

    Example:
        >>> _named_parts("Directive 2002/58/EC (ePrivacy Directive)")
        ['ePrivacy Directive']
        >>> _named_parts("Breast density (United States)"), _named_parts("Act 5 (the act)")
        ([], [])
    """
    m = _KNOWN_AS.match(title)
    if m is None or not any(ch.isdigit() for ch in m["rest"]):
        return []
    words = m["name"].split()
    if sum(w != w.lower() for w in words) < 2 or any(ch.isdigit() for ch in m["name"]):
        return []
    acronym = _acronym(words)
    return [" ".join(words), *([acronym] if acronym else [])]


def long_forms(acronym: str, texts: Iterable[str]) -> list[str]:
    """Long forms of ``acronym`` the texts spell out before it: "General Data Protection
    Regulation (GDPR)"; the initials of the capitalised words must be the acronym."""
    pattern = re.compile(
        rf"((?:[A-Z][\w'-]*\s+(?:(?:{'|'.join(_SMALL)})\s+)*)+)\(\s*{acronym}\s*\)"
    )
    out: list[str] = []
    for text in texts:
        for m in pattern.finditer(text):
            caps = [w for w in m.group(1).split() if w[:1].isupper()]
            for n in range(len(caps), 1, -1):
                if "".join(w[0] for w in caps[-n:]).upper() == acronym:
                    words = m.group(1).split()
                    start = len(words) - 1 - words[::-1].index(caps[-n])
                    out.append(" ".join(words[start:]))
                    break
    return list(dict.fromkeys(out))


def add_variants(
    raw: dict[tuple[str, str], str],
    usable: Callable[[Tokens], bool] = lambda _t: True,
    texts: Mapping[str, list[str]] | None = None,
) -> None:
    """Add to ``raw`` (``(doc_id, normalized name) -> display``) every variant of its names
    that one document alone has and ``usable`` accepts; ``texts``: each document's texts,
    where acronyms' long forms are looked for."""
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for (doc_id, _norm), display in list(raw.items()):
        for v in name_variants(display):
            found[" ".join(tokens(v))].setdefault(doc_id, v)
        words = display.split()
        if texts and len(words) == 1 and display.isupper() and len(display) >= MIN_ACRONYM:
            for v in long_forms(re.escape(display), texts.get(doc_id, ())):
                found[" ".join(tokens(v))].setdefault(doc_id, v)
    owners: dict[str, set[str]] = defaultdict(set)
    for doc_id, norm in raw:
        owners[norm].add(doc_id)
    for norm, docs in found.items():
        if len(docs) != 1 or not usable(tuple(norm.split())):
            continue
        ((doc_id, display),) = docs.items()
        if owners.get(norm, {doc_id}) == {doc_id}:
            raw.setdefault((doc_id, norm), display)
