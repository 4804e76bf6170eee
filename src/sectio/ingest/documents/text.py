"""Plain text (``.txt``): paragraphs (split on blank lines), each line kept as text.

No markup is read: a line Markdown would act on (``#``, ``>``, indentation) is
escaped, so the text is indexed as written. The document has one section; its
title is the file name.
"""

from __future__ import annotations

from sectio.ingest.documents.converted import Converted, MarkdownWriter


def text_to_markdown(text: str) -> Converted:
    """``text`` as Markdown paragraphs."""
    w = MarkdownWriter()
    for para in text.replace("\r\n", "\n").replace("\r", "\n").split("\n\n"):
        w.paragraph(para)
    return w.done("txt")


__all__ = ["text_to_markdown"]
