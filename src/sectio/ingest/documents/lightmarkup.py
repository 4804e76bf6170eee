"""Org and AsciiDoc documents, read as Markdown line for line.

Two plain-text markups that documentation comes in (``README.org``, Emacs and
its packages; ``*.adoc``, Asciidoctor sites): their headings become Markdown
headings (sections), their source and listing blocks fenced code, their links
Markdown links, and their directives and comments blank lines. Every line of
the file is one line of the result, so a chunk's line numbers point into the
file. Only what changes structure is converted; the rest is kept as text
(emphasis marks, tables, footnotes read as written).

Org: ``#+TITLE:`` is the title (``*`` headings then start at ``##``), ``* H`` a
heading (a TODO keyword and ``:tags:`` cut), a table's ``|---+---|`` rule a
Markdown table's header line, ``#+BEGIN_SRC lang`` /
``#+BEGIN_EXAMPLE`` code, ``[[url][text]]`` a link, ``=code=`` and ``~code~`` code
spans; other ``#+`` lines, ``# `` comments, property drawers and logbooks are dropped
(``:PROPERTIES:`` ... ``:END:``); another drawer's text is kept, as Org exports it
(``:PREAMBLE:`` of the Magit manual), its two marker lines dropped.

AsciiDoc: ``= Title``, ``== Section``, ... headings, and the two-line titles of
older trees (Git's manual pages: a title, then a line of ``=``, ``-``, ``~``,
``^`` or ``+`` as long as it, give or take one: :func:`two_line_level`); ``----``
listing and ``....`` literal blocks code (``[source,lang]`` gives the language);
``====``, ``****``, ``____`` block delimiters, attribute entries, block
attributes, anchors, ``//`` comments and the ``include::`` lines left (those
inside the tree are followed before: :mod:`~sectio.ingest.documents.includes`)
dropped; ``NOTE:`` (and
the other admonitions) bold; ``.Title`` block titles bold; a labeled list's
term (``--all::``) bold, its description text even where it is indented after a blank
line (Markdown would read an indented line as code; so is any indented line, AsciiDoc's
literal paragraph); ``url[text]``, ``link:``, ``xref:`` and
``<<id,text>>`` links, any other inline macro its target or text
(``linkgit:git-add[1]`` reads ``git-add``); ``*`` and ``.`` list items
Markdown items.

Example:
    >>> print(org_to_markdown("#+TITLE: Zed\\n* Usage :cli:\\nRun =zed=, see [[https://z.org][site]]."))
    # Zed
    ## Usage
    Run `zed`, see [site](https://z.org).
    >>> print(asciidoc_to_markdown("= Zed\\n:toc:\\n== Usage\\n[source,sh]\\n----\\nzed -v\\n----"))
    # Zed
    <BLANKLINE>
    ## Usage
    <BLANKLINE>
    ```sh
    zed -v
    ```
"""

from __future__ import annotations

import re

from sectio.ingest.documents.converted import escape_line

# --- Org ---------------------------------------------------------------------------------

_ORG_TITLE = re.compile(r"^\s*#\+title:\s*(.*)$", re.IGNORECASE)
_ORG_HEADING = re.compile(
    r"^(\*+)\s+(?:(?:TODO|DONE|NEXT|WAITING)\s+)?(.*?)(?:\s+:[\w@#%:]+:)?\s*$"
)
_ORG_BEGIN = re.compile(r"^\s*#\+begin_(src|example)\b\s*(\S*)", re.IGNORECASE)
_ORG_END = re.compile(r"^\s*#\+end_(src|example)\b", re.IGNORECASE)
_ORG_DIRECTIVE = re.compile(r"^\s*#\+|^\s*#(\s|$)")
_ORG_DRAWER = re.compile(r"^\s*:[A-Za-z]+:\s*$")
#: The drawers whose content is metadata, not text (Org's export leaves them out).
_ORG_HIDDEN_DRAWERS = (":PROPERTIES:", ":LOGBOOK:")
_ORG_LINK = re.compile(r"\[\[([^\]]+)\]\[([^\]]+)\]\]")
_ORG_BARE_LINK = re.compile(r"\[\[([^\]]+)\]\]")
_ORG_RULE = re.compile(r"^\s*\|[-+]+\|?\s*$")
_ORG_CODE = re.compile(r"(?<![\w=~])([=~])([^\s=~](?:[^=~]*?[^\s=~])?)\1(?![\w=~])")


