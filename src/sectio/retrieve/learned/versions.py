"""Versions: the release a changelog entry's title carries, and the ones a question writes.

A changelog is a document of sections, one per release, each titled with its
version as projects print it: ``0.141.0 (2026-07-29)`` (FastAPI's release
notes), ``[1.2.0] - 2024-01-01`` (Keep a Changelog), ``v2.3.0``, ``Version
1.4.2``, ``Release 3.0``, ``What's new in 2.0``, GNU's ``Noteworthy changes in
release 3.11 (2023-05-13) [stable]`` (``NEWS``) and Debian's
``zorbctl (2.1-1) unstable; urgency=medium`` (``changelog.Debian.gz``, in
every package's documentation). A question names one as people do: "what
changed in 0.141.0", "FastAPI v0.141.0", "zorbctl 2.1", "the 2.1-1 upload".

A title is read as a version only in those shapes: a version with two dots or
more alone or before a date; one dot after a word that says so ("version",
"release", "v") or before a date; any in Debian's ``name (version) suite;``
line; any announced in words ("changes in release", "what's new in", "release notes
for", at most one word, the product's, before the version). A numbered section
("4.2. Increasing Flow Control Limits") is no
version. A question's version (:func:`question_versions`) is the dotted
number it writes, not right after a word that names a unit ("section 4.2" is a
section's number: :mod:`sectio.retrieve.learned.numbers`); two ("v3.4 to v3.5")
are a range, no release.

Two versions are the same release (:func:`same_release`) when equal, or when
the title's adds only a packaging revision (or a repackaging tag) to the
question's ("2.1" names ``2.1-1`` and ``2.1+dfsg-2``), or zeros at the end
("2.1" names ``2.1.0``); an epoch (``1:2.1-1``) and a leading ``v`` are
dropped. "2.1" names neither ``2.1.1`` nor ``2.10``, nor a pre-release
(``2.1.0-rc3``, ``2.1~beta1-1``) unless written so.

Example:
    >>> title_version("0.141.0 (2026-07-29)"), title_version("zorbctl (2.1-1) unstable")
    ('0.141.0', '2.1-1')
    >>> title_version("Noteworthy changes in release 3.11 (2023-05-13) [stable]")
    '3.11'
    >>> title_version("4.2. Increasing Flow Control Limits"), title_version("Changes in behavior")
    (None, None)
    >>> question_versions("What changed in zorbctl v2.1? And in section 4.2?")
    ['2.1']
    >>> same_release("2.1", "2.1-1"), same_release("2.1", "2.1.0"), same_release("2.1", "2.10")
    (True, True, False)
"""

from __future__ import annotations

import functools
import re

from sectio.retrieve.learned.numbers import KIND_WORDS

#: A version as printed: digits and dots, then an optional revision or tag.
_V = r"\d+(?:\.\d+)+(?:[-+~][0-9A-Za-z.+~]*[0-9A-Za-z])?"
#: A date after a version: ISO, or day month year / month day, year.
_DATE = (
    r"(?:\d{4}-\d{2}-\d{2}|\d{1,2}(?:st|nd|rd|th)?\s+[A-Za-z]{3,9}\.?,?\s+\d{4}"
    r"|[A-Za-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})"
)
#: Debian's changelog line: ``package (version) suite; urgency=...`` (the reader may cut
#: at the semicolon).
_DEBIAN = re.compile(
    r"^[a-z0-9][a-z0-9.+\-]+\s+\((?:\d+:)?(?P<v>\d[0-9A-Za-z.+~\-]*)\)"
    r"(?:\s+[a-z][a-z0-9\-]*(?:\s+[a-z][a-z0-9\-]*)*)\s*(?:;.*)?$"
)
#: A title that is a version (with an optional word that says so), then an optional date.
_TITLE = re.compile(
    rf"^\W*(?P<word>(?:version|release|v|what'?s\s+new\s+in)\s*)?\[?v?(?P<v>{_V})\]?"
    rf"(?P<date>\s*(?:[-–—/:,]\s*)?\(?{_DATE}\)?)?\s*(?P<tag>\((?:unreleased|yanked)\))?\W*$",
    re.IGNORECASE,
)
#: A dotted number in a question, a ``v`` before it allowed.
_QUESTION = re.compile(rf"(?<![\w.])v?(?P<v>{_V})(?![\w.]*\w)", re.IGNORECASE)
#: A word naming a unit right before a number ("section 4.2"): a section's number.
_UNIT_BEFORE = re.compile(
    r"(?:" + "|".join(sorted(map(re.escape, KIND_WORDS), key=len, reverse=True)) + r")\.?\s*$",
    re.IGNORECASE,
)


