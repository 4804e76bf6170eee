"""HTML: the page's content (not its navigation) as Markdown, headings with their anchors.

Read with the standard library's parser (lenient with broken HTML); no network,
nothing executed. The content is the ``<main>``, ``[role=main]`` or
``<article>`` holding the most text (when it holds a quarter of the page's
text or more; else the ``<body>``), without ``nav``, ``aside``, page
``header``/``footer`` (those inside the content are kept), forms, scripts,
styles, hidden elements and ``[role=navigation]``; read from the ``<body>``,
also without the blocks whose class or id names page furniture (``nav``,
``menu``, ``sidebar``, ``breadcrumb``, ``footer``, ``share``, ``related``, ...).

* ``h1``-``h6`` are headings; each keeps its anchor: its own ``id``, else an
  ``<a id|name>`` inside it, else the ``id`` of the ``<section>`` it opens;
* a paragraph that is a legal text's unit label alone ("Article 5", "CHAPTER II",
  "ANNEX III": the Official Journal's HTML styles them as paragraphs) is a heading,
  its level by the unit (annex and part, chapter, section, article), titled by the
  element after it when that reads as a title ("Article 5 - Prohibited AI practices");
* paragraphs, lists (nested ones flattened into their item), ``<pre>`` code,
  definition lists and quotes keep their order; ``<br>`` breaks a line;
* in paragraphs and list items, inline code (``<code>``, ``<tt>``, ``<kbd>``,
  ``<samp>``) is written in backticks and bold (``<strong>``, ``<b>``) in stars, as a
  Markdown page writes them: the docs catalog takes identifiers from code spans and
  terms from bold-led lines (headings and table cells stay plain text; see :func:`_mark`
  for what stays unmarked);
* an admonition box (``<div class="admonition note">`` with its ``admonition-title``, as
  docutils, Sphinx and MkDocs Material write a note; GitHub's ``markdown-alert``;
  Docusaurus' ``theme-admonition``) is a note, as the Markdown reader reads one: a quote
  led by its title in bold, a chunk of its own (one holding a heading, a table or a
  figure is read as other blocks are); ``<pre class="code python literal-block">``
  (docutils) is code in its language;
* a ``<table>`` is one Markdown table (header row first); one with merged cells
  (``colspan``/``rowspan``), a table inside a cell, or a cell that shows only an
  image (a status icon: what it says is not text) is flagged;
* a checkbox or radio ``<input>`` is ``[x]`` (checked) or ``[ ]`` (DOCX form
  fields come through mammoth as such inputs);
* a ``<figure>`` with an image is a flagged block holding its caption; a bare
  ``<img>`` keeps its ``alt`` text in the prose.

The title is the first ``h1``, else ``<title>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from sectio.ingest.documents.converted import Converted, MarkdownWriter
from sectio.ingest.documents.units import LABEL_HEAD, may_be_label, titled_label, unit_level

_VOID = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
    "source", "track", "wbr",
}  # fmt: skip
_DROP = {
    "script", "style", "noscript", "template", "svg", "nav", "aside", "form", "button",
    "iframe", "select", "textarea", "canvas", "head", "object", "dialog",
}  # fmt: skip
_PAGE_CHROME = {"header", "footer"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_BLOCKS = _HEADINGS | {
    "p", "div", "section", "article", "main", "ul", "ol", "li", "pre", "table", "blockquote",
    "dl", "dt", "dd", "figure", "figcaption", "details", "summary", "hr", "body", "header",
    "footer", "address",
}  # fmt: skip
#: An element closing these closes the ones left open inside it (lenient nesting).
_AUTO_CLOSE = {"p", "li", "dt", "dd", "tr", "td", "th", "option"}


@dataclass
class _El:
    tag: str
    attrs: dict[str, str]
    children: list[_El | str] = field(default_factory=list)

    def text(self, marked: bool = False) -> str:
        """The element's text, whitespace collapsed (``<br>`` a space); with ``marked``,
        code spans and bold written as Markdown marks them (:data:`_MARKS`)."""
        return " ".join(self._raw(marked).split())

    def head(self, n: int) -> str:
        """The first ``n`` characters of :meth:`text` (fewer when it is shorter), read no
        further than they need."""
        parts: list[str] = []
        seen = 0  # characters other than whitespace: the collapsed text has at least these
        for piece in self._pieces():
            parts.append(piece)
            seen += len("".join(piece.split()))
            if seen >= n:
                break
        return " ".join("".join(parts).split())[:n]

    def _raw(self, marked: bool = False) -> str:
        return "".join(self._pieces(marked))

    def _pieces(self, marked: bool = False) -> Iterator[str]:
        """The element's text in order, in pieces: strings, ``<br>`` as a line break, an
        image's alt text, a checkbox; blocks set apart by spaces; with ``marked``, code
        and bold in their Markdown marks (:func:`_mark`)."""
        for c in self.children:
            if isinstance(c, str):
                yield c
            elif marked and c.tag in _MARKS:
                yield _mark(c, _MARKS[c.tag])
            elif c.tag == "br":
                yield "\n"
            elif c.tag == "img":
                alt = c.attrs.get("alt", "").strip()
                yield f" [image: {alt}] " if alt else " "
            elif c.tag == "input" and c.attrs.get("type", "").lower() in ("checkbox", "radio"):
                yield " [x] " if "checked" in c.attrs else " [ ] "
            elif c.tag not in _DROP and not _hidden(c):
                block = c.tag in _BLOCKS
                if block:
                    yield " "
                yield from c._pieces(marked)
                if block:
                    yield " "

    def find(self, pred: object) -> list[_El]:
        out: list[_El] = []
        for c in self.children:
            if isinstance(c, _El):
                if pred(c):  # type: ignore[operator]
                    out.append(c)
                out.extend(c.find(pred))
        return out


#: Inline elements a Markdown page writes with marks: code spans in backticks (what the
#: Markdown reader takes identifiers from), bold in stars (what it takes a glossary
#: term from: "**Timeout**: how long ...").
_MARKS = {"code": "`", "tt": "`", "kbd": "`", "samp": "`", "strong": "**", "b": "**"}


def _mark(el: _El, mark: str) -> str:
    """``el``'s text between ``mark`` (its spaces outside the marks, inner whitespace
    collapsed): a code span's text as written (no marks inside it; fenced by one backtick
    more than the longest run it holds, padded where it starts or ends with one), bold's
    with its own code spans marked. Left unmarked: an element with no text (its spaces),
    one holding a block or a line break (its lines kept, as before marks were read), and
    bold with no letter or digit or with a star of its own ("*" marking a required field).

    Example:
        >>> _mark(_El("code", {}, [" a`b "]), "`")
        ' ``a`b`` '
        >>> _mark(_El("code", {}, ["``x"]), "`")
        '``` ``x ```'
        >>> _mark(_El("b", {}, ["Note: "]), "**")
        '**Note:** '
        >>> _mark(_El("b", {}, ["*"]), "**")
        '*'
    """
    code = mark == "`"
    raw = el._raw(marked=not code)
    inner = " ".join(raw.split())
    if not inner:
        return " " if raw else ""
    if el.find(lambda e: e.tag in _BLOCKS or e.tag == "br"):
        return raw
    if not code and ("*" in inner or not any(ch.isalnum() for ch in inner)):
        return raw
    lead = " " if raw[:1].isspace() else ""
    tail = " " if raw[-1:].isspace() else ""
    if code and "`" in inner:
        fence = "`" * (max(len(run) for run in re.findall(r"`+", inner)) + 1)
        pad = " " if inner.startswith("`") or inner.endswith("`") else ""
        return f"{lead}{fence}{pad}{inner}{pad}{fence}{tail}"
    return f"{lead}{mark}{inner}{mark}{tail}"


def _hidden(el: _El) -> bool:
    a = el.attrs
    style = a.get("style", "").replace(" ", "").lower()
    return (
        "hidden" in a
        or a.get("aria-hidden") == "true"
        or a.get("role") == "navigation"
        or "display:none" in style
    )


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _El("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _AUTO_CLOSE and self.stack[-1].tag == tag:
            self.handle_endtag(tag)
        el = _El(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(el)
        if tag not in _VOID:
            self.stack.append(el)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(_El(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse_html(text: str) -> _El:
    """The element tree of ``text`` (never raises on broken HTML)."""
    builder = _TreeBuilder()
    builder.feed(text)
    builder.close()
    return builder.root


def _content(root: _El) -> _El:
    """The content element: the ``main``, ``[role=main]`` or ``article`` holding the most
    text, when it holds a quarter of the body's text or more; else the body."""
    bodies = root.find(lambda e: e.tag == "body")
    body = bodies[0] if bodies else root
    candidates = root.find(lambda e: e.tag in ("main", "article") or e.attrs.get("role") == "main")
    if not candidates:
        return body
    best = max(candidates, key=lambda e: len(e.text()))
    return best if len(best.text()) >= 0.25 * len(body.text()) else body


