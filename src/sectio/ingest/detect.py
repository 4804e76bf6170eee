"""Format detection: by content, never silently; every outcome says what and why.

A **file** is judged by its content (:func:`sectio.ingest.sources.sniff`): gzip
or not, then a JSON array (``[``) or JSON Lines (``{``) whose first record has
``chunk_id`` (chunks) or ``_id`` (BEIR), else an id and a text field by the names
people use (an export, :mod:`sectio.ingest.export`: ``markdown``, each record a
document; an array, JSON Lines, or one object holding the array); a document
(Markdown, MDX, text: by name, when it is text; PDF, DOCX, HTML: by name and
content, or by content alone, see :func:`sectio.ingest.documents.kind_of`) is
``markdown``, the documents family. A PDF without a text layer is refused in one line. Anything
else is refused with what was found.

A **folder** is:

* BEIR when it holds ``corpus.jsonl`` (or ``corpus.jsonl.gz``);
* else every file below it (hidden folders, ``node_modules``, ``site`` and
  ``__pycache__`` not walked) is sorted into documents (``.md``, ``.markdown``,
  ``.mdx``, ``.pdf``, ``.html``/``.htm``, ``.docx``, ``.txt``, ``.rst``, ``.org``,
  ``.adoc``, each
  text kind maybe ``.gz``; ``README``, ``copyright``, ``NEWS.Debian`` and the
  like as text), record files
  (``.json``, ``.jsonl``, ``.ndjson``, each maybe ``.gz``), refused documents
  (a scanned PDF, a name that lies about the content) and ignored files, each
  with why (an image, code or a site asset, configuration, a hidden file, a page
  template, a tool's text file such as ``requirements.txt``, a site's or a tool's file
  such as ``CNAME`` or ``CODEOWNERS``);
* record files only: chunks, every file read, in path order; a record file whose
  first record has no ``chunk_id`` is an error naming it;
* documents only: ``markdown``; JSON files that hold no records (``package.json``,
  a schema) are listed as ignored;
* both: an error naming the files of each kind. ``--format chunks`` then reads
  only the record files and ``--format markdown`` only the documents, and the
  other kind is listed as ignored: the flag is the user saying so.

:attr:`Detection.reason` is the one line the CLI prints (and ``--json`` holds),
naming up to five files per list; :meth:`Detection.listing` has them all.

Example:
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.jsonl").write_text('{"chunk_id": "1"}\\n')
    >>> _ = (d / "README.md").write_text("# hi\\n")
    >>> try:
    ...     detect_source(d)
    ... except ContractError as exc:
    ...     print(str(exc).split(": ", 1)[1][:64])
    mixes formats: 1 chunk record file (a.jsonl) and 1 Markdown file
    >>> detect_source(d, "chunks").reason.split("; ")[1]
    'ignored 1 Markdown file: README.md'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sectio.contract.bounds import InputLimits
from sectio.errors import ContractError
from sectio.ingest.documents import LABELS, NOT_DOCUMENTS, kind_of, named_kind
from sectio.ingest.export import ID_FIELDS, TEXT_FIELDS, export_shape
from sectio.ingest.sources import Sniffed, sniff

FORMATS: tuple[str, ...] = ("chunks", "beir", "markdown")
RECORD_SUFFIXES = (".json", ".jsonl", ".ndjson")
SKIP_DIRS = ("node_modules", "site", "__pycache__")
BEIR_CORPUS = ("corpus.jsonl", "corpus.jsonl.gz")
_JSON = ("jsonl", "json-array")
#: File names shown in a message before "and N more".
_SHOWN = 5


@dataclass(frozen=True)
class Detection:
    """The format of a source, the files to read, and one line saying why."""

    format: str
    path: Path
    files: list[Path] = field(default_factory=list)
    reason: str = ""
    #: Files of a folder not read, each with why (an image, code, a template, ...).
    ignored: list[tuple[Path, str]] = field(default_factory=list)
    #: Document files refused before reading, each with why (a scanned PDF, a name
    #: that lies about the content); the other files are read.
    refused: list[tuple[Path, str]] = field(default_factory=list)

    def listing(self) -> dict[str, list[dict[str, str]]]:
        """``ignored`` and ``refused`` as JSON-ready lists of ``{"path", "why"}``."""
        root = self.path if self.path.is_dir() else self.path.parent
        return {
            name: [{"path": _rel(p, root), "why": why} for p, why in got]
            for name, got in (("ignored", self.ignored), ("refused", self.refused))
        }


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _names(files: list[Path], root: Path) -> str:
    shown = [f.relative_to(root).as_posix() if f != root else f.name for f in files[:_SHOWN]]
    more = f" and {len(files) - _SHOWN} more" if len(files) > _SHOWN else ""
    return ", ".join(shown) + more


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def is_record_file(path: Path) -> bool:
    """Whether ``path`` is named as a record file (``.json``, ``.jsonl``, ``.ndjson``, maybe
    ``.gz``)."""
    name = path.name.lower().removesuffix(".gz")
    return name.endswith(RECORD_SUFFIXES)


def tree_files(root: Path, pattern: str = "*") -> list[Path]:
    """Every regular file under ``root`` matching ``pattern``, outside hidden and
    :data:`SKIP_DIRS` folders, in path order (links to folders are not followed)."""
    files = []
    for p in root.rglob(pattern):
        rel = p.relative_to(root).parts
        if any(part.startswith(".") or part in SKIP_DIRS for part in rel[:-1]):
            continue
        if p.is_file():
            files.append(p)
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def _detect_file(path: Path, fmt: str | None) -> Detection:
    found = sniff(path)
    what = found.describe()
    kind, why = kind_of(path)
    if fmt is not None:
        if fmt == "markdown" and kind not in (None, "markdown"):
            what = _a(LABELS[kind])
        return Detection(fmt, path, [path], f"{fmt} (--format {fmt}): {path.name} holds {what}")
    textual = found.container in ("text", "empty")
    if kind in ("pdf", "docx", "html", "ipynb") or (kind is not None and textual):
        if found.container == "empty":
            raise ContractError(f"{path}: empty file")
        refused = _refusal(path, kind)
        if refused:
            raise ContractError(f"{path}: {refused}")
        return Detection("markdown", path, [path], f"markdown: {path.name} is {_a(LABELS[kind])}")
    record = found.record_kind
    if record is None and not found.decoded and found.container in ("jsonl", "json-array"):
        record = "chunks"  # the reader names the line and why it does not decode
    if record is not None:
        return Detection(record, path, [path], f"{record}: {path.name} holds {what}")
    if found.container == "empty":
        raise ContractError(f"{path}: empty file")
    if why:
        raise ContractError(f"{path}: {why}: it holds {what}")
    shape = export_shape(path, InputLimits()) if found.container in _JSON else None
    if shape is not None:  # records of the user's own shape, by field names people use
        fields, n = shape
        named = ", ".join(f for f in fields if f)
        return Detection(
            "markdown",
            path,
            [path],
            f"markdown: {path.name} is an export of {_count(n, 'record')} ({named}), "
            "each read as a document",
        )
    if found.container in _JSON and found.decoded:
        raise ContractError(  # records of a shape no field name tells
            f"{path}: cannot tell the format: it holds {what}; a chunk record needs "
            "chunk_id, doc_id, section_key, part_index and text (docs/guides/chunk-files.md), "
            "a BEIR record _id and text, an export's record an id field "
            f"({', '.join(ID_FIELDS)}) and a text field ({', '.join(TEXT_FIELDS)})"
        )
    raise ContractError(
        f"{path}: cannot tell the format: it holds {what}; expected chunk records "
        "(JSON Lines or a JSON array, maybe gzip), Markdown, MDX, PDF, HTML, DOCX, a "
        "Jupyter notebook or text (.txt, .rst, .org, .adoc, README); pass --format"
    )


def _refusal(path: Path, kind: str | None) -> str:
    """Why a document file cannot be read at all ('' when it can be tried)."""
    if kind == "pdf":
        from sectio.ingest.documents.pdf import text_layer_refusal

        return text_layer_refusal(path)
    return ""


_NOT_TEXT_DOCS = ("requirements", "robots", "cmakelists", "constraints")
#: Upper-case names of a site's or a repository's tool files, not documents: GitHub Pages'
#: ``CNAME`` (one line, the site's domain), ``CODEOWNERS``, ``OWNERS``, ``VERSION``.
_TOOL_FILES = frozenset({"cname", "codeowners", "owners", "owners_aliases", "version"})


def _ignored_why(path: Path) -> str:
    """Why a file of a folder that is neither a document nor a record file is not read."""
    if path.name.startswith("."):
        return "a hidden file"
    suffix = path.suffix.lower()
    if suffix == ".gz":  # what it compresses: "manual.texi.gz" is a .texi.gz
        suffix = "".join(Path(path.name[:-3]).suffixes[-1:]).lower() + suffix
    for why, suffixes in NOT_DOCUMENTS.items():
        if suffix in suffixes:
            return why
    return f"not a format sectio reads ({suffix or 'no extension'})"


def _document_kind(path: Path) -> tuple[str | None, str]:
    """A folder file's document kind, or None and why it is ignored ('' if not a document)."""
    if path.name.startswith(".") or named_kind(path) is None:
        return None, ""
    kind, why = kind_of(path)
    if kind == "txt" and path.stem.lower().startswith(_NOT_TEXT_DOCS):
        return None, "a tool's text file, not a document"
    if kind == "txt" and path.name.lower() in _TOOL_FILES:
        return None, "a site's or a tool's file, not a document"
    if kind == "html" and _is_template(path):
        return None, "a page template (Jinja/Liquid tags)"
    if kind == "rst" and _opens_as_template(path):
        return None, "a page template (Jinja tags)"
    return kind, why


