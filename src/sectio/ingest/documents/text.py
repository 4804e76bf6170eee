"""Plain text (``.txt``, ``README``, ``NEWS``): paragraphs (split on blank lines),
each line kept as text, and the titles plain text marks by underlining.

No markup is read: a line Markdown would act on (``#``, ``>``, indentation) is
escaped, so the text is indexed as written. The one convention read is the
underlined title, as READMEs and NEWS files write it::

    Installation
    ============

a line of at most 80 characters followed by a line of one repeated ``=``,
``-``, ``~``, ``*``, ``^`` or ``#`` (3 or more, at least 60% of the title's
length) is a heading; its level is the order in which the file first uses
that character (the first is level 1). A numbered title, as standards and
RFCs write them, is a heading too: a paragraph of one line, not indented, of at
most 80 characters, a section number (``2.1.``, ``4``,
``Appendix A.``, ``A.1.``) then a title that does not start in lower case or end as a
sentence does; a one-level number needs two spaces or a tab before its title
(``1.  Introduction``: a list item writes ``1. Install it``). Its level is its
number's depth. Page breaks of such documents (a footer line ending
``[Page 3]``, the form feed, the running header after it) are left out. A
Debian changelog (its first line
``package (version) distribution; urgency=...``, see deb-changelog(5)) has one
section per entry, titled ``package (version) distribution`` (the document is
titled by its file name). A legal text's unit label on a line of its own
("Article 5", "CHAPTER II", "ANNEX III") is a heading at its unit's level, titled by
the line after it when that reads as a title ("Article 5 - Prohibited AI practices";
the document is titled by its file name). A file in Emacs outline mode (its first line says
``-*- outline -*-``, as GNU projects' ``NEWS`` files do) writes its headings as
lines of stars: ``* Noteworthy changes in release 3.11 (2023-05-13) [stable]``
(level 1), ``** Bug fixes`` (level 2). Without such
titles the document has one section; its title is the file name.
"""

from __future__ import annotations

import re

from sectio.ingest.documents.converted import Converted, MarkdownWriter
from sectio.ingest.documents.units import titled_label, unit_level

_RULE = re.compile(r"^\s*([=\-~*^#])\1{2,}\s*$")
_TITLE_MAX = 80
#: A numbered title: ``2.1.  Authenticated Encryption``, ``Appendix A.  Test Vectors``,
#: ``A.1.  Sample Packet`` (an appendix's part).
_NUMBERED = re.compile(
    r"^((?:Appendix|Annex) [A-Z](?:\.\d+)*|[A-Z](?:\.\d+)+|\d+(?:\.\d+)*)\.?([ \t]+)(\S.*)$"
)
#: A page footer of a typewritten standard: ``McGrew   Standards Track   [Page 3]``.
_FOOTER = re.compile(r"\[Page \d+\]\s*$")
#: A Debian changelog entry's first line: ``curl (7.88.1-10) bookworm; urgency=medium``.
_DEB_ENTRY = re.compile(r"^([a-z0-9][a-z0-9+.-]+ \([^()\s]+\)[^;]*);\s*urgency=", re.I)
#: Emacs's mode line of an outline file: ``GNU grep NEWS    -*- outline -*-``.
_OUTLINE_MODE = re.compile(r"-\*-\s*(?:mode:\s*)?outline\s*-\*-", re.I)
#: An outline heading: stars, a space, the title.
_OUTLINE_HEADING = re.compile(r"^(\*+)[ \t]+(\S.*)$")


def _underlined(lines: list[str], i: int) -> str | None:
    """The rule character when ``lines[i]`` is a title underlined by ``lines[i + 1]``."""
    if i + 1 >= len(lines):
        return None
    title, rule = lines[i].strip(), lines[i + 1]
    m = _RULE.match(rule)
    if not m or not title or len(title) > _TITLE_MAX or _RULE.match(title):
        return None
    return m.group(1) if len(rule.strip()) >= 0.6 * len(title) else None


def numbered_level(line: str) -> int | None:
    """The heading level of a numbered title line (its number's depth), or None.

    Example:
        >>> [numbered_level(x) for x in ("2.1.  Authenticated Encryption", "1.  Introduction",
        ...  "Appendix A.  Test Vectors", "A.1.  Sample", "1. Install it", "3.2. then it says.",
        ...  "  4.1. Text")]
        [2, 1, 1, 2, None, None, None]
    """
    m = _NUMBERED.match(line)
    if m is None or len(line) > _TITLE_MAX:
        return None
    number, gap, title = m.group(1), m.group(2), m.group(3).rstrip()
    deep = "." in number
    if not (deep or len(gap) >= 2 or "\t" in gap or number[0].isalpha()):
        return None
    if title[0].islower() or title[-1] in ".,;:":
        return None
    return number.count(".") + 1