_CHROME = re.compile(
    r"(^|[-_ ])(nav|navbar|navigation|menu|sidebar|breadcrumbs?|footer|masthead|cookies?|"
    r"share|sharing|social|related|comments?|advert|ads|banner|newsletter|skip-link)([-_ ]|$)",
    re.IGNORECASE,
)
_IMAGE_ALT = re.compile(r"\[image: [^\]]*\]")
#: What a heading's self-link or edit link adds to its text (``¶``, ``#``, ``[edit]``).
_SELF_LINK = re.compile(r"(\s*(¶|#|§|\[edit\]|\[\s*edit\s*\]))+\s*$")


def _chrome(el: _El) -> bool:
    """Page furniture by its class, or an id that is only such a word (a section's id
    such as ``sharing-with-a-team`` is content, and so is a titled section: one whose
    first element is a heading, as docutils writes ``<div class="section"
    id="cookies"><h2>Cookies</h2>``)."""
    name = el.attrs.get("id", "")
    whole = _CHROME.fullmatch(name) or _CHROME.fullmatch(f"-{name}-") if name else None
    if whole and not _CHROME.search(el.attrs.get("class", "")) and _titled(el):
        return False
    return bool(_CHROME.search(el.attrs.get("class", "")) or whole)


def _titled(el: _El) -> bool:
    """Whether ``el``'s first child element is a heading."""
    first = next((c for c in el.children if isinstance(c, _El)), None)
    return first is not None and first.tag in _HEADINGS