def _is_template(path: Path) -> bool:
    try:
        head = path.read_bytes()[:65536]
    except OSError:
        return False
    return b"{%" in head or (b"{{" in head and b"}}" in head)


def _opens_as_template(path: Path) -> bool:
    """Whether a page's first line that is not blank is a Jinja tag or expression (a
    Sphinx ``_templates/autosummary/class.rst``: ``{{ fullname | escape | underline}}``);
    a page that only shows a template in its text is a page."""
    try:
        head = path.read_bytes()[:4096].decode("utf-8", "replace")
    except OSError:
        return False
    first = next((line.strip() for line in head.splitlines() if line.strip()), "")
    return first.startswith(("{{", "{%"))


@dataclass
class _Split:
    documents: dict[Path, str] = field(default_factory=dict)
    chunks: list[Path] = field(default_factory=list)
    other_json: list[Path] = field(default_factory=list)
    sniffed: dict[Path, Sniffed] = field(default_factory=dict)
    ignored: list[tuple[Path, str]] = field(default_factory=list)
    refused: list[tuple[Path, str]] = field(default_factory=list)

    @property
    def markdown(self) -> list[Path]:
        return list(self.documents)


def _split_folder(root: Path) -> _Split:
    """The documents, chunk record files, record-less JSON files and the rest under ``root``."""
    out = _Split()
    for f in tree_files(root):
        kind, why = _document_kind(f)
        if kind is not None and not why:
            refused = _refusal(f, kind)
            if refused:
                out.refused.append((f, refused))
            else:
                out.documents[f] = kind
        elif why.startswith("named "):
            out.refused.append((f, why))
        elif is_record_file(f) and not f.name.startswith("."):
            out.sniffed[f] = found = sniff(f)
            records = found.record_kind is not None or not (found.decoded or found.pretty)
            (out.chunks if records else out.other_json).append(f)
        else:
            out.ignored.append((f, why or _ignored_why(f)))
    return out


