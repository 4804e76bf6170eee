"""Readers: sources become validated chunk records, before anything is written.

Formats:

* ``chunks``: chunk JSON Lines, one record a line, as is.
* ``beir``: a BEIR ``corpus.jsonl`` (or a folder holding one): one document per
  line, ``doc_id`` = ``_id``, the title kept as ``doc_title`` (and indexed with
  the text), one chunk per document unless the text is over the chunk size.
* ``markdown``: a folder of ``.md`` files (see :mod:`sectio.ingest.markdown`).

Every reader returns all records or raises :class:`RecordError` naming the
file, line and field of the first bad one.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sectio.contract.record import ChunkRecord, check_unique_ids, parse_record
from sectio.embed.port import TokenStarts
from sectio.errors import ContractError, NotAvailable, RecordError
from sectio.ingest.chunking import TokenCounter, approx_tokens, split_text

#: Documents tokenized per batch when the embedder gives token offsets.
_BLOCK = 1024

Format = Literal["chunks", "beir", "markdown"]
FORMATS: tuple[str, ...] = ("chunks", "beir", "markdown")


@dataclass(frozen=True)
class ReadResult:
    """What a reader produced."""

    records: list[ChunkRecord]
    format: str
    source: str


def _resolve_beir(path: Path) -> Path:
    return path / "corpus.jsonl" if path.is_dir() else path


def detect_format(path: Path) -> str:
    """Guess the format of ``path``.

    A folder with ``corpus.jsonl`` is BEIR, any other folder Markdown; a file
    is judged by its first JSON record (``chunk_id`` -> chunks, ``_id`` -> beir).

    Raises:
        ContractError: the path does not exist or its format cannot be told.
    """
    if not path.exists():
        raise ContractError(f"{path}: no such file or folder")
    if path.is_dir():
        return "beir" if (path / "corpus.jsonl").is_file() else "markdown"
    if path.suffix.lower() in (".md", ".markdown"):
        return "markdown"
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                first = json.loads(line)
            except json.JSONDecodeError as exc:
                raise RecordError(
                    str(path), lineno, "<json>", f"not valid JSON: {exc.msg}"
                ) from exc
            if isinstance(first, dict) and "chunk_id" in first:
                return "chunks"
            if isinstance(first, dict) and "_id" in first:
                return "beir"
            raise ContractError(
                f"{path}:{lineno}: cannot tell the format (no chunk_id or _id); pass --format"
            )
    raise ContractError(f"{path}: empty file")


def _json_lines(path: Path) -> list[tuple[int, object]]:
    out: list[tuple[int, object]] = []
    try:
        fh = path.open(encoding="utf-8")
    except OSError as exc:
        raise ContractError(f"{path}: cannot read: {exc.strerror}") from exc
    with fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                out.append((lineno, json.loads(line)))
            except json.JSONDecodeError as exc:
                raise RecordError(
                    str(path), lineno, "<json>", f"not valid JSON: {exc.msg}"
                ) from exc
            except UnicodeDecodeError as exc:  # pragma: no cover - binary input
                raise RecordError(str(path), lineno, "<json>", "not UTF-8") from exc
    return out


def read_chunks(path: Path) -> list[ChunkRecord]:
    """Read and validate chunk JSONL.

    Raises:
        RecordError: first invalid record or duplicate ``chunk_id``.
    """
    located = [
        (parse_record(data, str(path), lineno), str(path), lineno)
        for lineno, data in _json_lines(path)
    ]
    if not located:
        raise ContractError(f"{path}: no records")
    check_unique_ids(located)
    return [r for r, _, _ in located]


def read_beir(
    path: Path,
    max_tokens: int = 256,
    count: TokenCounter = approx_tokens,
    tenant: str = "default",
    starts: TokenStarts | None = None,
) -> list[ChunkRecord]:
    """Read a BEIR corpus; long documents are split into ordered chunks.

    Every line is validated before any text is split. With ``starts`` (the
    embedder's batched token offsets) each block of documents is tokenized
    once, in one parallel batch; otherwise ``count`` measures sentences.

    Raises:
        RecordError: a line without ``_id`` or text.
    """
    corpus = _resolve_beir(path)
    docs: list[tuple[int, str, str, str | None, dict[str, Any]]] = []
    for lineno, data in _json_lines(corpus):
        if not isinstance(data, dict):
            raise RecordError(str(corpus), lineno, "<record>", "must be a JSON object")
        doc_id = data.get("_id")
        if not isinstance(doc_id, str | int) or str(doc_id) == "":
            raise RecordError(str(corpus), lineno, "_id", "required field is missing")
        text = data.get("text")
        if not isinstance(text, str) or not text.strip():
            raise RecordError(str(corpus), lineno, "text", "must be non-empty")
        extra = {
            k: v
            for k, v in data.items()
            if k not in ("_id", "title", "text") and isinstance(v, str | int | float)
        }
        docs.append((lineno, str(doc_id), text, data.get("title") or None, extra))
    located: list[tuple[ChunkRecord, str, int]] = []
    for block in range(0, len(docs), _BLOCK):
        part_docs = docs[block : block + _BLOCK]
        offsets = starts([d[2] for d in part_docs]) if starts else [None] * len(part_docs)
        for (lineno, doc_id, text, title, extra), text_starts in zip(
            part_docs, offsets, strict=True
        ):
            budget = max_tokens - (count(title) if title else 0)
            parts = split_text(text, max(budget, 16), count, starts=text_starts)
            for i, part in enumerate(parts):
                record = {
                    "chunk_id": doc_id if len(parts) == 1 else f"{doc_id}#{i}",
                    "doc_id": doc_id,
                    "section_key": "body",
                    "part_index": i,
                    "text": part,
                    "doc_title": title,
                    "tenant": tenant,
                    "metadata": extra,
                    "source_refs": [{"source": corpus.name, "doc": doc_id}],
                }
                located.append((parse_record(record, str(corpus), lineno), str(corpus), lineno))
    if not located:
        raise ContractError(f"{corpus}: no records")
    check_unique_ids(located)
    return [r for r, _, _ in located]


def read_source(
    path: Path,
    fmt: str | None = None,
    *,
    max_tokens: int = 256,
    count: TokenCounter = approx_tokens,
    tenant: str | None = None,
    starts: TokenStarts | None = None,
) -> ReadResult:
    """Read any supported source into validated records.

    ``tenant`` assigns the records of a BEIR or Markdown source to a tenant; their
    chunk ids then get a ``<tenant>:`` prefix so two tenants can load the same
    source into one collection. Chunk records carry their own ``tenant`` field.

    Raises:
        ContractError: unknown format, unreadable source, ``tenant`` with chunk records.
        RecordError: first invalid record.
    """
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise ContractError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if not path.exists():
        raise ContractError(f"{path}: no such file or folder")
    if tenant is not None and fmt == "chunks":
        raise ContractError(
            "--tenant is for beir and markdown sources; chunk records carry their own tenant"
        )
    readers: dict[str, Callable[[], list[ChunkRecord]]] = {
        "chunks": lambda: read_chunks(path),
        "beir": lambda: read_beir(path, max_tokens=max_tokens, count=count, starts=starts),
        "markdown": lambda: _read_markdown(path, max_tokens, count),
    }
    records = readers[fmt]()
    if tenant is not None and tenant != "default":
        records = [_for_tenant(r, tenant) for r in records]
    return ReadResult(records=records, format=fmt, source=str(path))


def _for_tenant(record: ChunkRecord, tenant: str) -> ChunkRecord:
    update: dict[str, object] = {"tenant": tenant, "chunk_id": f"{tenant}:{record.chunk_id}"}
    if record.parent_id:
        update["parent_id"] = f"{tenant}:{record.parent_id}"
    return record.model_copy(update=update)


def _read_markdown(path: Path, max_tokens: int, count: TokenCounter) -> list[ChunkRecord]:
    try:
        markdown = importlib.import_module("sectio.ingest.markdown")
    except ImportError as exc:  # pragma: no cover - until the docs work lands
        raise NotAvailable("Markdown ingestion is not available in this build") from exc
    records: list[ChunkRecord] = markdown.read_markdown(path, max_tokens=max_tokens, count=count)
    return records