class _Writer:
    """Walks the content, block by block, into a :class:`MarkdownWriter`."""

    def __init__(self, drop_chrome: bool = False) -> None:
        self.w = MarkdownWriter()
        self.inline: list[str] = []
        self.h1 = ""
        self.drop_chrome = drop_chrome

    def flush(self) -> None:
        text = "".join(self.inline)
        self.inline = []
        lines = [" ".join(ln.split()) for ln in text.split("\n")]
        if any(lines):
            self.w.paragraph("\n".join(ln for ln in lines if ln))

    def walk(self, el: _El, section_id: str = "") -> None:
        taken = -1  # a unit label's title, written into its heading
        for i, c in enumerate(el.children):
            if isinstance(c, str):
                self.inline.append(c)
                continue
            if i == taken or c.tag in _DROP or _hidden(c) or (self.drop_chrome and _chrome(c)):
                continue
            first = section_id if i == _first_element(el) else ""
            labelled = c.tag in ("p", "div") and may_be_label(c.head(LABEL_HEAD))
            level = unit_level(c.text()) if labelled else None
            if level is not None:
                taken = self.unit_heading(el, i, level, first or c.attrs.get("id", ""))
                continue
            self.element(c, first)

    def unit_heading(self, parent: _El, at: int, level: int, anchor: str) -> int:
        """The unit label ``parent.children[at]`` ("Article 5", "CHAPTER II", "ANNEX III": a
        paragraph a legal text styles as its heading) as a heading of ``level``; the next
        element, when it reads as a title ("Prohibited AI practices"), is its title.
        Returns the index of that title element (-1: none)."""
        label = _text(parent.children[at])
        nxt = next(
            (j for j in range(at + 1, len(parent.children)) if isinstance(parent.children[j], _El)),
            -1,
        )
        titled = titled_label(label, _text(parent.children[nxt])) if nxt >= 0 else None
        self.flush()
        self.w.heading(level, titled or label, anchor=anchor)
        return nxt if titled else -1

    def element(self, el: _El, section_id: str) -> None:
        tag = el.tag
        if tag in _MARKS:
            self.inline.append(_mark(el, _MARKS[tag]))
            return
        if tag not in _BLOCKS and tag != "br" and tag != "img":
            self.inline.append(el._raw(marked=True))
            return
        if tag in ("br", "img"):
            self.inline.append("\n" if tag == "br" else _El("x", {}, [el])._raw())
            return
        self.flush()
        handler = getattr(self, f"on_{tag}", None)
        title = _admonition_title(el) if tag == "div" else None
        if title is not None:
            self.admonition(el, title)
        elif tag in _HEADINGS:
            self.heading(el, section_id)
        elif handler is not None:
            handler(el)
        else:
            own = el.attrs.get("id", "") if tag in ("section", "article", "div") else ""
            self.walk(el, own or section_id)
            self.flush()

    def admonition(self, el: _El, title: _El) -> None:
        """An admonition box (:func:`_admonition_title`) as a note: its title the label
        (its stars left out), the rest of its content quoted below it. A box holding a
        heading, a table or a figure is read as any other block (its headings stay
        sections with their anchors, its tables and figures keep their flags)."""
        if el.find(lambda e: e.tag in _HEADINGS or e.tag in ("table", "figure")):
            self.walk(el)
            self.flush()
            return
        inner = _Writer(drop_chrome=self.drop_chrome)
        inner.walk(_El("div", {}, [c for c in el.children if c is not title]))
        inner.flush()
        self.w.note(title.text().replace("*", ""), inner.w)

    def heading(self, el: _El, section_id: str) -> None:
        anchors = [
            a for a in el.find(lambda e: e.tag == "a") if a.attrs.get("id") or a.attrs.get("name")
        ]
        anchor = (
            el.attrs.get("id")
            or (anchors[0].attrs.get("id") or anchors[0].attrs.get("name") if anchors else "")
            or section_id
        )
        title = _SELF_LINK.sub("", _IMAGE_ALT.sub("", el.text())).strip()
        if not title:
            return
        if el.tag == "h1" and not self.h1:
            self.h1 = title
        self.w.heading(int(el.tag[1]), title, anchor=anchor or "")

    def on_ul(self, el: _El, ordered: bool = False) -> None:
        """Simple items as a list; an item holding headings, tables or code is read as
        blocks (a card layout marked up as a list)."""
        items: list[str] = []
        for c in el.children:
            if not isinstance(c, _El) or c.tag != "li":
                continue
            if c.find(lambda e: e.tag in _HEADINGS or e.tag in ("table", "pre")):
                self.w.items(items, ordered=ordered)
                items = []
                self.walk(c)
                self.flush()
            else:
                items.append(c.text(marked=True))
        self.w.items(items, ordered=ordered)

    def on_ol(self, el: _El) -> None:
        self.on_ul(el, ordered=True)

    def on_pre(self, el: _El) -> None:
        """Code, in the language its ``<code>`` names (``language-python``), or its own
        class does as docutils writes it (``<pre class="code python literal-block">``)."""
        codes = el.find(lambda e: e.tag == "code")
        lang = next(
            (
                c[9:]
                for c in (codes[0].attrs.get("class", "").split() if codes else [])
                if c.startswith("language-")
            ),
            "",
        )
        own = el.attrs.get("class", "").split()
        if not lang and "code" in own and "literal-block" in own:
            lang = next((c for c in own if c not in ("code", "literal-block")), "")
        self.w.code(_pre_text(el), lang)

    def on_table(self, el: _El) -> None:
        rows: list[list[str | None]] = []
        merged = False
        for tr in el.find(lambda e: e.tag == "tr"):
            cells = [c for c in tr.children if isinstance(c, _El) and c.tag in ("td", "th")]
            merged = merged or any(
                c.attrs.get("colspan", "1") not in ("", "1")
                or c.attrs.get("rowspan", "1") not in ("", "1")
                for c in cells
            )
            rows.append([c.text() for c in cells])
        nested = bool(el.find(lambda e: e.tag == "table"))
        pictures = any(_picture_only(c) for c in el.find(lambda e: e.tag in ("td", "th")))
        why = (
            "merged cells"
            if merged
            else "a table inside a cell"
            if nested
            else "cells holding only an image"
            if pictures
            else ""
        )
        self.w.table(rows, flagged=bool(why), note=f"a table with {why}")

    def on_figure(self, el: _El) -> None:
        caption = " ".join(c.text() for c in el.find(lambda e: e.tag == "figcaption"))
        if el.find(lambda e: e.tag in ("img", "picture", "svg", "canvas")):
            self.w.figure("Figure" + (f": {caption}" if caption else ""))
        else:
            self.walk(el)
            self.flush()

    def on_hr(self, el: _El) -> None:
        return None


