"""Format detection: by content, never silently; every outcome says what and why.

A **file** is judged by its content (:func:`sectio.ingest.sources.sniff`): gzip
or not, then a JSON array (``[``) or JSON Lines (``{``) whose first record has
``chunk_id`` (chunks) or ``_id`` (BEIR); a ``.md``/``.markdown`` file that is
text is Markdown. Anything else is refused with what was found.

A **folder** is:

* BEIR when it holds ``corpus.jsonl`` (or ``corpus.jsonl.gz``);
* else every file below it (hidden folders, ``node_modules``, ``site`` and
  ``__pycache__`` skipped) is sorted into Markdown (``*.md``), record files
  (``.json``, ``.jsonl``, ``.ndjson``, each maybe ``.gz``) and the rest
  (images, ...: never read, as in any docs tree);
* record files only: chunks, every file read, in path order; a record file whose
  first record has no ``chunk_id`` is an error naming it;
* Markdown only: Markdown; JSON files that hold no records (``package.json``, a
  schema) are listed as ignored;
* both: an error naming the files of each kind. ``--format chunks`` then reads
  only the record files and ``--format markdown`` only the Markdown, and the
  other kind is listed as ignored: the flag is the user saying so.

:attr:`Detection.reason` is the one line the CLI prints (and ``--json`` holds).

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

from sectio.errors import ContractError
from sectio.ingest.sources import Sniffed, sniff

FORMATS: tuple[str, ...] = ("chunks", "beir", "markdown")
MARKDOWN_SUFFIXES = (".md", ".markdown")
RECORD_SUFFIXES = (".json", ".jsonl", ".ndjson")
SKIP_DIRS = ("node_modules", "site", "__pycache__")
BEIR_CORPUS = ("corpus.jsonl", "corpus.jsonl.gz")
#: File names shown in a message before "and N more".
_SHOWN = 5


@dataclass(frozen=True)
class Detection:
    """The format of a source, the files to read, and one line saying why."""

    format: str
    path: Path
    files: list[Path] = field(default_factory=list)
    reason: str = ""


def _names(files: list[Path], root: Path) -> str:
    shown = [f.relative_to(root).as_posix() if f != root else f.name for f in files[:_SHOWN]]
    more = f" and {len(files) - _SHOWN} more" if len(files) > _SHOWN else ""
    return ", ".join(shown) + more


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _is_record_file(path: Path) -> bool:
    name = path.name.lower().removesuffix(".gz")
    return name.endswith(RECORD_SUFFIXES)


def _is_markdown(path: Path) -> bool:
    return path.name.lower().endswith(MARKDOWN_SUFFIXES)


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
    if fmt is not None:
        return Detection(fmt, path, [path], f"{fmt} (--format {fmt}): {path.name} holds {what}")
    if _is_markdown(path) and found.container in ("text", "empty"):
        return Detection("markdown", path, [path], f"markdown: {path.name} is a Markdown file")
    kind = found.record_kind
    if kind is None and not found.decoded and found.container in ("jsonl", "json-array"):
        kind = "chunks"  # the reader names the line and why it does not decode
    if kind is not None:
        return Detection(kind, path, [path], f"{kind}: {path.name} holds {what}")
    if found.container == "empty":
        raise ContractError(f"{path}: empty file")
    raise ContractError(
        f"{path}: cannot tell the format: it holds {what}; expected chunk records "
        "(JSON Lines or a JSON array, maybe gzip) or Markdown; pass --format"
    )


def _split_folder(root: Path) -> tuple[list[Path], list[Path], list[Path], dict[Path, Sniffed]]:
    """The Markdown files, chunk record files and record-less JSON files under ``root``."""
    markdown: list[Path] = []
    chunks: list[Path] = []
    other_json: list[Path] = []
    sniffed: dict[Path, Sniffed] = {}
    for f in tree_files(root):
        if f.name.startswith("."):
            continue
        if f.suffix == ".md":  # what the Markdown reader reads in a folder
            markdown.append(f)
        elif _is_record_file(f):
            sniffed[f] = found = sniff(f)
            records = found.record_kind is not None or not found.decoded
            (chunks if records else other_json).append(f)
    return markdown, chunks, other_json, sniffed


def _detect_folder(root: Path, fmt: str | None) -> Detection:
    corpus = next((root / n for n in BEIR_CORPUS if (root / n).is_file()), None)
    if fmt == "beir" or (fmt is None and corpus is not None):
        if corpus is None:
            raise ContractError(f"{root}: no corpus.jsonl in this BEIR folder")
        why = "--format beir" if fmt else f"the folder holds {corpus.name}"
        return Detection("beir", root, [corpus], f"beir ({why}): {corpus.name}")
    markdown, chunks, other_json, sniffed = _split_folder(root)
    how = f" (--format {fmt})" if fmt else ""
    if fmt is None and markdown and chunks:
        raise ContractError(
            f"{root}: mixes formats: {_count(len(chunks), 'chunk record file')} "
            f"({_names(chunks, root)}) and {_count(len(markdown), 'Markdown file')} "
            f"({_names(markdown, root)}); pass --format chunks to read only the record "
            "files (Markdown ignored) or --format markdown to read only the Markdown"
        )
    if fmt == "markdown" or (fmt is None and markdown):
        if not markdown:
            raise ContractError(f"{root}: no .md files")
        ignored = [*chunks, *other_json]
        note = f"; ignored {_count(len(ignored), 'JSON file')}: {_names(ignored, root)}"
        return Detection(
            "markdown",
            root,
            markdown,
            f"markdown{how}: {_count(len(markdown), 'Markdown file')}" + (note if ignored else ""),
        )
    if not chunks and not other_json:
        raise ContractError(
            f"{root}: no .md or record files (.json, .jsonl, .ndjson, maybe .gz) in this folder"
        )
    files = [*chunks, *other_json]
    for f in files:
        if sniffed[f].record_kind != "chunks" and sniffed[f].decoded:
            raise ContractError(
                f"{f}: not a chunk record file: it holds {sniffed[f].describe()}"
                + ("; a BEIR corpus is read from a folder holding corpus.jsonl" if chunks else "")
            )
    first = sniffed[files[0]].describe()
    skipped = f"; ignored {_count(len(markdown), 'Markdown file')}: {_names(markdown, root)}"
    return Detection(
        "chunks",
        root,
        sorted(files, key=lambda p: p.relative_to(root).as_posix()),
        f"chunks{how}: {_count(len(files), 'record file')}: {_names(files, root)} ({first})"
        + (skipped if markdown else ""),
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
