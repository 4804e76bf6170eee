"""Static-site tags in Markdown (Hugo shortcodes, Jekyll's Liquid tags), read as Markdown.

Docs trees built with Hugo or Jekyll write their pages in Markdown with the
site generator's tags in it: ``{{< highlight yaml >}}``, ``{{% notice note %}}``,
``[the guide]({{< ref "topics/templates.md" >}})``, ``{% include note.html %}``,
``{% highlight ruby %}``. Left as they are, they are noise in every chunk (and
BM25 terms: "highlight", "ref"), a highlighted block reads as prose, and a link
through ``ref`` points nowhere. Outside fenced code and inline code spans:

* a code tag alone on its line (Hugo ``highlight``, Jekyll ``highlight``) opens
  or closes a fence (`````yaml`` ... `````);
* ``ref`` / ``relref`` (Hugo) and ``link`` (Jekyll) become the path they name,
  so the link reads as a link to that page;
* every other shortcode, and Jekyll's own Liquid tags (``include``, ``raw``, ...),
  are removed and the text between an opening and a closing tag kept
  (``{{% notice note %}}Be careful.{{% /notice %}}`` -> ``Be careful.``);
  Liquid's output of the site's variables (``{{ site.baseurl }}``) is removed;
* a ``{% comment %}`` ... ``{% endcomment %}`` is removed with what it holds (on one
  line or several: "TODO link to ...");
* a site's own Liquid tags (Eleventy's and Jekyll plugins' shortcodes: ``{% alert %}``,
  ``{% slack_channel "parents" %}``, ``{% image "_img/a.png" "the login screen" %}``,
  ``[leave]({% page "travel/leave/" %})``): any tag whose name is no statement of a
  template language. In a link's target it gives its first argument (the path); elsewhere
  the quoted arguments that read as words (``parents``, ``the login screen``), not those
  that name a file, a path or an address.

Go and Jinja templates that a page *shows* (``{{ .Values.image }}``, ``{{ name }}``,
``{% if user %}``, ``{% url 'home' %}`` in prose) are not site tags and stay. Line numbers
are kept: a removed tag leaves its line, blank when nothing else was on it.

Example:
    >>> print(strip_site_tags('{{< highlight yaml >}}\\na: 1\\n{{< /highlight >}}\\n'
    ...                       'See [x]({{< ref "t.md" >}}). {% include n.html %}`{{< k >}}`'))
    ```yaml
    a: 1
    ```
    See [x](t.md). `{{< k >}}`
    >>> strip_site_tags('Ask in {% slack_channel "people-ops" %}{% comment %}TODO{% endcomment %}.')
    'Ask in people-ops.'
"""

from __future__ import annotations

import re

from sectio.ingest.md_parse import FENCE_LINE

#: A Hugo shortcode (``{{< name args >}}``, ``{{% name args %}}``, closing ``/name``) or a
#: Liquid tag (``{% name args %}``); group ``name``, group ``args``.
_TAG = re.compile(
    r"\{\{<\s*(?P<hname>/?[\w-]+)(?P<hargs>[^>]*?)\s*/?>\}\}"
    r"|\{\{%\s*(?P<pname>/?[\w-]+)(?P<pargs>.*?)\s*/?%\}\}"
    r"|\{%-?\s*(?P<lname>[\w-]+)(?P<largs>.*?)\s*-?%\}"
)
#: Liquid's output of the site's own variables (``{{ site.baseurl }}``, ``{{ page.title }}``).
_SITE_VARIABLE = re.compile(r"\{\{-?\s*(?:site|page|include|jekyll|layout)\.[^{}]*?-?\}\}")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_QUOTED = re.compile(r"""["']([^"']+)["']|(\S+)""")
#: Tags that open (and, written ``/name`` or ``endname``, close) a highlighted code block.
_CODE_TAGS = frozenset({"highlight", "code"})
#: Tags that name a page by its path.
_PATH_TAGS = frozenset({"ref", "relref", "link", "post_url"})
#: Jekyll's own Liquid tags: ``{% if %}``, ``{% for %}``, ``{% set %}`` are Jinja's too (a
#: page about templates shows them), so only these are read as the site's.
_JEKYLL_TAGS = frozenset(
    {
        "include",
        "include_relative",
        "highlight",
        "endhighlight",
        "raw",
        "endraw",
        "link",
        "post_url",
        "comment",
        "endcomment",
        "capture",
        "endcapture",
        "assign",
        "seo",
    }
)