#: The class of an admonition box: docutils' and Sphinx's ``admonition`` (MkDocs Material
#: writes the same), GitHub's ``markdown-alert``, Docusaurus' ``theme-admonition``.
_ADMONITION = re.compile(r"(^|\s)(admonition|markdown-alert|theme-admonition)(\s|$)")
#: The class of its title element.
_ADMONITION_TITLE = re.compile(r"(^|\s)(admonition-title|markdown-alert-title)(\s|$)")


def _admonition_title(el: _El) -> _El | None:
    """The title element of an admonition box ``el`` (a note, a warning: a ``div`` of
    class ``admonition``, ``markdown-alert`` or ``theme-admonition`` whose first element is
    its title, of class ``admonition-title``, or its first heading-like ``div``), None when
    ``el`` is none or has no titled first element.

    Example:
        >>> box = parse_html('<div class="admonition note"><p class="admonition-title">'
        ...                  'Note</p><p>Close it.</p></div>').children[0]
        >>> _admonition_title(box).text()
        'Note'
        >>> _admonition_title(parse_html('<div class="note">x</div>').children[0]) is None
        True
    """
    if not _ADMONITION.search(el.attrs.get("class", "")):
        return None
    first = next((c for c in el.children if isinstance(c, _El)), None)
    title = first.text() if first is not None else ""
    if first is None or not title or len(title) > 80:
        return None
    if _ADMONITION_TITLE.search(first.attrs.get("class", "")) or (
        "theme-admonition" in el.attrs.get("class", "") and first.tag == "div"
    ):
        return first
    return None


