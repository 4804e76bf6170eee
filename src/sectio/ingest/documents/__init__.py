"""Documents as users have them (PDF, HTML, DOCX, MDX, plain text), read as Markdown.

Each reader converts a file to Markdown with per-line provenance
(:class:`~sectio.ingest.documents.converted.Converted`); the Markdown path
(:mod:`sectio.ingest.markdown`) then cuts the same documents -> sections ->
ordered chunks as for ``.md`` files, and stamps each chunk with its pages and
whether it must be checked against the source.

A file's kind is told by its name and confirmed by its content (:func:`kind_of`):
``%PDF-`` for a PDF, a zip holding ``word/document.xml`` for a DOCX, text for
the others; a file without a known extension is a PDF, DOCX or HTML page by
content alone. A name that lies (``a.pdf`` holding text) is refused, naming
what the file holds.

PDF and DOCX need the ``documents`` extra (``pip install 'sectio[documents]'``:
pdfplumber, pdfminer.six, pypdfium2, mammoth; MIT, Apache-2.0/BSD, BSD); HTML,
MDX and text need nothing beyond the core install.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from sectio.errors import ContractError, NotAvailable
from sectio.extras import require_extra
from sectio.ingest.documents.converted import Converted

#: File name endings -> kind.
SUFFIXES: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "mdx",
    ".pdf": "pdf",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".docx": "docx",
    ".txt": "txt",
}
#: Kind -> what one file of it is called in a message (plural: + "s").
LABELS: dict[str, str] = {
    "markdown": "Markdown file",
    "mdx": "MDX file",
    "pdf": "PDF",
    "html": "HTML page",
    "docx": "DOCX file",
    "txt": "text file",
}
#: Largest PDF or DOCX read (text kinds are bounded by ``SECTIO_MAX_MARKDOWN_BYTES``).
MAX_BINARY_BYTES = 512 * 2**20
_HEAD = 2048


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as fh:
            return fh.read(_HEAD)
    except OSError:
        return b""


def _is_docx(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as z:
            return "word/document.xml" in z.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def content_kind(path: Path) -> str | None:
    """``pdf``, ``docx`` or ``html`` when the content says so, else None."""
    head = _head(path)
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return "docx" if _is_docx(path) else None
    start = head.lstrip(b" \t\r\n\xef\xbb\xbf")[:15].lower()
    if start.startswith((b"<!doctype html", b"<html")):
        return "html"
    return None


def kind_of(path: Path) -> tuple[str | None, str]:
    """The document kind of ``path`` (None: not a document) and, when its name says one
    kind and its content another, why it is refused ('' otherwise)."""
    named = SUFFIXES.get(path.suffix.lower())
    found = content_kind(path)
    if named in ("pdf", "docx") and found != named:
        return None, f"named {path.suffix} but not a {LABELS[named].split()[0]} file"
    if named is None:
        return found, ""
    if found in ("pdf", "docx") and found != named:
        return None, f"named {path.suffix} but it holds a {found.upper()}"
    return named, ""


def _text(path: Path, tree: Path, max_bytes: int, lenient: bool) -> str:
    from sectio.ingest.sources import read_text

    if not lenient:
        return read_text(path, tree, max_bytes)
    raw = _bytes(path, tree, max_bytes)
    for encoding in ("utf-8-sig", _declared(raw)):
        try:
            return raw.decode(encoding or "cp1252")
        except (UnicodeDecodeError, LookupError):
            continue
    return raw.decode("cp1252", errors="replace")


def _declared(raw: bytes) -> str:
    import re

    m = re.search(rb"charset=[\"']?([\w-]+)", raw[:4096], re.IGNORECASE)
    return m.group(1).decode("ascii") if m else "cp1252"


def _bytes(path: Path, tree: Path, max_bytes: int) -> bytes:
    target = path.resolve()
    if not target.is_relative_to(tree.resolve()):
        raise ContractError(
            f"{path}: a link to {target}, outside {tree}; only files inside the tree are read"
        )
    try:
        size = target.stat().st_size
        if size > max_bytes:
            raise ContractError(f"{path}: {size:,} bytes, over the limit of {max_bytes:,} bytes")
        return target.read_bytes()
    except OSError as exc:
        raise ContractError(f"{path}: cannot read: {exc.strerror}") from exc


def convert(path: Path, kind: str, tree: Path, max_text_bytes: int) -> Converted:
    """``path`` (a file of ``tree``, of ``kind``) as Markdown with its provenance.

    Raises:
        ContractError: the file is unreadable, over its size limit, a link out of
            the tree, or refused by its reader (a PDF without text, a broken DOCX).
        RecordError: a text file that is not valid UTF-8 (HTML: its declared charset).
        NotAvailable: a PDF or DOCX without the ``documents`` extra installed.
    """
    if kind in ("pdf", "docx"):
        _bytes_check(path, tree)
        needs = ("pdfplumber", "pypdfium2") if kind == "pdf" else ("mammoth",)
        try:
            require_extra("documents", *needs)
        except NotAvailable as exc:
            raise NotAvailable(f"{path}: reading a {LABELS[kind]}: {exc}") from exc
        if kind == "pdf":
            from sectio.ingest.documents.pdf import read_pdf

            return read_pdf(path)
        from sectio.ingest.documents.docx import read_docx

        return read_docx(path)
    text = _text(path, tree, max_text_bytes, lenient=kind == "html")
    if kind == "html":
        from sectio.ingest.documents.html import html_to_markdown

        return html_to_markdown(text)
    if kind == "txt":
        from sectio.ingest.documents.text import text_to_markdown

        return text_to_markdown(text)
    if kind == "mdx":
        from sectio.ingest.documents.mdx import strip_mdx

        return Converted(strip_mdx(text), "mdx")
    return Converted(text, "markdown")


def _bytes_check(path: Path, tree: Path) -> None:
    target = path.resolve()
    if not target.is_relative_to(tree.resolve()):
        raise ContractError(
            f"{path}: a link to {target}, outside {tree}; only files inside the tree are read"
        )
    size = target.stat().st_size
    if size > MAX_BINARY_BYTES:
        raise ContractError(f"{path}: {size:,} bytes, over the limit of {MAX_BINARY_BYTES:,}")


__all__ = ["LABELS", "SUFFIXES", "Converted", "content_kind", "convert", "kind_of"]
