"""Parse one Markdown file into sections and blocks (markdown-it-py, CommonMark + tables).

The parser keeps the source: every block is a slice of the original lines, so
a chunk shows exactly what the file says (links, code, tables). It records:

* front matter (YAML between leading ``---`` lines; a malformed one is ignored);
* sections: one per heading, keyed by the slug of the heading path, with the
  MkDocs anchor of the heading (``<a name=...>`` wins over the slug);
* blocks inside a section, in order: ``prose`` (paragraphs, lists, quotes),
  ``code`` (fenced or indented code) and ``table``. A fence or table nested in
  a list or a quote is cut out of it as a block of its own, so no chunk ever
  splits one;
* inline facts per block: links (href + text), code spans, bold terms;
* ordered lists (procedures) with their items.

MkDocs conventions handled: ``{!file!}`` includes of non-Markdown files under
the corpus root are expanded (a Markdown include is recorded, not copied),
``!!! note`` admonitions are read as quotes instead of indented code and GitHub's
alerts (``> [!NOTE]``) as quotes led by their kind in bold (a quote led by a label in
bold alone, an admonition's, is a note: a chunk of its own, the quote marks left out of
the code in it), and
Material's content tabs (``=== "Linux"``) as their label in bold followed by
their content, not as indented code. Container directives of Docusaurus,
Starlight and VitePress (``:::tip Before you begin`` ... ``:::``, ``:::note[Title]``,
``::: warning``) and the blocks of ``pymdownx.blocks`` (``/// note | Title`` ... ``///``)
are read as their kind and title in bold, then their content
(the ``:::`` lines themselves never reach a chunk), and HTML ``<details>`` blocks
as their ``<summary>`` in bold and their content; not inside fenced code.

Example:
    >>> doc = parse_markdown("# Title\\n\\nHello [x](b.md).\\n\\n```sh\\nls\\n```\\n", "a.md")
    >>> doc.title, [b.kind for b in doc.sections[0].blocks], doc.sections[0].blocks[0].links
    ('Title', ['prose', 'code'], [('b.md', 'x')])
"""

from __future__ import annotations

import datetime as _dt
import re
import textwrap
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])