def _text(node: _El | str) -> str:
    """A child's text: an element's, or the string itself."""
    return node.text() if isinstance(node, _El) else node


def _picture_only(cell: _El) -> bool:
    """Whether a cell shows an image (or a drawing) and no text: what it says is
    not in the text (a status icon, a chart)."""
    pictures = cell.find(lambda e: e.tag in ("img", "svg", "picture", "canvas"))
    return bool(pictures) and not _IMAGE_ALT.sub("", cell.text()).strip()


def _first_element(el: _El) -> int:
    for i, c in enumerate(el.children):
        if isinstance(c, _El) or c.strip():
            return i
    return -1


def _pre_text(el: _El) -> str:
    parts: list[str] = []
    for c in el.children:
        parts.append(c if isinstance(c, str) else "\n" if c.tag == "br" else _pre_text(c))
    return "".join(parts)


def html_to_markdown(text: str, kind: str = "html") -> Converted:
    """The content of the HTML page ``text`` as Markdown; see the module docstring."""
    root = parse_html(text)
    titles = root.find(lambda e: e.tag == "title")
    content = _content(root)
    for chrome in content.find(lambda e: e.tag in _PAGE_CHROME) if content.tag == "body" else []:
        if not chrome.find(lambda e: e.tag in _HEADINGS and e.tag == "h1"):
            chrome.children.clear()
    out = _Writer(drop_chrome=content.tag in ("body", "#root"))
    out.walk(content)
    out.flush()
    if not out.h1 and titles and titles[0].text():
        out.w.front["title"] = titles[0].text()
    return out.w.done(kind, anchors=kind == "html")


def read_html(path: Path, text: str) -> Converted:
    """``path``'s HTML (already decoded as ``text``) as Markdown."""
    del path
    return html_to_markdown(text)


__all__ = ["html_to_markdown", "parse_html", "read_html"]
