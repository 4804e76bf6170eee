"""Documents as users have them (PDF, HTML, DOCX, MDX, notebooks, plain text), read as Markdown.

Each reader converts a file to Markdown with per-line provenance
(:class:`~sectio.ingest.documents.converted.Converted`); the Markdown path
(:mod:`sectio.ingest.markdown`) then cuts the same documents -> sections ->
ordered chunks as for ``.md`` files, and stamps each chunk with its pages and
whether it must be checked against the source.

A file's kind is told by its name and confirmed by its content (:func:`kind_of`):
``%PDF-`` for a PDF, a zip holding ``word/document.xml`` for a DOCX, text for
the others; a file without a known extension is a PDF, DOCX or HTML page by
content alone. A gzip file is read through (``README.md.gz``); ``README``,
``copyright``, ``NEWS.Debian`` and the like (:data:`TEXT_NAMES`) are text. A
name that lies (``a.pdf`` holding text) is refused, naming
what the file holds. A Markdown or MDX page of a Hugo or Jekyll site has its
shortcodes and Liquid tags read (:mod:`~sectio.ingest.documents.sitetags`), MyST's
directives and roles too (:mod:`~sectio.ingest.documents.myst`); a Jupyter notebook is
read as the page it renders to, outputs left out (:mod:`~sectio.ingest.documents.notebook`).

PDF and DOCX need the ``documents`` extra (``pip install 'sectio[documents]'``:
pdfplumber, pdfminer.six, pypdfium2, mammoth; MIT, Apache-2.0/BSD, BSD); HTML,
MDX, reStructuredText (docutils), Org, AsciiDoc
(:mod:`~sectio.ingest.documents.lightmarkup`) and text need nothing beyond the
core install.
"""

from __future__ import annotations