_INCLUDE = re.compile(r"^(\s*)\{!\s*(.+?)\s*!\}\s*$")
_ADMONITION = re.compile(r"^(\s*)(?:!!!|\?\?\?\+?)\s*([\w-]+)(?:\s+\"([^\"]*)\")?\s*$")
#: A GitHub alert's first line (``> [!NOTE]``, ``> [!WARNING]``): the quote under it is a note.
_ALERT = re.compile(r"^(\s*>\s*)\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*$", re.IGNORECASE)
#: A content tab of MkDocs Material (``=== "Linux"``), its content indented under it.
_TAB = re.compile(r'^(\s*)===\+?\s+"([^"]*)"\s*$')
#: A container directive (Docusaurus and Starlight ``:::tip Title`` or ``:::note[Title]``,
#: VitePress ``::: warning``) opening a block its bare ``:::`` line closes.
_DIRECTIVE = re.compile(r"^(\s*):{3,}\s*([A-Za-z][\w-]*)\s*(?:\[([^\]]*)\]|\{[^}]*\})?\s*(.*?)\s*$")
_DIRECTIVE_END = re.compile(r"^\s*:{3,}\s*$")
#: A block of Python Markdown's ``pymdownx.blocks`` (MkDocs sites: FastAPI, Typer,
#: SQLModel): ``/// note | Title`` opens it, a bare ``///`` closes it.
_BLOCK = re.compile(r"^(\s*)/{3,}\s*([A-Za-z][\w-]*)\s*(?:\|\s*(.*?))?\s*$")
_BLOCK_END = re.compile(r"^\s*/{3,}\s*$")
#: A disclosure widget's lines (``<details>``, ``<summary>Why?</summary>``, ``</details>``).
_DETAILS = re.compile(r"^\s*</?details(?:\s[^>]*)?>\s*$", re.IGNORECASE)
_SUMMARY = re.compile(
    r"^(\s*)(?:<details(?:\s[^>]*)?>\s*)?<summary(?:\s[^>]*)?>(.*?)</summary>\s*$", re.IGNORECASE
)
#: A line that opens or closes fenced code (the converters before this parser use it too).
FENCE_LINE = re.compile(r"^\s*(```|~~~)")
#: A paragraph that is a label in bold alone (a directive's or a tab's, as read here).
_BOLD_LABEL = re.compile(r"\*\*[^*\n]+\*\*")
#: A quote's first line that is a label in bold alone: an admonition's (``!!! note``,
#: MyST's ``{note}``), read as a quote led by its kind and title.
_NOTE_LABEL = re.compile(r"^\s*>\s*\*\*[^*\n]+\*\*\s*$")
_ANCHOR_ATTR = re.compile(r"""<a\s[^>]*(?:name|id)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
_ATTR_LIST_ID = re.compile(r"\s*\{[^}]*#([\w-]+)[^}]*\}\s*$")

#: Largest included file copied into a page (bigger ones stay a reference).
MAX_INCLUDE_BYTES = 262_144


@dataclass
class Block:
    """A run of source lines of one kind inside a section."""

    kind: str  # "prose" | "code" | "table"
    text: str
    line: int  # 1-based first line in the original file
    end_line: int
    language: str = ""
    links: list[tuple[str, str]] = field(default_factory=list)  # (href, text)
    code_spans: list[str] = field(default_factory=list)
    bold_terms: list[tuple[str, str]] = field(default_factory=list)  # (term, rest of item)
    table_first_column: list[str] = field(default_factory=list)
    #: A note of its own (an admonition read as a quote led by its label in bold): the
    #: chunker packs it with no other block.
    alone: bool = False


@dataclass
class Procedure:
    """An ordered list: numbered steps, in order."""

    line: int
    end_line: int
    items: list[str]
    text: str


@dataclass
class Section:
    """One heading and the blocks under it (up to the next heading)."""

    key: str
    title: str
    level: int
    anchor: str
    heading_path: list[str]
    line: int
    blocks: list[Block] = field(default_factory=list)
    procedures: list[Procedure] = field(default_factory=list)
    heading_code: list[str] = field(default_factory=list)
    heading_links: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class ParsedDoc:
    """One parsed Markdown file."""

    path: str
    title: str
    front_matter: dict[str, Any]
    sections: list[Section]
    includes: list[str] = field(default_factory=list)  # included Markdown files (as written)
    first_heading: str | None = None

    @property
    def first_paragraph(self) -> str:
        """The first prose block of the document (plain-ish text), or ''; a quote, an HTML
        or table line, or a label alone in bold (a directive's, a tab's) only when no
        other prose follows."""
        fallback = ""
        for section in self.sections:
            for block in section.blocks:
                if block.kind != "prose":
                    continue
                text = block.text.strip()
                if not text.startswith((">", "<", "|")) and not _BOLD_LABEL.fullmatch(text):
                    return block.text
                fallback = fallback or block.text
        return fallback


# --- text helpers -------------------------------------------------------------------


def slugify(text: str) -> str:
    """A section-key slug: ASCII, lower case, words joined by ``-``.

    Example:
        >>> slugify("Why is my app `OutOfSync`?")
        'why-is-my-app-outofsync'
    """
    value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    value = re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")
    return value or "section"


def mkdocs_anchor(text: str) -> str:
    """The anchor MkDocs' ``toc`` extension gives a heading (its default slugify)."""
    value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def _plain_inline(token: Token | None) -> tuple[str, str | None, list[str], list[tuple[str, str]]]:
    """Plain text of an inline token, an explicit anchor, code spans and links in it."""
    if token is None or not token.children:
        return (token.content if token else ""), None, [], []
    parts: list[str] = []
    anchor: str | None = None
    codes: list[str] = []
    links: list[tuple[str, str]] = []
    href: str | None = None
    link_text: list[str] = []
    for child in token.children:
        if child.type == "html_inline":
            m = _ANCHOR_ATTR.search(child.content)
            if m and anchor is None:
                anchor = m.group(1)
            continue
        if child.type == "link_open":
            href = str(child.attrs.get("href") or "")
            link_text = []
            continue
        if child.type == "link_close":
            if href is not None:
                links.append((href, "".join(link_text).strip()))
            href = None
            continue
        piece = ""
        if child.type in ("text", "code_inline"):
            piece = child.content
            if child.type == "code_inline":
                codes.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            piece = " "
        elif child.type == "image":
            piece = child.content
        parts.append(piece)
        if href is not None:
            link_text.append(piece)
    return " ".join("".join(parts).split()), anchor, codes, links


def _yaml_safe(value: Any) -> Any:
    """Front-matter values made JSON-ready (dates become ISO strings)."""
    if isinstance(value, dict):
        return {str(k): _yaml_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_yaml_safe(v) for v in value]
    if isinstance(value, _dt.date | _dt.datetime):
        return value.isoformat()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def split_front_matter(text: str) -> tuple[dict[str, Any], str, int]:
    """Front matter (a dict, possibly empty), the body, and the body's first line offset."""
    if not text.startswith("---"):
        return {}, text, 0
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text, 0
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            body = "\n".join(lines[i + 1 :])
            try:
                data = yaml.safe_load("\n".join(lines[1:i]))
            except yaml.YAMLError:
                return {}, body, i + 1  # delimited but unreadable: dropped, not read as text
            return (_yaml_safe(data) if isinstance(data, dict) else {}), body, i + 1
    return {}, text, 0


# --- preprocessing --------------------------------------------------------------------


def _preprocess(
    body: str, read_include: Callable[[str], str | None] | None
) -> tuple[list[str], list[int], list[str]]:
    """Expand includes and admonitions. Returns lines, their original line numbers, md includes."""
    out: list[str] = []
    origin: list[int] = []
    md_includes: list[str] = []
    lines = body.split("\n")
    i = 0
    fenced = False
    while i < len(lines):
        line = lines[i]
        if FENCE_LINE.match(line):
            fenced = not fenced
        directive = None if fenced else _directive(line)
        if directive is not None:  # its label as a paragraph of its own (or a blank line)
            out.extend(directive)
            origin.extend([i] * len(directive))
            i += 1
            continue
        inc = _INCLUDE.match(line)
        if inc:
            target = inc.group(2)
            if target.lower().endswith((".md", ".markdown")):
                md_includes.append(target)
                i += 1
                continue
            content = read_include(target) if read_include else None
            if content is not None:
                indent = inc.group(1)
                for extra in content.rstrip("\n").split("\n"):
                    out.append(indent + extra if extra else extra)
                    origin.append(i)
                i += 1
                continue
        tab = _TAB.match(line)
        if tab:  # its label, then its content one level out (not an indented code block)
            indent, inner = tab.group(1), tab.group(1) + "    "
            out.append(f"{indent}**{tab.group(2)}**")
            origin.append(i)
            i += 1
            while i < len(lines) and (lines[i].startswith(inner) or not lines[i].strip()):
                nxt = i + 1
                if not lines[i].strip() and (nxt >= len(lines) or not lines[nxt].startswith(inner)):
                    break
                out.append(indent + lines[i][len(inner) :] if lines[i].strip() else "")
                origin.append(i)
                i += 1
            continue
        alert = _ALERT.match(line)
        if alert and not fenced:  # a GitHub alert: the quote led by its kind in bold
            out.append(f"{alert.group(1)}**{alert.group(2).capitalize()}**")
            origin.append(i)
            i += 1
            continue
        adm = _ADMONITION.match(line)
        if adm:
            indent, kind, title = adm.group(1), adm.group(2), adm.group(3)
            label = kind.capitalize() + (f": {title}" if title else "")
            out.append(f"{indent}> **{label}**")
            origin.append(i)
            inner = indent + "    "
            i += 1
            while i < len(lines) and (lines[i].startswith(inner) or not lines[i].strip()):
                if not lines[i].strip():
                    nxt = i + 1
                    if nxt >= len(lines) or not lines[nxt].startswith(inner):
                        break
                    out.append(f"{indent}>")
                else:
                    out.append(f"{indent}> {lines[i][len(inner) :]}")
                origin.append(i)
                i += 1
            continue
        out.append(line)
        origin.append(i)
        i += 1
    return out, origin, md_includes


def _directive(line: str) -> list[str] | None:
    """A container directive's line as Markdown: an opening line as its kind and title in
    bold (``:::tip Before you begin`` -> ``**Tip: Before you begin**``, ``/// note |
    Technical Details`` -> ``**Note: Technical Details**``), a closing ``:::`` or ``///``
    as a blank line; an HTML disclosure widget's alike (``<summary>Why?</summary>`` ->
    ``**Why?**``, ``<details>`` lines blank); None for any other line."""
    if _DIRECTIVE_END.match(line) or _BLOCK_END.match(line) or _DETAILS.match(line):
        return [""]
    summary = _SUMMARY.match(line)
    if summary is not None:  # a <details> block's title, as a directive's
        title = re.sub(r"<[^>]+>", "", summary.group(2)).strip()
        return [f"{summary.group(1)}**{title}**", ""] if title else [""]
    found = _DIRECTIVE.match(line) or _BLOCK.match(line)
    if found is None:
        return None
    indent, kind = found.group(1), found.group(2)
    title = next((g for g in found.groups()[2:] if g), "").strip()
    label = kind.capitalize() + (f": {title}" if title else "")
    return [f"{indent}**{label}**", ""]


# --- the parser -------------------------------------------------------------------------


def _one_blank_quote_line(text: str) -> str:
    """``text`` with each run of blank quote lines (``>`` alone, a read directive's
    options) cut to one, and none at its end.

    Example:
        >>> _one_blank_quote_line("> **Tip**\\n>\\n>\\n> Use it.")
        '> **Tip**\\n>\\n> Use it.'
    """
    out: list[str] = []
    for line in text.split("\n"):
        if _blank_quote(line) and out and _blank_quote(out[-1]):
            continue
        out.append(line)
    while len(out) > 1 and _blank_quote(out[-1]):  # nor one at the end (before a code cut)
        out.pop()
    return "\n".join(out)


def _blank_quote(line: str) -> bool:
    return bool(line.strip()) and not line.replace(">", "").strip()


def _unquote(line: str, quotes: int) -> str:
    """``line`` without the first ``quotes`` quote marks it opens with (``> `` each).

    Example:
        >>> _unquote("> > > prompt", 2), _unquote(">", 1)
        ('> prompt', '')
    """
    for _ in range(quotes):
        m = re.match(r"^ {0,3}> ?", line)
        if m is None:
            break
        line = line[m.end() :]
    return line


def _close_index(tokens: list[Token], start: int) -> int:
    """Index of the token closing the container opened at ``start``."""
    depth = 0
    for j in range(start, len(tokens)):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return len(tokens) - 1


class _Builder:
    def __init__(self, path: str, lines: list[str], origin: list[int], offset: int) -> None:
        self.path = path
        self.lines = lines
        self.origin = origin
        self.offset = offset
        self.sections: list[Section] = []
        self.stack: list[tuple[int, str]] = []  # (level, title)
        self.keys: set[str] = set()
        self.anchors: dict[str, int] = {}
        self.first_heading: str | None = None

    def line_no(self, idx: int) -> int:
        idx = min(max(idx, 0), len(self.origin) - 1) if self.origin else 0
        return (self.origin[idx] if self.origin else idx) + self.offset + 1

    def current(self) -> Section:
        if not self.sections:
            self.sections.append(
                Section(key="intro", title="", level=0, anchor="", heading_path=[], line=1)
            )
            self.keys.add("intro")
        return self.sections[-1]

    def heading(self, level: int, inline: Token | None, line_idx: int) -> None:
        title, anchor, codes, links = _plain_inline(inline)
        m = _ATTR_LIST_ID.search(title)
        if m:
            anchor = anchor or m.group(1)
            title = title[: m.start()].rstrip()
        if not title:
            title = "section"
        if self.first_heading is None:
            self.first_heading = title
        while self.stack and self.stack[-1][0] >= level:
            self.stack.pop()
        self.stack.append((level, title))
        heading_path = [t for _, t in self.stack]
        key = "/".join(slugify(t) for t in heading_path)
        base, n = key, 2
        while key in self.keys:
            key = f"{base}-{n}"
            n += 1
        self.keys.add(key)
        if anchor is None:
            anchor = mkdocs_anchor(title)
            seen = self.anchors.get(anchor)
            self.anchors[anchor] = (seen or 0) + 1
            if seen:
                anchor = f"{anchor}_{seen}"
        self.sections.append(
            Section(
                key=key,
                title=title,
                level=level,
                anchor=anchor,
                heading_path=heading_path,
                line=self.line_no(line_idx),
                heading_code=codes,
                heading_links=links,
            )
        )

    def source(self, start: int, end: int, dedent: bool = False) -> str:
        text = "\n".join(self.lines[start:end]).strip("\n")
        return textwrap.dedent(text) if dedent else text

    def add_block(
        self, kind: str, start: int, end: int, quotes: int = 0, **extra: Any
    ) -> Block | None:
        """A block of lines [start, end) of ``kind`` in the current section (None when
        blank); ``quotes``: the quote marks (``>``) each line of a block cut out of that
        many quotes opens with, left out (code inside a note reads as code)."""
        if quotes:
            lines = [_unquote(line, quotes) for line in self.lines[start:end]]
            text = textwrap.dedent("\n".join(lines).strip("\n"))
        else:
            text = self.source(start, end, dedent=kind != "prose")
        if not text.strip():
            return None
        if kind == "prose" and ">" in text:
            text = _one_blank_quote_line(text)
        block = Block(
            kind=kind, text=text, line=self.line_no(start), end_line=self.line_no(end - 1), **extra
        )
        self.current().blocks.append(block)
        return block

    def inline_facts(self, tokens: list[Token], lo: int, hi: int, block: Block) -> None:
        """Links, code spans and bold-led definitions of the inline tokens in [lo, hi)."""
        for j in range(lo, hi):
            tok = tokens[j]
            if tok.type != "inline":
                continue
            _, _, codes, links = _plain_inline(tok)
            block.code_spans.extend(codes)
            block.links.extend(links)
            kids = [k for k in (tok.children or []) if not (k.type == "text" and not k.content)]
            if len(kids) >= 3 and kids[0].type == "strong_open":
                close = next((n for n, k in enumerate(kids) if k.type == "strong_close"), None)
                if close is not None:
                    term = "".join(
                        k.content for k in kids[1:close] if k.type in ("text", "code_inline")
                    ).strip()
                    rest, _, _, _ = _plain_inline(
                        Token("inline", "", 0, children=kids[close + 1 :])
                    )
                    rest = rest.lstrip(" :-–—").strip()
                    if term and rest and len(term.split()) <= 6:
                        block.bold_terms.append((term.rstrip(":"), rest))

    def container(self, tokens: list[Token], i: int, close: int) -> None:
        """A top-level container (paragraph, list, quote): prose with nested blocks cut out."""
        tok = tokens[i]
        if tok.map is None:
            return
        start, end = tok.map
        cuts: list[tuple[int, int, int, str, str, int]] = []  # (start, end, token, kind, lang,
        # the quotes it is in)
        quotes = int(tok.type == "blockquote_open")
        j = i + 1
        while j < close:
            inner = tokens[j]
            if inner.type in ("blockquote_open", "blockquote_close"):
                quotes += inner.nesting
            if inner.type in ("fence", "code_block") and inner.map:
                cuts.append((inner.map[0], inner.map[1], j, "code", inner.info.strip(), quotes))
            elif inner.type == "table_open" and inner.map:
                cuts.append((inner.map[0], inner.map[1], j, "table", "", 0))
                j = _close_index(tokens, j)
            elif inner.type == "ordered_list_open" and inner.map:
                self.procedure(tokens, j)
            j += 1
        if tok.type == "ordered_list_open":
            self.procedure(tokens, i)
        alone = tok.type == "blockquote_open" and bool(_NOTE_LABEL.match(self.lines[start]))
        cursor = start
        lo_tok = i
        for c_start, c_end, c_tok, kind, lang, within in cuts:
            if c_start > cursor:
                block = self.add_block("prose", cursor, c_start, alone=alone)
                if block:
                    self.inline_facts(tokens, lo_tok, c_tok, block)
            if kind == "code":
                language = lang.split()[0] if lang else ""
                self.add_block("code", c_start, c_end, quotes=within, language=language)
            else:
                self.table(tokens, c_tok)
            cursor = c_end
            lo_tok = c_tok + 1
        if cursor < end:
            block = self.add_block("prose", cursor, end, alone=alone)
            if block:
                self.inline_facts(tokens, lo_tok, close + 1, block)

    def table(self, tokens: list[Token], i: int) -> None:
        tok = tokens[i]
        if tok.map is None:
            return
        close = _close_index(tokens, i)
        block = self.add_block("table", tok.map[0], tok.map[1])
        if block is None:
            return
        self.inline_facts(tokens, i, close + 1, block)
        row_first = True
        for j in range(i, close):
            t = tokens[j]
            if t.type == "tr_open":
                row_first = True
            elif t.type in ("td_open", "th_open"):
                if row_first and t.type == "td_open" and j + 1 < close:
                    cell, _, codes, _ = _plain_inline(tokens[j + 1])
                    block.table_first_column.append(codes[0] if codes else cell)
                row_first = False

    def procedure(self, tokens: list[Token], i: int) -> None:
        tok = tokens[i]
        if tok.map is None:
            return
        close = _close_index(tokens, i)
        items: list[str] = []
        depth = 0
        for j in range(i + 1, close):
            t = tokens[j]
            if t.type == "list_item_open":
                depth += 1
                if depth == 1:
                    first = next(
                        (tokens[n] for n in range(j + 1, close) if tokens[n].type == "inline"), None
                    )
                    text, _, _, _ = _plain_inline(first)
                    items.append(text)
            elif t.type == "list_item_close":
                depth -= 1
        if len(items) >= 2:
            self.current().procedures.append(
                Procedure(
                    line=self.line_no(tok.map[0]),
                    end_line=self.line_no(tok.map[1] - 1),
                    items=items,
                    text=self.source(tok.map[0], tok.map[1], dedent=True),
                )
            )


def parse_markdown(
    text: str, path: str, read_include: Callable[[str], str | None] | None = None
) -> ParsedDoc:
    """Parse ``text`` (the content of the file at corpus-relative ``path``).

    Args:
        text: the file's content.
        path: its corpus-relative POSIX path (the document id).
        read_include: returns the content of an included file (a path as written
            in ``{!...!}``), or None to leave the include alone.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    front, body, offset = split_front_matter(text)
    lines, origin, md_includes = _preprocess(body, read_include)
    builder = _Builder(path, lines, origin, offset)
    tokens = _MD.parse("\n".join(lines))
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.level != 0 or tok.nesting == -1:
            i += 1
            continue
        if tok.type == "heading_open":
            level = int(tok.tag[1:]) if tok.tag[1:].isdigit() else 1
            inline = tokens[i + 1] if i + 1 < len(tokens) else None
            builder.heading(level, inline, tok.map[0] if tok.map else 0)
            i = _close_index(tokens, i) + 1
            continue
        if tok.type in ("fence", "code_block") and tok.map:
            lang = tok.info.strip().split()[0] if tok.info.strip() else ""
            builder.add_block("code", tok.map[0], tok.map[1], language=lang)
            i += 1
            continue
        if tok.type == "table_open":
            builder.table(tokens, i)
            i = _close_index(tokens, i) + 1
            continue
        if tok.type == "html_block":
            if not tok.content.lstrip().startswith("<!--") and tok.map:
                builder.add_block("prose", tok.map[0], tok.map[1])
            i += 1
            continue
        if tok.type == "hr":
            i += 1
            continue
        close = _close_index(tokens, i) if tok.nesting == 1 else i
        builder.container(tokens, i, close)
        i = close + 1
    title = str(front.get("title") or "").strip() or builder.first_heading or stem_title(path)
    return ParsedDoc(
        path=path,
        title=title,
        front_matter=front,
        sections=builder.sections,
        includes=md_includes,
        first_heading=builder.first_heading,
    )


def stem_title(path: str) -> str:
    """A title from the file name (``.gz`` and a document ending dropped); a name that
    says nothing alone (``README``, ``copyright``, ``changelog.Debian``) is prefixed
    with its folder's: ``curl copyright``."""
    from sectio.ingest.documents import SUFFIXES, TEXT_NAMES

    parts = path.removesuffix(".gz").split("/")
    head, _, ending = parts[-1].rpartition(".")
    stem = head if head and f".{ending.lower()}" in SUFFIXES else parts[-1]
    title = " ".join(re.split(r"[-_\s]+", stem)).strip()
    if len(parts) > 1 and stem.split(".", 1)[0].lower() in TEXT_NAMES:
        title = f"{parts[-2]} {title}"
    return title or path


__all__ = [
    "FENCE_LINE",
    "Block",
    "ParsedDoc",
    "Procedure",
    "Section",
    "mkdocs_anchor",
    "parse_markdown",
    "slugify",
    "split_front_matter",
    "stem_title",
]