def org_to_markdown(text: str) -> str:
    """``text`` (Org) as Markdown, line for line (see the module doc)."""
    lines = text.split("\n")
    titled = any(_ORG_TITLE.match(line) for line in lines)
    out: list[str] = []
    code = drawer = False
    for line in lines:
        if code:
            code = not _ORG_END.match(line)
            out.append(line if code else "```")
            continue
        if drawer:
            drawer = line.strip().upper() != ":END:"
            out.append("")
            continue
        out.append(_org_line(line, titled))
        if _ORG_BEGIN.match(line):
            code = True
        elif line.strip().upper() in _ORG_HIDDEN_DRAWERS:
            drawer = True
    return "\n".join(out)


def _org_line(line: str, titled: bool) -> str:
    """One Org line outside code and drawers, as Markdown."""
    if m := _ORG_TITLE.match(line):
        return f"# {m.group(1).strip()}"
    if m := _ORG_BEGIN.match(line):
        return "```" + (m.group(2) if m.group(1).lower() == "src" else "")
    if _ORG_DIRECTIVE.match(line) or _ORG_DRAWER.match(line):
        return ""
    if m := _ORG_HEADING.match(line):
        level = min(len(m.group(1)) + titled, 6)
        return "#" * level + " " + _org_inline(m.group(2))
    if _ORG_RULE.match(line):  # a table's rule: Markdown's header line
        return line.replace("+", "|")
    return _org_inline(line)


def _org_inline(text: str) -> str:
    text = _ORG_LINK.sub(r"[\2](\1)", text)
    text = _ORG_BARE_LINK.sub(r"<\1>", text)
    return _ORG_CODE.sub(r"`\2`", text)


# --- AsciiDoc ----------------------------------------------------------------------------

_AD_HEADING = re.compile(r"^(={1,6})\s+(\S.*)$")
_AD_LISTING = re.compile(r"^(-{4,}|\.{4,})\s*$")
#: Block delimiters, dropped: example, sidebar, quote and passthrough blocks, an open
#: block's ``--``, a list continuation's ``+`` (Markdown would read a short run of ``-``
#: or ``=`` under a paragraph as that paragraph's heading).
_AD_DELIMITER = re.compile(r"^(={4,}|\*{4,}|_{4,}|\+{4,}|-{1,3}|={1,3}|\+)\s*$")
_AD_COMMENT_BLOCK = re.compile(r"^/{4,}\s*$")
#: Lines dropped, written from the first column: attribute entries, comments, includes,
#: anchors and block attributes (``[source,sh]``; not a synopsis's ``[-a] [--all]``).
_AD_DROPPED = re.compile(r"^(:[\w-]+!?:.*|//(?!/).*|include::.*\[.*\]|\[\[.*\]\]|\[[^\[\]]*\])\s*$")
_AD_SOURCE = re.compile(r"^\[(?:source|listing)?,\s*([\w+#.-]+)", re.IGNORECASE)
_AD_ADMONITION = re.compile(r"^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):\s+")
_AD_BLOCK_TITLE = re.compile(r"^\.([A-Za-z0-9].*)$")
_AD_LIST = re.compile(r"^(\*+|\.+)\s+(\S.*)$")
_AD_URL = re.compile(r"(?:link:)?((?:https?|ftp|mailto):[^\s\[]+|[^\s\[:]+\.\w+)\[([^\]]*)\]")
_AD_XREF = re.compile(r"xref:([^\s\[]+)\[([^\]]*)\]")
_AD_ANCHOR_REF = re.compile(r"<<([^,>]+)(?:,\s*([^>]+))?>>")
#: Any other inline macro, ``name:target[text]`` (``linkgit:git-add[1]``, ``kbd:[Ctrl+C]``).
_AD_MACRO = re.compile(r"\b[a-z][\w-]*:([^\s\[:]*)\[([^\]]*)\]")
#: A labeled list's term: ``--all::``, ``Term:::``, ``Term;;``.
_AD_LABEL = re.compile(r"^(\S.*?)(?::{2,4}|;;)\s*$")
#: A two-line title's underline, by its character: the heading level it gives.
_AD_UNDERLINES = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}
_AD_UNDERLINE = re.compile(r"^([=\-~^+])\1+\s*$")
#: What a two-line title's text opens with: a letter, a digit or a code span.
_AD_TITLE_TEXT = re.compile(r"^[\w`]")


