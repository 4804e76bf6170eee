"""MDX: Markdown with JSX, read as Markdown once the JSX is stripped (its text kept).

Outside fenced code: top-level ``import``/``export`` statements (an ``export``
spanning lines up to its balanced braces) and ``{/* comments */}`` are removed;
JSX tags (``<Note type="tip">``, ``</Note>``, ``<Chart />``: a capitalised or
dotted name) are removed and the text between them kept, except that an opening
tag alone on its line with a ``label`` or ``title`` (``<TabItem value="mac"
label="macOS">``, ``<Accordion title="Pricing">``) leaves that label in bold:
it says what the content under it is for (a card's ``description`` follows it). A tag
whose attributes take several lines (``<LinkCard`` ... ``/>``, braces and template
strings inside) is read as one; a tag inside inline code (`` `<Aside>` ``) is text,
not a tag. Removed lines stay as
blank lines, so line numbers still point into the file. Front matter is read
as in Markdown. A ``.md`` file is read the same way when it imports as MDX does
(:func:`has_esm`: ``import X from '@theme/X'`` on a line of its own outside
code), as Docusaurus and Nextra read every ``.md`` page.

Example:
    >>> print(strip_mdx("import X from 'x'\\n\\n# Hi\\n\\n<Note>Be careful.</Note>\\n"))
    <BLANKLINE>
    <BLANKLINE>
    # Hi
    <BLANKLINE>
    Be careful.
    <BLANKLINE>
"""

from __future__ import annotations

import re

from sectio.ingest.md_parse import FENCE_LINE

_STATEMENT = re.compile(r"^(import|export)\s")
#: An ES module import on a line of its own (``import Tabs from '@theme/Tabs';``).
_ESM_IMPORT = re.compile(r"""^import\s+(?:[\w*{}\s,]+\s+from\s+)?["'][^"']+["'];?\s*$""")
_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.DOTALL)
_JSX = re.compile(r"</?[A-Z][\w.]*(?:\s(?:[^<>{}]|\{[^{}]*\})*)?/?>|<>|</>")
#: An inline code span (its backticks, its text): no tag is removed inside one.
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
#: A tag's ``description`` (a card's text).
_DESCRIPTION = re.compile(r"""\sdescription\s*=\s*(?:"([^"]*)"|'([^']*)')""")
#: A line that opens with a capitalised (component) tag.
_TAG_START = re.compile(r"^\s*<[A-Z][\w.]*(?:[\s/>]|$)")
#: The most lines one tag may span.
_TAG_LINES = 200
#: The ``label`` / ``title`` string of a tag (the first one written).
_LABEL = re.compile(
    r"""\s(?:label|title)\s*=\s*(?:"([^"]*)"|'([^']*)'|\{\s*["']([^"']*)["']\s*\})"""
)


def _balance(line: str) -> int:
    return (
        line.count("{")
        + line.count("(")
        + line.count("[")
        - line.count("}")
        - line.count(")")
        - line.count("]")
    )


def has_esm(text: str) -> bool:
    """Whether Markdown ``text`` imports a module as MDX does, on a line outside fenced code."""
    fenced = False
    for line in text.split("\n"):
        if FENCE_LINE.match(line):
            fenced = not fenced
        elif not fenced and _ESM_IMPORT.match(line):
            return True
    return False


def _attribute(tag: str, pattern: re.Pattern[str]) -> str:
    """The first string ``pattern`` finds in ``tag`` ('' for none)."""
    found = pattern.search(tag)
    return next((g for g in found.groups() if g), "").strip() if found else ""


def _jsx_line(line: str) -> str:
    """``line`` without its JSX tags (not inside inline code: `` `<Card>` `` is text); a
    labelled opening tag alone on it is its label (and its ``description``, a card's)."""
    tag = _JSX.fullmatch(line.strip())
    text = _tag_text(tag.group(0)) if tag is not None else ""
    if text:
        return line[: len(line) - len(line.lstrip())] + text
    out, at = [], 0
    for span in _CODE_SPAN.finditer(line):
        out += [_JSX.sub("", line[at : span.start()]), span.group(0)]
        at = span.end()
    return "".join([*out, _JSX.sub("", line[at:])])


def _tag_end(lines: list[str], i: int) -> tuple[int, int] | None:
    """Where the JSX tag that opens line ``i`` ends: (line, column of its ``>``), braces,
    quotes and template strings skipped (``style={{ a: 'b' }}``, ``code={`...`}``, over
    several lines: ``<LinkCard`` ... ``/>``); None when the line opens no tag or it does
    not close within :data:`_TAG_LINES` lines."""
    if not _TAG_START.match(lines[i]):
        return None
    depth, quote = 0, ""
    start = len(lines[i]) - len(lines[i].lstrip()) + 1
    for j in range(i, min(len(lines), i + _TAG_LINES)):
        line = lines[j]
        if j > i and not line.strip() and not (depth or quote):
            return None  # a blank line outside braces: no tag after all
        for col in range(start if j == i else 0, len(line)):
            ch = line[col]
            if quote:
                quote = "" if ch == quote else quote
            elif ch in "\"'`":
                quote = ch
            elif ch in "{}":
                depth += 1 if ch == "{" else -1
            elif ch == ">" and depth == 0:
                return j, col
    return None


def _tag_text(tag: str) -> str:
    """A tag read as one (several lines joined): its label and description, or nothing."""
    label = _attribute(tag, _LABEL)
    if not label or tag.startswith(("</", "<>")):
        return ""
    about = _attribute(tag, _DESCRIPTION)
    return f"**{label}**" + (f" {about}" if about else "")


def strip_mdx(text: str) -> str:
    """``text`` (MDX) as plain Markdown with the same number of lines; see above."""
    lines = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text).split("\n")
    out: list[str] = []
    fenced = False
    depth = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if depth > 0:
            depth += _balance(line)
            out.append("")
            continue
        if FENCE_LINE.match(line):
            fenced = not fenced
        if fenced or FENCE_LINE.match(line):
            out.append(line)
            continue
        if _STATEMENT.match(line):
            depth = max(_balance(line), 0)
            out.append("")
            continue
        end = _tag_end(lines, i - 1)
        if end is not None and (end[0] > i - 1 or not _JSX.match(line.lstrip())):
            # a tag the one-line pattern cannot read (over several lines, nested braces):
            # read as one, what follows it on its last line kept, the line count kept
            last, col = end
            tag = " ".join(x.strip() for x in [*lines[i - 1 : last], lines[last][: col + 1]])
            indent = line[: len(line) - len(line.lstrip())]
            rest = _jsx_line(lines[last][col + 1 :]).strip()
            joined = " ".join(t for t in (_tag_text(tag.strip()), rest) if t)
            out.extend([indent + joined if joined else "", *[""] * (last - i + 1)])
            i = last + 1
            continue
        out.append(_jsx_line(line))  # MDX has no indented code: an indented tag is a tag
    return "\n".join(out)


__all__ = ["has_esm", "strip_mdx"]
