"""MyST Markdown (Jupyter Book, Sphinx with myst-parser), read as the Markdown it means.

A MyST page writes its notes, tips, definitions and layout as fences whose info
string opens with ``{name}`` (```` ```{note} ````, ```` ````{admonition} Title ````,
``:::{seealso}``), its cross-references as roles (``{class}`~napari.Viewer```,
``{ref}`the guide <target>```), its heading targets as ``(label)=`` lines and its
comments as ``% ...`` lines. Read as plain CommonMark, every directive is a code
block whose "language" is ``{note}``: a note's prose is code, its ``:label:`` and
``:class:`` options are text, and a ``{toctree}`` lists file names as if they were
content. Here, outside fenced code:

* a directive of prose (an admonition: ``note``, ``tip``, ``warning``, ``seealso``,
  ``admonition``, ``dropdown``, ``versionadded``, an unknown name ...) becomes a
  quote led by its kind and title in bold (``> **Note: Title**``), its content quoted
  under it: a ``!!! note`` admonition reads the same, and the parser keeps such a
  quote a chunk of its own (:mod:`~sectio.ingest.md_parse`), as it was when read as
  code: a question about the note finds the note, not the note packed in with the
  paragraphs around it;
* a directive of code (``code-block``, ``code``, ``code-cell``, ``sourcecode``,
  ``mermaid``, ``math``) becomes fenced code in its language (a notebook cell's
  ``ipython3`` is ``python``), its options left out;
* a layout directive (``grid``, ``grid-item-card``, ``tab-set``, ``tab-item``,
  ``card``, ``figure``, ...) keeps its content as the page's own, its title in bold;
* a directive that holds no prose of the page (``toctree``, ``raw``, ``include``,
  ``eval-rst``, ``image``, ``tableofcontents``, the ``auto*`` of Sphinx autodoc) is
  left out with what it holds;
* a role becomes its text: the title of ``{ref}`title <target>```, a code role's
  name in code (``{class}`~napari.Viewer``` -> ```napari.Viewer```), an icon role
  nothing;
* ``(label)=`` target lines, ``% comment`` lines and ``+++`` cell breaks are left out.

Line numbers are kept (a left-out line stays, blank), so a chunk's lines are the
file's. Only a page with MyST in it is read so (:func:`has_myst`): R Markdown and
Quarto cells (```` ```{r} ````, ```` ```{python} ````) are code in that language.

Example:
    >>> print(read_myst("```{note} Careful\\n:class: dropdown\\nKeep {kbd}`Ctrl` down.\\n```"))
    > **Note: Careful**
    >
    > Keep `Ctrl` down.
    <BLANKLINE>
    >>> cell = "(intro)=\\n```{code-cell} ipython3\\n---\\ntags: [hide]\\n---\\nx = 1\\n```"
    >>> print(read_myst(cell))
    <BLANKLINE>
    <BLANKLINE>
    <BLANKLINE>
    <BLANKLINE>
    ```python
    x = 1
    ```
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A directive's opening fence: indent, the fence (3+ backticks, tildes or colons), the
#: directive's name in braces, and its arguments.
_OPEN = re.compile(r"^(\s*)(`{3,}|~{3,}|:{3,})\{([A-Za-z][\w:.+-]*)\}\s*(.*?)\s*$")
#: A plain code fence's opening (no directive).
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
#: An option line of a directive (``:class: tip``), right after its opening.
_OPTION = re.compile(r"^\s*:[\w-]+:(?:\s.*)?$")
#: A role: ``{name}`content```.
_ROLE = re.compile(r"\{([A-Za-z][\w:.+-]*)\}`([^`\n]+)`")
#: A heading target line (``(label)=``), a comment line, a notebook cell break.
_TARGET = re.compile(r"^\s*\([\w.:-]+\)=\s*$")
_COMMENT = re.compile(r"^%(?:\s.*)?$")
_CELL_BREAK = re.compile(r"^\+\+\+(?:\s.*)?$")
#: A page's MyST: a directive fence, a role, or a heading target line.
_MYST = re.compile(
    r"^\s*(?:`{3,}|~{3,}|:{3,})\{[A-Za-z][\w:.+-]*\}|\{[A-Za-z][\w:.+-]*\}`[^`\n]+`|^\([\w.:-]+\)=\s*$",
    re.MULTILINE,
)

#: Directives of code: fenced code in their first argument's language (else their own).
CODE = frozenset({"code-block", "code", "sourcecode", "code-cell", "mermaid", "math", "graphviz"})
#: Directives whose content is the page's own, laid out (their title in bold, no quote).
LAYOUT = frozenset(
    {
        "grid",
        "grid-item",
        "grid-item-card",
        "card",
        "card-carousel",
        "tab-set",
        "tab-item",
        "tabbed",
        "div",
        "container",
        "only",
        "rst-class",
        "cssclass",
        "figure",
        "glossary",
        "list-table",
        "csv-table",
        "table",
        "button-ref",
        "button-link",
        "centered",
        "rubric",
        "epigraph",
        "highlights",
        "pull-quote",
    }
)
#: Directives that hold none of the page's prose: left out with what they hold.
DROP = frozenset(
    {
        "toctree",
        "raw",
        "include",
        "literalinclude",
        "eval-rst",
        "image",
        "tableofcontents",
        "contents",
        "currentmodule",
        "autosummary",
        "automodule",
        "autoclass",
        "autofunction",
        "automethod",
        "autoattribute",
        "autodata",
        "bibliography",
        "index",
        "meta",
        "iframe",
        "video",
        "youtube",
    }
)
#: Labels of the directives named otherwise than their name.
LABELS = {
    "seealso": "See also",
    "versionadded": "New in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
}
#: Notebook kernels named for their language.
KERNELS = {"ipython3": "python", "ipython": "python", "python3": "python", "ir": "r"}
#: R Markdown and Quarto cells (```` ```{r} ````): code in that language, not MyST.
CELL_LANGUAGES = frozenset({"r", "python", "julia", "bash", "sql", "ojs", "sh", "rcpp", "stan"})
#: Roles whose text is a name in code (Sphinx's cross-references to code and the like).
CODE_ROLES = frozenset(
    {
        "class",
        "func",
        "meth",
        "attr",
        "mod",
        "obj",
        "data",
        "exc",
        "const",
        "any",
        "command",
        "file",
        "program",
        "envvar",
        "option",
        "kbd",
        "samp",
        "literal",
        "code",
        "math",
        "eq",
    }
)
#: Roles of text (a reference's title, a term): with :data:`CODE_ROLES`, the roles that
#: tell a MyST page (:func:`has_myst`).
ROLES = frozenset(
    {"ref", "doc", "term", "numref", "abbr", "download", "guilabel", "menuselection", "dfn",
     "sub-ref", "cite", "footcite", "octicon", "fa", "bdg", "tag", "plugin", "pep", "rfc"}
)  # fmt: skip
#: Roles that draw an icon or a badge: nothing to read.
ICON_PREFIXES = ("octicon", "fa", "fas", "far", "fab", "material-", "bdg")


def has_myst(text: str) -> bool:
    """Whether ``text`` writes MyST: a ``{name}`` directive fence (not an R Markdown or
    Quarto cell), a role of Sphinx's or MyST's (``{ref}`...```, ``{py:func}`...```; not
    any word in braces before a code span: ```${count}`` and ...``) or a ``(label)=``
    target line.

    Example:
        >>> has_myst("See {ref}`intro`."), has_myst("Use `${count}` and `x`.")
        (True, False)
    """
    for m in _MYST.finditer(text):
        found = m.group(0)
        role = _ROLE.match(found)
        if role is not None:
            name = role.group(1).lower()
            if name in ROLES or name in CODE_ROLES or ":" in name:
                return True
            continue
        opened = _OPEN.match(found)
        if opened is None or opened.group(3).lower() not in CELL_LANGUAGES:
            return True
    return False


@dataclass
class _Open:
    """A fence open at this point: how it closes, what its lines become, their prefixes."""

    marker: str  # the fence that opened it, e.g. "````" or ":::" (closed by its like)
    kind: str  # "prose" | "code" | "layout" | "drop" | "plain" (code as written)
    outer: str  # the quote prefix of the lines around it
    inner: str  # the quote prefix of its content ("> " more inside a prose directive)
    fence: str = ""  # the fence a code block is written with (a ``:::`` one is "```")


def _closes(line: str, opened: _Open) -> bool:
    """Whether ``line`` closes the fence ``opened`` (the same character, as long or longer,
    nothing after it)."""
    s = line.strip()
    return len(s) >= len(opened.marker) and s == opened.marker[0] * len(s)


def _kind(name: str) -> str:
    name = name.lower()
    if name in CODE:
        return "code"
    if name in LAYOUT:
        return "layout"
    if name in DROP or name.startswith("auto"):
        return "drop"
    return "prose"


def _title(args: str) -> str:
    """A directive's title (its arguments) as plain text: roles read, bold marks out."""
    return read_roles(args).replace("**", "").strip()


def _label(name: str, args: str) -> str:
    """A directive's label: its kind (``Note``), and its title where it has one (an
    ``admonition``'s or a ``dropdown``'s title alone)."""
    plain = name.split(":")[-1].lower()
    title = _title(args)
    if plain in ("admonition", "dropdown") and title:
        return title
    kind = LABELS.get(plain, plain.replace("-", " ").capitalize())
    return kind + (f": {title}" if title else "")


def read_role(name: str, content: str) -> str:
    """One role as Markdown text: a code role's name in code (``~`` and ``!`` dropped, a
    title given in ``title <target>`` kept), an icon nothing, any other role its title or
    its content.

    Example:
        >>> read_role("class", "~napari.Viewer"), read_role("ref", "the guide <guide-ref>")
        ('`napari.Viewer`', 'the guide')
        >>> read_role("doc", "../howtos/layers"), read_role("octicon", "book;1em")
        ('../howtos/layers', '')
    """
    low = name.lower()
    if low.startswith(ICON_PREFIXES):
        return ""
    titled = re.match(r"^(.*?)\s*<([^<>]+)>\s*$", content, re.DOTALL)
    text = content.strip()
    if titled is not None:
        text = titled.group(1).strip() or titled.group(2).strip()
    if low.split(":")[-1] in CODE_ROLES:
        return f"`{text.lstrip('~!')}`"
    return text


#: A role, or a code span (left as written: a role shown in code is no role).
_ROLE_OR_CODE = re.compile(_ROLE.pattern + r"|(?<!`)(`+)(?!`).+?(?<!`)\3(?!`)")


def read_roles(line: str) -> str:
    """Every role of ``line`` read (:func:`read_role`); code spans left as written.

    Example:
        >>> read_roles("Use {func}`napari.run` here, not `{func}` or {kbd}`Ctrl+C`.")
        'Use `napari.run` here, not `{func}` or `Ctrl+C`.'
        >>> read_roles("Write `` {ref}`target` `` for a link.")
        'Write `` {ref}`target` `` for a link.'
    """
    return _ROLE_OR_CODE.sub(
        lambda m: m.group(0) if m.group(3) else read_role(m.group(1), m.group(2)), line
    )


def _quoted(prefix: str, line: str) -> str:
    """``line`` under the quote ``prefix`` (a blank line as the bare quote mark, so the
    quote goes on)."""
    if not prefix:
        return line
    return prefix + line if line.strip() else prefix.rstrip()


def _options(lines: list[str], start: int) -> int:
    """How many lines from ``start`` are a directive's options: a ``---`` block (YAML, up
    to its closing ``---``) or ``:name: value`` lines."""
    if start < len(lines) and lines[start].strip() == "---":
        end = next((j for j in range(start + 1, len(lines)) if lines[j].strip() == "---"), None)
        return 0 if end is None else end - start + 1
    n = 0
    while start + n < len(lines) and _OPTION.match(lines[start + n]):
        n += 1
    return n


def read_myst(text: str) -> str:
    """``text`` (a MyST page) as Markdown, line for line (see the module doc)."""
    out: list[str] = []
    stack: list[_Open] = []
    lines = text.split("\n")
    options_end = -1  # the last line of the open directive's options
    fence = ""  # a code directive's fence, written on its options' last line
    for idx, line in enumerate(lines):
        top = stack[-1] if stack else None
        dropped = any(o.kind == "drop" for o in stack)
        here = top.inner if top else ""
        blank = "" if dropped else here.rstrip()
        if idx <= options_end:  # an option: left out (a code fence moved down to its end)
            out.append(fence if idx == options_end and fence else blank)
            continue
        if top is not None and (top.kind in ("code", "plain") or _closes(line, top)):
            if _closes(line, top):
                stack.pop()
                code = top.kind in ("code", "plain")
                out.append(_quoted(top.outer, top.fence) if code and not dropped else "")
                if not code and not dropped:
                    out[-1] = top.outer.rstrip()
            else:
                out.append("" if dropped else _quoted(here, line))
            continue
        opened = _OPEN.match(line)
        plain = _FENCE.match(line)
        if opened is not None and opened.group(3).lower() not in CELL_LANGUAGES:
            marker, name, args = opened.group(2), opened.group(3), opened.group(4)
            kind = _kind(name)
            options_end, fence = idx + _options(lines, idx + 1), ""
            if kind == "code":
                written = marker if marker[0] != ":" else "```"
                lang = (args.split()[0] if args else name).lower()
                stack.append(_Open(marker, kind, here, here, written))
                fence = "" if dropped else _quoted(here, written + KERNELS.get(lang, lang))
                out.append(blank if options_end > idx else fence)
            elif kind == "prose":
                stack.append(_Open(marker, kind, here, here + "> "))
                out.append("" if dropped else _quoted(here, f"> **{_label(name, args)}**"))
            else:
                stack.append(_Open(marker, kind, here, here))
                title = _title(args) if kind == "layout" else ""
                out.append(_quoted(here, f"**{title}**") if title and not dropped else blank)
            continue
        if opened is not None or plain is not None:  # a cell or a plain fence: code as written
            marker = (opened or plain).group(2)  # type: ignore[union-attr]
            written = f"{marker}{opened.group(3).lower()}" if opened is not None else line
            stack.append(_Open(marker, "plain", here, here, marker))
            out.append("" if dropped else _quoted(here, written))
            continue
        if dropped or _TARGET.match(line) or _COMMENT.match(line) or _CELL_BREAK.match(line):
            out.append(blank)
            continue
        out.append(_quoted(here, read_roles(line)))
    return "\n".join(out)