#: A release announced in words: GNU's ``Noteworthy changes in release 3.11 (2023-05-13)
#: [stable]``, ``Changes in version 2.1``, ``What's new in Flask 2.0``, ``Release notes for
#: v1.4``: the words, at most one word (the product), the version, then a date or a tag.
_ANNOUNCED = re.compile(
    rf"^\W*(?:[a-z]+\s+)?(?:changes|release\s+notes|what'?s\s+new)\s+(?:in|for)\s+"
    rf"(?:(?:version|release)\s+)?(?:[a-z][\w\-]*\s+)?v?(?P<v>{_V}|\d+\.\d+)"
    rf"(?:\s*(?:[-–—/:,]\s*)?\(?{_DATE}\)?)?\s*(?:\[[a-z\-]+\]|\((?:unreleased|yanked)\))?\W*$",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=8192)
def title_version(title: str) -> str | None:
    """The version a changelog entry's title carries (see the module doc), or None (read
    once per heading: every section under a release heading asks about it again)."""
    text = title.strip()
    debian = _DEBIAN.match(text)
    if debian is not None:
        return debian["v"]
    announced = _ANNOUNCED.match(text)
    if announced is not None:
        return announced["v"]
    m = _TITLE.match(text)
    if m is None:
        return None
    if m["v"].count(".") < 2 and not (m["word"] or m["date"] or m["tag"]):
        return None  # "4.2" alone may be a section's number
    return m["v"]


def question_versions(question: str) -> list[str]:
    """Every dotted number ``question`` writes, in order, but a unit's ("section 4.2");
    none when it writes two releases or more ("v3.4 to v3.5", "between 2.0 and 2.1"): a
    range or a comparison is no one release.

    Example:
        >>> question_versions("Which page explains v3.4 to v3.5?")
        []
    """
    found = [
        m["v"]
        for m in _QUESTION.finditer(question)
        if not _UNIT_BEFORE.search(question[: m.start()])
    ]
    return found if len(set(found)) == 1 else []


def same_release(asked: str, titled: str) -> bool:
    """Whether the version a question writes names the release a title prints (see the
    module doc). A pre-release (``3.5.0-rc3``, ``2.1~beta1-1``) is named only as written.

    Example:
        >>> same_release("3.5", "3.5.0-rc3"), same_release("3.5.0-rc3", "v3.5.0-rc3")
        (False, True)
    """
    a, t = _plain(asked), _plain(titled)
    if a == t:
        return True
    rest = t[len(a) :] if t.startswith(a) else ""
    if rest[:1] in ("-", "+", "~") and not _PRE_RELEASE.search(rest):
        return True
    base = re.split(r"[-+~]", t, maxsplit=1)[0]
    return (
        _trimmed(a) == _trimmed(base)
        and not any(c in a for c in "-+~")
        and not _PRE_RELEASE.search(t[len(base) :])
    )


def same_version(asked: str, titled: str) -> bool:
    """Whether a title prints the version as the question writes it (``v`` and an epoch
    aside): "2.1" is ``2.1``, not ``2.1-1`` nor ``2.1.0``."""
    return _plain(asked) == _plain(titled)


#: A pre-release tag after a version: ``-rc3``, ``~beta1``, ``.dev2``, ``a1``, ``-alpha``.
_PRE_RELEASE = re.compile(r"(?:^|[-+~.])(?:rc|alpha|beta|dev|pre|preview|a|b)\d*(?:$|[-+~.])", re.I)


def _plain(version: str) -> str:
    return re.sub(r"^\d+:", "", version.strip().lower().lstrip("v"))


def _trimmed(version: str) -> str:
    parts = version.split(".")
    while len(parts) > 2 and parts[-1] == "0":
        parts.pop()
    return ".".join(parts)


__all__ = ["question_versions", "same_release", "same_version", "title_version"]
