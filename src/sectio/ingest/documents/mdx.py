"""MDX: Markdown with JSX, read as Markdown once the JSX is stripped (its text kept).

Outside fenced code: top-level ``import``/``export`` statements (an ``export``
spanning lines up to its balanced braces) and ``{/* comments */}`` are removed;
JSX tags (``<Note type="tip">``, ``</Note>``, ``<Chart />``: a capitalised or
dotted name) are removed and the text between them kept, except that an opening
tag alone on its line with a ``label`` or ``title`` (``<TabItem value="mac"
label="macOS">``, ``<Accordion title="Pricing">``) leaves that label in bold:
it says what the content under it is for. Removed lines stay as
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

_FENCE = re.compile(r"^\s*(```|~~~)")
_STATEMENT = re.compile(r"^(import|export)\s")
#: An ES module import on a line of its own (``import Tabs from '@theme/Tabs';``).
_ESM_IMPORT = re.compile(r"""^import\s+(?:[\w*{}\s,]+\s+from\s+)?["'][^"']+["'];?\s*$""")
_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.DOTALL)
_JSX = re.compile(r"</?[A-Z][\w.]*(?:\s(?:[^<>{}]|\{[^{}]*\})*)?/?>|<>|</>")
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
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and _ESM_IMPORT.match(line):
            return True
    return False


def _jsx_line(line: str) -> str:
    """``line`` without its JSX tags; a labelled opening tag alone on it is its label."""
    tag = _JSX.fullmatch(line.strip())
    if tag is not None and not tag.group(0).startswith(("</", "<>")):
        found = _LABEL.search(tag.group(0))
        label = next((g for g in found.groups() if g), "") if found else ""
        if label.strip():
            return line[: len(line) - len(line.lstrip())] + f"**{label.strip()}**"
    return _JSX.sub("", line)


def strip_mdx(text: str) -> str:
    """``text`` (MDX) as plain Markdown with the same number of lines; see above."""
    text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    out: list[str] = []
    fenced = False
    depth = 0
    for line in text.split("\n"):
        if depth > 0:
            depth += _balance(line)
            out.append("")
            continue
        if _FENCE.match(line):
            fenced = not fenced
        if fenced or _FENCE.match(line):
            out.append(line)
            continue
        if _STATEMENT.match(line):
            depth = max(_balance(line), 0)
            out.append("")
            continue
        out.append(_jsx_line(line) if not line.startswith("    ") else line)
    return "\n".join(out)


__all__ = ["has_esm", "strip_mdx"]