def _documents_phrase(documents: dict[Path, str]) -> str:
    counts: dict[str, int] = {}
    for kind in documents.values():
        counts[kind] = counts.get(kind, 0) + 1
    order = sorted(counts, key=lambda k: list(LABELS).index(k))
    return ", ".join(_count(counts[k], LABELS[k]) for k in order)


def _docs_named(split: _Split, root: Path) -> str:
    """``2 Markdown files (a.md, b.md)`` or ``3 documents (a.md, b.pdf, c.html: ...)``."""
    names = _names(split.markdown, root)
    if all(k == "markdown" for k in split.documents.values()):
        return f"{_count(len(split.markdown), 'Markdown file')} ({names})"
    return (
        f"{_count(len(split.markdown), 'document')} ({names}: {_documents_phrase(split.documents)})"
    )


def _a(label: str) -> str:
    """``label`` with its article as read aloud.

    Example:
        >>> _a("HTML page"), _a("MDX file"), _a("PDF")
        ('an HTML page', 'an MDX file', 'a PDF')
    """
    spoken_vowel = label[:1].lower() in "aeiou" or label.startswith(("HTML", "MDX"))
    return f"{'an' if spoken_vowel else 'a'} {label}"


def _listed(label: str, got: list[tuple[Path, str]], root: Path) -> str:
    """``; ignored 3 files: a.png (an image), ...`` ('' when ``got`` is empty)."""
    if not got:
        return ""
    shown = ", ".join(f"{_rel(p, root)} ({why})" for p, why in got[:_SHOWN])
    more = f" and {len(got) - _SHOWN} more" if len(got) > _SHOWN else ""
    return f"; {label} {_count(len(got), 'file')}: {shown}{more}"


