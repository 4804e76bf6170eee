"""reStructuredText (``.rst``): rendered by docutils to HTML, then read as HTML.

docutils (BSD/public domain, pure Python) parses the markup: section titles
(any underline/overline style, levels in the order the file uses them) become
headings, literal blocks code, tables and lists what they are. Nothing outside
the file is read or run: ``include``, ``raw`` and file insertion are off, and
parse problems are not reported into the text. A directive docutils does not
know (Sphinx's ``toctree``) is dropped; the rest of the page is read. Sphinx's
roles are read as MyST's are (:func:`~sectio.ingest.documents.myst.read_role`): a
cross-reference to code as the name in code (``:class:`~requests.Session``` ->
```requests.Session```, ``:py:func:`get``` -> ```get```), any other as its title or
target (``:ref:`the quickstart <quickstart>``` -> "the quickstart"); left unknown,
docutils printed them as written, ``:class:`` and all.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sectio.ingest.documents.converted import Converted
from sectio.ingest.documents.html import html_to_markdown

#: docutils settings: no file or raw inclusion, no messages in the output, never halt.
_SETTINGS: dict[str, Any] = {
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "report_level": 5,
    "halt_level": 5,
    "warning_stream": False,
    "input_encoding": "unicode",
    "output_encoding": "unicode",
    "embed_stylesheet": False,
    "stylesheet_path": "",
    "doctitle_xform": False,
    "syntax_highlight": "none",
    "initial_header_level": 1,
}


#: Sphinx's roles (none of them docutils'), read as their text; with a domain too
#: (``py:class``, ``c:func``, ``std:ref``).
SPHINX_ROLES = (
    "attr", "class", "func", "meth", "mod", "obj", "data", "exc", "const", "any", "command",
    "file", "program", "envvar", "option", "kbd", "samp", "ref", "doc", "term", "numref",
    "download", "guilabel", "menuselection", "keyword", "token", "eq", "dfn", "mimetype",
    "manpage", "makevar", "regexp", "confval", "setting",
)  # fmt: skip
DOMAINS = ("py", "c", "cpp", "js", "std", "rst")


def _sphinx_role(
    name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
    content: Any = None,
) -> tuple[list[Any], list[Any]]:  # fmt: skip
    """A Sphinx role as its text (code in a literal), as MyST's roles are read."""
    from docutils import nodes

    from sectio.ingest.documents.myst import read_role

    read = read_role(name, text)
    if read.startswith("`") and read.endswith("`") and len(read) > 1:
        return [nodes.literal(rawtext, read[1:-1])], []
    return [nodes.Text(read)], []


@lru_cache(maxsize=1)
def _register_roles() -> None:
    """Register :data:`SPHINX_ROLES` (and their domains' forms) with docutils, once."""
    from docutils.parsers.rst import roles

    for role in SPHINX_ROLES:
        for name in (role, *(f"{d}:{role}" for d in DOMAINS)):
            roles.register_local_role(name, _sphinx_role)


def rst_to_markdown(text: str) -> Converted:
    """``text`` (reStructuredText) as Markdown; its first title is the document's."""
    from docutils.core import publish_string

    _register_roles()
    html = publish_string(text, writer="html4css1", settings_overrides=_SETTINGS)
    return html_to_markdown(str(html), kind="rst")


__all__ = ["rst_to_markdown"]