#: Statements of the template languages a page may show in prose (Jinja, Django, Liquid,
#: Nunjucks, Twig): written ``{% name ... %}``, they stay as written. Any other tag name is
#: the site's own (Eleventy and Jekyll shortcodes).
_TEMPLATE_STATEMENTS = frozenset({
    "if", "elif", "elsif", "elseif", "else", "endif", "for", "endfor", "unless", "endunless",
    "case", "when", "endcase", "set", "endset", "block", "endblock", "extends", "macro",
    "endmacro", "call", "endcall", "filter", "endfilter", "with", "endwith", "import", "from",
    "load", "url", "csrf_token", "trans", "endtrans", "blocktrans", "endblocktrans", "static",
    "autoescape", "endautoescape", "spaceless", "endspaceless", "verbatim", "endverbatim",
    "cycle", "tablerow", "endtablerow", "break", "continue", "increment", "decrement",
    "render", "liquid", "echo", "do", "now", "regroup", "firstof", "ifchanged", "endifchanged",
    "ifequal", "endifequal", "ifnotequal", "endifnotequal", "widthratio", "templatetag",
    "lorem", "debug", "apply", "endapply", "embed", "endembed", "sandbox", "endsandbox",
    "flush", "use", "deprecated", "guard", "endguard", "trans_default_domain",
})  # fmt: skip
#: A Liquid comment and what it holds, on one line or several (group 0).
_COMMENT = re.compile(
    r"\{%-?\s*comment\s*-?%\}.*?\{%-?\s*endcomment\s*-?%\}", re.DOTALL | re.IGNORECASE
)
#: An argument that names a file, a path or an address rather than reading as words.
_PATHLIKE = re.compile(r"[/\\]|://|^[\w.-]+\.[A-Za-z0-9]{1,5}$|^#")


def has_site_tags(text: str) -> bool:
    """Whether ``text`` may hold site tags (a cheap look before :func:`strip_site_tags`)."""
    return "{{<" in text or "{{%" in text or "{%" in text


def strip_site_tags(text: str) -> str:
    """``text`` (Markdown) with its site tags read (see the module doc); as many lines."""
    out: list[str] = []
    prose: list[str] = []  # the lines since the last fence line, outside fenced code
    fenced = False
    for line in text.split("\n"):
        if FENCE_LINE.match(line):
            out.extend(_prose(prose))
            prose = []
            fenced = not fenced
            out.append(line)
        elif fenced:
            out.append(line)
        else:
            prose.append(line)
    out.extend(_prose(prose))
    return "\n".join(out)


def _prose(lines: list[str]) -> list[str]:
    """Lines outside fenced code, comments removed (their lines kept, blank), tags read."""
    if not lines:
        return []
    text = "\n".join(lines)
    if "comment" in text:
        text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return [_line(line) for line in text.split("\n")]


def _line(line: str) -> str:
    """One line outside fenced code: a code tag alone opens or closes a fence; elsewhere
    tags are read, code spans left as written."""
    alone = _TAG.fullmatch(line.strip())
    if alone is not None:
        name, args = _name_args(alone)
        if name in _CODE_TAGS:
            return "```" + _first(args)
        if name.lstrip("/").removeprefix("end") in _CODE_TAGS:
            return "```"
    parts: list[str] = []
    at = 0
    for span in _CODE_SPAN.finditer(line):
        parts.append(_read_tags(line[at : span.start()]))
        parts.append(span.group(0))
        at = span.end()
    parts.append(_read_tags(line[at:]))
    return "".join(parts)


def _read_tags(text: str) -> str:
    """``text`` (no code span in it) with its tags replaced: a path tag by its path, any
    other tag and the site's variables by nothing."""

    def replace(match: re.Match[str]) -> str:
        name, args = _name_args(match)
        if match.group("lname") is None or name in _JEKYLL_TAGS:
            return _first(args) if name in _PATH_TAGS else ""
        if name in _TEMPLATE_STATEMENTS:
            return match.group(0)  # a Jinja statement the page shows
        if text[: match.start()].endswith("]("):
            return _first(args)  # a site's shortcode giving a link's target
        return _words(args)

    return _SITE_VARIABLE.sub("", _TAG.sub(replace, text))


def _name_args(match: re.Match[str]) -> tuple[str, str]:
    """The tag's name (lowercased; ``/name`` for a closing shortcode) and its arguments."""
    for key in ("h", "p", "l"):
        name = match.group(f"{key}name")
        if name is not None:
            return name.lower(), match.group(f"{key}args") or ""
    return "", ""


def _words(args: str) -> str:
    """The quoted arguments of a site's shortcode that read as words, joined by a space
    (``the login screen`` of ``"_img/a.png" "the login screen"``); '' when none."""
    quoted = (m.group(1) for m in _QUOTED.finditer(args) if m.group(1) is not None)
    return " ".join(q.strip() for q in quoted if q.strip() and not _PATHLIKE.search(q.strip()))


def _first(args: str) -> str:
    """The first argument, unquoted ("yaml" of ``yaml "linenos=table"``); '' when none."""
    found = _QUOTED.search(args.strip())
    if found is None:
        return ""
    return found.group(1) if found.group(1) is not None else found.group(2)


__all__ = ["has_site_tags", "strip_site_tags"]
