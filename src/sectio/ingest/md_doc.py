"""One Markdown document as the ingest builds it: parsed, its D0 chunks, its links.

Shared by the D0 pass (:mod:`sectio.ingest.markdown`) and the D1-D5 layers
(:mod:`sectio.ingest.md_layers`), which both read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sectio.contract.record import ChunkRecord
from sectio.ingest.md_parse import ParsedDoc, Section


def _same_line(line: int) -> int:
    return line


@dataclass
class DocLink:
    """A link from one document to another (or to a non-Markdown file of the corpus)."""

    target: str
    text: str
    section_key: str
    line: int
    chunk_id: str | None
    kind: str = "link"  # "link" | "include" | "file"


@dataclass
class ChunkSpan:
    """Where a D0 chunk sits in its file."""

    chunk_id: str
    section_key: str
    line: int
    end_line: int
    kind: str


@dataclass
class DocBuild:
    """One document, parsed, with its D0 chunks and resolved links."""

    doc: ParsedDoc
    doc_id: str
    title: str
    metadata: dict[str, Any]
    tags: list[str]
    chunks: list[ChunkRecord] = field(default_factory=list)
    spans: list[ChunkSpan] = field(default_factory=list)
    links: list[DocLink] = field(default_factory=list)
    #: How a line of the parsed Markdown reads as a line of the file (set with the
    #: provenance, :func:`~sectio.ingest.markdown.stamp_provenance`): None, the line is
    #: no line of the file (a PDF's, an HTML page's conversion); the default, the same.
    file_line: Callable[[int], int] | None = _same_line

    def chunk_at(self, section_key: str, line: int) -> str | None:
        """The D0 chunk covering ``line`` of ``section_key`` (else the section's first)."""
        first: str | None = None
        for span in self.spans:
            if span.section_key != section_key:
                continue
            first = first or span.chunk_id
            if span.line <= line <= span.end_line:
                return span.chunk_id
        return first

    def source_ref(self, section: Section | None, line: int | None = None, **extra: Any) -> dict:
        """A provenance entry: the file, the heading anchor as a URL, the line."""
        ref: dict[str, Any] = {"source": self.doc_id}
        if section is not None and section.anchor:
            ref["url"] = f"{self.doc_id}#{section.anchor}"
            ref["anchor"] = section.anchor
        else:
            ref["url"] = self.doc_id
        if line is not None and self.file_line is not None:
            ref["line"] = self.file_line(line)
        ref.update(extra)
        return ref
