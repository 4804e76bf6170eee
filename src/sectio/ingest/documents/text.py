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
that character (the first is level 1). A Debian changelog (its first line
``package (version) distribution; urgency=...``, see deb-changelog(5)) has one
section per entry, titled ``package (version) distribution`` (the document is
titled by its file name). Without such
titles the document has one section; its title is the file name.
"""

from __future__ import annotations

import re

from sectio.ingest.documents.converted import Converted, MarkdownWriter

_RULE = re.compile(r"^\s*([=\-~*^#])\1{2,}\s*$")
_TITLE_MAX = 80
#: A Debian changelog entry's first line: ``curl (7.88.1-10) bookworm; urgency=medium``.
_DEB_ENTRY = re.compile(r"^([a-z0-9][a-z0-9+.-]+ \([^()\s]+\)[^;]*);\s*urgency=", re.I)


def _underlined(lines: list[str], i: int) -> str | None:
    """The rule character when ``lines[i]`` is a title underlined by ``lines[i + 1]``."""
    if i + 1 >= len(lines):
        return None
    title, rule = lines[i].strip(), lines[i + 1]
    m = _RULE.match(rule)
    if not m or not title or len(title) > _TITLE_MAX or _RULE.match(title):
        return None
    return m.group(1) if len(rule.strip()) >= 0.6 * len(title) else None


def _paragraph(
    w: MarkdownWriter, lines: list[str], levels: list[str], changelog: bool = False
) -> None:
    """One blank-line-separated paragraph, its underlined titles (or a changelog's
    entry lines) as headings."""
    body: list[str] = []

    def heading(level: int, title: str) -> None:
        if body:
            w.paragraph("\n".join(body))
            body.clear()
        w.heading(level, title)

    i = 0
    while i < len(lines):
        entry = _DEB_ENTRY.match(lines[i]) if changelog else None
        char = None if entry else _underlined(lines, i)
        if entry:
            heading(1, entry.group(1).strip())
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


def text_to_markdown(text: str, title: str = "") -> Converted:
    """``text`` as Markdown paragraphs and headings (see the module docstring); a
    changelog's document title is ``title`` (its first entry's otherwise)."""
    w = MarkdownWriter()
    levels: list[str] = []
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    changelog = bool(_DEB_ENTRY.match(text.lstrip()))
    if changelog and title:
        w.front["title"] = title
    for para in text.split("\n\n"):
        _paragraph(w, para.split("\n"), levels, changelog)
    return w.done("txt")


__all__ = ["text_to_markdown"]