import re
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
    ".rst": "rst",
    ".org": "org",
    ".adoc": "adoc",
    ".asciidoc": "adoc",
    ".ipynb": "ipynb",
}
#: File names that are plain-text documents whatever follows the first dot
#: (``README``, ``README.Debian``, ``NEWS.gz``, ``copyright``, ``changelog.Debian.gz``).
TEXT_NAMES = frozenset(
    {
        "readme", "news", "changelog", "changes", "history", "copyright", "copying",
        "license", "licence", "authors", "credits", "thanks", "todo", "install", "bugs",
        "faq", "notice", "contributing", "hacking", "upgrading",
    }
)  # fmt: skip
#: Suffixes of files that are not documents, and what they are.
NOT_DOCUMENTS = {
    "an image": (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".ico", ".bmp", ".avif"),
    "code or a site asset": (
        ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".css", ".scss", ".py", ".go", ".sh",
        ".rb", ".java", ".rs", ".c", ".h", ".lock",
    ),
    "configuration": (".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".env"),
}  # fmt: skip
#: Kind -> what one file of it is called in a message (plural: + "s").
LABELS: dict[str, str] = {
    "markdown": "Markdown file",
    "mdx": "MDX file",
    "pdf": "PDF",
    "html": "HTML page",
    "docx": "DOCX file",
    "txt": "text file",
    "rst": "reStructuredText file",
    "org": "Org file",
    "adoc": "AsciiDoc file",
    "ipynb": "Jupyter notebook",
}
#: Largest PDF or DOCX read (text kinds are bounded by ``SECTIO_MAX_MARKDOWN_BYTES``).
MAX_BINARY_BYTES = 512 * 2**20
_HEAD = 2048


def _head(path: Path) -> bytes:
    from sectio.ingest.sources import head_bytes

    return head_bytes(path, _HEAD)


def _typed(suffix: str) -> bool:
    """Whether ``suffix`` names a file type that is not prose (``.json``, ``.png``,
    ``.sh``: ``changelog.json`` is not text by its name); ``.Debian``, ``.source``
    and text types (``.d``) do not."""
    import mimetypes

    if any(suffix in known for known in NOT_DOCUMENTS.values()):
        return True
    guessed = mimetypes.guess_type(f"x{suffix}", strict=False)[0] if suffix else None
    return guessed is not None and not guessed.startswith("text/")


_LEAD_WORD = re.compile(r"[\d_-]*([A-Za-z]+)")


def _text_by_name(name: str) -> bool:
    """A name plain-text documents have: its first word is one of :data:`TEXT_NAMES`
    (``ChangeLog-2013``, ``README.Debian``) or upper case of 3 letters or more
    (``FEATURES``, ``00-RELEASENOTES``, ``PORTING``)."""
    m = _LEAD_WORD.match(name.split(".", 1)[0])
    word = m.group(1) if m else ""
    return word.lower() in TEXT_NAMES or (len(word) >= 3 and word.isupper())


def named_kind(path: Path) -> str | None:
    """The document kind ``path``'s name says (None: none). A ``.gz`` ending is looked
    through for the text kinds (``README.md.gz`` is Markdown, ``changelog.gz`` text);
    a name plain text has (:func:`_text_by_name`) with no ending of a file type
    (``README.Debian``, ``copyright``, ``FEATURES.gz``; not ``changelog.json``) is
    text."""
    gz = path.name.lower().endswith(".gz")
    name = path.name[:-3] if gz else path.name
    suffix = Path(name).suffix.lower()
    named = SUFFIXES.get(suffix)
    if named is None and _text_by_name(name) and not _typed(suffix):
        named = "txt"
    if gz and named in ("pdf", "docx"):
        return None
    return named


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
    named = named_kind(path)
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
    from sectio.ingest.sources import read_bytes

    raw = read_bytes(path, tree, max_bytes)
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
    if kind == "ipynb":  # JSON, its outputs maybe large: the page it renders is held
        from sectio.ingest.documents.notebook import notebook_to_markdown
        from sectio.ingest.sources import read_bytes

        page = notebook_to_markdown(read_bytes(path, tree, MAX_BINARY_BYTES), str(path))
        if len(page.encode()) > max_text_bytes:
            raise ContractError(
                f"{path}: its cells hold {len(page.encode()):,} bytes of text, over the "
                f"limit of {max_text_bytes:,} bytes (SECTIO_MAX_MARKDOWN_BYTES)"
            )
        return Converted(page, kind)
    text = _text(path, tree, max_text_bytes, lenient=kind in ("html", "txt"))
    if kind == "txt" and "\x00" in text:
        raise ContractError(f"{path}: holds a NUL byte: binary data, not text")
    if kind == "html":
        from sectio.ingest.documents.html import html_to_markdown

        return html_to_markdown(text)
    if kind == "txt":
        from sectio.ingest.documents.text import text_to_markdown
        from sectio.ingest.md_parse import stem_title

        within = path.relative_to(tree) if path.is_relative_to(tree) else Path(path.name)
        return text_to_markdown(text, stem_title(within.as_posix()))
    if kind == "rst":
        from sectio.ingest.documents.rst import rst_to_markdown

        return rst_to_markdown(text)
    if kind == "org":
        from sectio.ingest.documents.lightmarkup import org_to_markdown

        return Converted(org_to_markdown(text), kind)
    if kind == "adoc":
        from sectio.ingest.documents.includes import splice_includes
        from sectio.ingest.documents.lightmarkup import asciidoc_to_markdown

        spliced = splice_includes(text, path, tree, max_text_bytes)
        lines = spliced.lines if spliced.included else None
        return Converted(asciidoc_to_markdown(spliced.text), kind, lines=lines)
    from sectio.ingest.documents.sitetags import has_site_tags, strip_site_tags

    if has_site_tags(text):  # a Hugo or Jekyll page: its tags read, not left as noise
        text = strip_site_tags(text)
    from sectio.ingest.documents.myst import has_myst, read_myst

    if has_myst(text):  # a Jupyter Book or Sphinx page: its directives and roles read
        text = read_myst(text)
    from sectio.ingest.documents.mdx import has_esm, strip_mdx

    if kind == "mdx" or has_esm(text):  # Markdown a site reads as MDX (Docusaurus, Nextra)
        return Converted(strip_mdx(text), "mdx" if kind == "mdx" else "markdown")
    return Converted(text, "markdown")


def _bytes_check(path: Path, tree: Path) -> None:
    from sectio.ingest.sources import inside_tree

    size = inside_tree(path, tree).stat().st_size
    if size > MAX_BINARY_BYTES:
        raise ContractError(f"{path}: {size:,} bytes, over the limit of {MAX_BINARY_BYTES:,}")


__all__ = [
    "LABELS",
    "NOT_DOCUMENTS",
    "SUFFIXES",
    "TEXT_NAMES",
    "Converted",
    "content_kind",
    "convert",
    "kind_of",
    "named_kind",
]