def two_line_level(title: str, underline: str) -> int | None:
    """The heading level of ``title`` over ``underline`` as a two-line AsciiDoc title
    (``NAME`` over ``----``: 2), or None: the underline is one character repeated
    (``=`` 1, ``-`` 2, ``~`` 3, ``^`` 4, ``+`` 5) as long as the title, give or take one,
    and the title opens with a letter, a digit or a code span and does not end with a
    colon (a paragraph's "For example:" over a listing block's ``------------``).

    Example:
        >>> two_line_level("SYNOPSIS", "--------"), two_line_level("git-log(1)", "==========")
        (2, 1)
        >>> two_line_level("Run this:", "---------"), two_line_level("Usage", "----------")
        (None, None)
    """
    m = _AD_UNDERLINE.match(underline)
    text = title.strip()
    if m is None or not text or title[:1].isspace() or not _AD_TITLE_TEXT.match(text):
        return None
    if text.endswith(":") or abs(len(underline.strip()) - len(text)) > 1:
        return None
    return _AD_UNDERLINES[m.group(1)]


def asciidoc_to_markdown(text: str) -> str:
    """``text`` (AsciiDoc) as Markdown, line for line (see the module doc)."""
    out: list[str] = []
    fence: str | None = None  # the delimiter of the open listing block
    comment = False
    language = ""
    lines = text.split("\n")
    title: int | None = None  # the level of the two-line title whose underline is next
    for i, line in enumerate(lines):
        if title is not None:  # the underline of the title above: a blank line
            title = None
            out.append("")
        elif comment:
            comment = not _AD_COMMENT_BLOCK.match(line)
            out.append("")
        elif fence is not None:
            closed = line.strip() == fence
            fence = None if closed else fence
            out.append("```" if closed else line)
        elif _AD_COMMENT_BLOCK.match(line):
            comment = True
            out.append("")
        elif i + 1 < len(lines) and (level := two_line_level(line, lines[i + 1])) is not None:
            title = level
            out.append("#" * level + " " + _asciidoc_inline(line.strip()))
        elif m := _AD_LISTING.match(line):
            fence = m.group(1)
            out.append("```" + language)
            language = ""
        else:
            if m := _AD_SOURCE.match(line):
                language = m.group(1)
            out.append(_asciidoc_line(line))
    return "\n".join(out)


def _asciidoc_line(line: str) -> str:
    """One AsciiDoc line outside listing blocks and comments, as Markdown."""
    if m := _AD_HEADING.match(line):
        return "#" * len(m.group(1)) + " " + _asciidoc_inline(m.group(2))
    if _AD_DELIMITER.match(line) or (not line[:1].isspace() and _AD_DROPPED.match(line.rstrip())):
        return ""
    if m := _AD_ADMONITION.match(line):
        return f"**{m.group(1).capitalize()}:** " + _asciidoc_inline(line[m.end() :])
    if m := _AD_BLOCK_TITLE.match(line):
        return f"**{_asciidoc_inline(m.group(1))}**"
    if m := _AD_LIST.match(line):
        depth, item = len(m.group(1)) - 1, _asciidoc_inline(m.group(2))
        return "  " * depth + ("- " if m.group(1)[0] == "*" else "1. ") + item
    if m := _AD_LABEL.match(line):
        return f"**{_asciidoc_inline(m.group(1))}**"
    if line[:1].isspace():  # a description under its term, or a literal line: text, not code
        return escape_line(_asciidoc_inline(line))
    return _asciidoc_inline(line)


def _asciidoc_inline(text: str) -> str:
    text = _AD_XREF.sub(lambda m: f"[{m.group(2) or m.group(1)}]({m.group(1)})", text)
    text = _AD_URL.sub(lambda m: f"[{m.group(2) or m.group(1)}]({m.group(1)})", text)
    text = _AD_MACRO.sub(lambda m: m.group(1) or m.group(2), text)
    return _AD_ANCHOR_REF.sub(lambda m: m.group(2) or m.group(1), text)


__all__ = ["asciidoc_to_markdown", "org_to_markdown", "two_line_level"]