def without_page_breaks(text: str) -> str:
    """``text`` without the page breaks of a typewritten standard: each footer line ending
    ``[Page N]``, each form feed, and the running header line right after one."""
    out: list[str] = []
    header_next = False
    for line in text.split("\n"):
        if "\f" in line:
            header_next = True
            line = line.replace("\f", "")
        if _FOOTER.search(line):
            continue
        if header_next and line.strip():
            header_next = False
            if "   " in line.strip():  # a running header is laid out in columns
                continue
        out.append(line)
    return "\n".join(out)


def _paragraph(
    w: MarkdownWriter,
    lines: list[str],
    levels: list[str],
    changelog: bool = False,
    outline: bool = False,
) -> None:
    """One blank-line-separated paragraph, its underlined titles (or a changelog's
    entry lines, an outline file's lines of stars) as headings."""
    body: list[str] = []

    def heading(level: int, title: str) -> None:
        if body:
            w.paragraph("\n".join(body))
            body.clear()
        w.heading(level, title)

    i = 0
    while i < len(lines):
        stars = _OUTLINE_HEADING.match(lines[i]) if outline else None
        if stars:
            heading(min(len(stars.group(1)), 6), stars.group(2).strip())
            i += 1
            continue
        entry = _DEB_ENTRY.match(lines[i]) if changelog else None
        char = None if entry else _underlined(lines, i)
        alone = len(lines) == 1 and char is None and not entry  # a paragraph of one line
        level = numbered_level(lines[i]) if alone else None
        unit = None if entry or char is not None else unit_level(lines[i])
        if entry:
            heading(1, entry.group(1).strip())
        elif unit is not None:  # "Article 5", its title on the next line when it reads as one
            titled = titled_label(lines[i], lines[i + 1]) if i + 1 < len(lines) else None
            heading(unit, titled or " ".join(lines[i].split()))
            i += 1 if titled else 0
        elif level is not None:
            heading(min(level, 6), " ".join(lines[i].split()))
        elif char is not None:
            if char not in levels:
                levels.append(char)
            heading(min(levels.index(char) + 1, 6), lines[i].strip())
            i += 1  # the rule line
        else:
            body.append(lines[i])
        i += 1
    if body:
        w.paragraph("\n".join(body))


def with_unit_titles(paragraphs: list[list[str]]) -> list[list[str]]:
    """``paragraphs`` with each unit label standing alone ("Article 5") joined to the
    one-line paragraph after it when that reads as its title ("Prohibited AI practices").

    Example:
        >>> with_unit_titles([["Article 5"], ["Scope"], ["It applies."]])
        [['Article 5', 'Scope'], ['It applies.']]
        >>> with_unit_titles([["Article 5"], ["It applies to all."]])
        [['Article 5'], ['It applies to all.']]
    """
    out: list[list[str]] = []
    i = 0
    while i < len(paragraphs):
        p = paragraphs[i]
        nxt = paragraphs[i + 1] if i + 1 < len(paragraphs) else []
        one = len(p) == 1 and len(nxt) == 1
        if one and unit_level(p[0]) is not None and titled_label(p[0], nxt[0]):
            out.append([p[0], nxt[0]])
            i += 2
            continue
        out.append(p)
        i += 1
    return out


def text_to_markdown(text: str, title: str = "") -> Converted:
    """``text`` as Markdown paragraphs and headings (see the module docstring); a
    changelog's document title is ``title`` (its first entry's otherwise), and so is a
    numbered document's (its first numbered title otherwise: "1. Introduction")."""
    w = MarkdownWriter()
    levels: list[str] = []
    text = without_page_breaks(text.replace("\r\n", "\n").replace("\r", "\n"))
    changelog = bool(_DEB_ENTRY.match(text.lstrip()))
    first = text.lstrip().split("\n", 1)[0]
    outline = bool(_OUTLINE_MODE.search(first))
    if outline:  # the mode line is no text: "GNU grep NEWS" and the mode marker
        text = text.replace(first, _OUTLINE_MODE.sub("", first).rstrip(), 1)
    if (changelog or outline) and title:
        w.front["title"] = title
    paragraphs = with_unit_titles([p.split("\n") for p in text.split("\n\n")])
    if title and any(numbered_level(p[0]) or unit_level(p[0]) for p in paragraphs if len(p) <= 2):
        w.front["title"] = title  # a standard, a law: "1. Introduction" is no title of it
    for lines in paragraphs:
        _paragraph(w, lines, levels, changelog, outline)
    return w.done("txt")


__all__ = ["text_to_markdown"]