def _detect_folder(root: Path, fmt: str | None) -> Detection:
    corpus = next((root / n for n in BEIR_CORPUS if (root / n).is_file()), None)
    if fmt == "beir" or (fmt is None and corpus is not None):
        if corpus is None:
            raise ContractError(f"{root}: no corpus.jsonl in this BEIR folder")
        why = "--format beir" if fmt else f"the folder holds {corpus.name}"
        return Detection("beir", root, [corpus], f"beir ({why}): {corpus.name}")
    split = _split_folder(root)
    markdown, chunks, other_json, sniffed = (
        split.markdown, split.chunks, split.other_json, split.sniffed
    )  # fmt: skip
    how = f" (--format {fmt})" if fmt else ""
    if fmt is None and markdown and chunks:
        raise ContractError(
            f"{root}: mixes formats: {_count(len(chunks), 'chunk record file')} "
            f"({_names(chunks, root)}) and {_docs_named(split, root)}; pass "
            "--format chunks to read only the record files (documents ignored) or "
            "--format markdown to read only the documents"
        )
    if fmt == "markdown" or (fmt is None and (markdown or split.refused)):
        return _markdown_detection(root, split, how)
    if not chunks and not other_json:
        raise ContractError(
            f"{root}: no documents (.md, .mdx, .pdf, .html, .docx, .txt, .rst, .org, .adoc, "
            "README) "
            "or record files (.json, .jsonl, .ndjson, maybe .gz) in this folder"
            + (_listed("it holds", split.ignored, root) if split.ignored else "; it is empty")
        )
    files = [*chunks, *other_json]
    for f in files:
        if sniffed[f].record_kind != "chunks" and sniffed[f].decoded:
            raise ContractError(
                f"{f}: not a chunk record file: it holds {sniffed[f].describe()}"
                + ("; a BEIR corpus is read from a folder holding corpus.jsonl" if chunks else "")
            )
    first = sniffed[files[0]].describe()
    skipped = "; ignored " + _docs_named(split, root).replace(" (", ": ", 1)[:-1]
    ignored = [*((p, "a document") for p in markdown), *split.ignored]
    return Detection(
        "chunks",
        root,
        sorted(files, key=lambda p: p.relative_to(root).as_posix()),
        f"chunks{how}: {_count(len(files), 'record file')}: {_names(files, root)} ({first})"
        + (skipped if markdown else "")
        + _listed("ignored", split.ignored, root),
        ignored=ignored,
        refused=split.refused,
    )


def _markdown_detection(root: Path, split: _Split, how: str) -> Detection:
    markdown = split.markdown
    if not markdown:
        if split.refused:
            raise ContractError(
                f"{root}: no document can be read" + _listed("refused", split.refused, root)
            )
        raise ContractError(
            f"{root}: no .md files (nor .mdx, .pdf, .html, .docx, .txt, .rst, .org, .adoc, README)"
        )
    json_files = [*split.chunks, *split.other_json]
    note = f"; ignored {_count(len(json_files), 'JSON file')}: {_names(json_files, root)}"
    ignored = [*((p, "a JSON file") for p in json_files), *split.ignored]
    return Detection(
        "markdown",
        root,
        markdown,
        f"markdown{how}: {_documents_phrase(split.documents)}"
        + (note if json_files else "")
        + _listed("ignored", split.ignored, root)
        + _listed("refused", split.refused, root),
        ignored=ignored,
        refused=split.refused,
    )


def detect_source(path: Path, fmt: str | None = None) -> Detection:
    """The format of ``path`` (a file or a folder) and the files to read; see above.

    ``fmt`` forces the format (it still decides which files of a folder are read).

    Raises:
        ContractError: the path does not exist, the format is unknown or cannot be
            told, or a folder mixes formats without ``fmt``; one line naming the files.
    """
    if fmt is not None and fmt not in FORMATS:
        raise ContractError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if not path.exists():
        raise ContractError(f"{path}: no such file or folder")
    if path.is_dir():
        return _detect_folder(path, fmt)
    return _detect_file(path, fmt)


__all__ = ["FORMATS", "Detection", "detect_source", "tree_files"]
