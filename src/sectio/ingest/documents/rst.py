"""reStructuredText (``.rst``): rendered by docutils to HTML, then read as HTML.

docutils (BSD/public domain, pure Python) parses the markup: section titles
(any underline/overline style, levels in the order the file uses them) become
headings, literal blocks code, tables and lists what they are. Nothing outside
the file is read or run: ``include``, ``raw`` and file insertion are off, and
parse problems are not reported into the text. A directive or role docutils
does not know (Sphinx's ``toctree``, ``:ref:``) is dropped or kept as its
text; the rest of the page is read.
"""

from __future__ import annotations

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


def rst_to_markdown(text: str) -> Converted:
    """``text`` (reStructuredText) as Markdown; its first title is the document's."""
    from docutils.core import publish_string

    html = publish_string(text, writer="html4css1", settings_overrides=_SETTINGS)
    return html_to_markdown(str(html), kind="rst")


__all__ = ["rst_to_markdown"]
