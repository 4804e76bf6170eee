"""Readers: sources become validated chunk records, before anything is written.

Formats (told by content, see :mod:`sectio.ingest.detect`):

* ``chunks``: chunk records, as is: JSON Lines or a JSON array, either one maybe
  gzip (``.jsonl``, ``.json``, ``.json.gz``, ``.jsonl.gz``); one file or a
  folder of them (read in path order, ``chunk_id`` unique across files).
* ``beir``: a BEIR ``corpus.jsonl`` (or a folder holding one): one document per
  line, ``doc_id`` = ``_id``, the title kept as ``doc_title`` (and indexed with
  the text), one chunk per document unless the text is over the chunk size.
* ``markdown``: documents, one or a folder of them: Markdown, MDX, PDF, HTML, DOCX,
  text (see :mod:`sectio.ingest.markdown` and :mod:`sectio.ingest.documents`).

Every reader reads under :class:`~sectio.contract.bounds.InputLimits` and returns
all records or raises :class:`RecordError` naming the file, line and field of the
first bad one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sectio.contract.bounds import InputLimits
from sectio.contract.record import ChunkRecord, check_unique_ids, parse_record
from sectio.embed.port import TokenStarts
from sectio.errors import ContractError, NotAvailable, RecordError
from sectio.ingest.chunking import TokenCounter, approx_tokens, split_text
from sectio.ingest.detect import FORMATS, detect_source
from sectio.ingest.phases import PhaseClock
from sectio.ingest.sources import iter_json_records

#: Documents tokenized per batch when the embedder gives token offsets.
_BLOCK = 1024
_LIMITS = InputLimits()

Format = Literal["chunks", "beir", "markdown"]


@dataclass(frozen=True)
class ReadResult:
    """What a reader produced; ``detected`` says what the source was taken for and why."""

    records: list[ChunkRecord]
    format: str
    source: str
    detected: str = ""
    #: Files of the source not read, and documents refused, each ``(path, why)``.
    ignored: list[tuple[str, str]] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)


def detect_format(path: Path) -> str:
    """The format of ``path``, told by content (:func:`sectio.ingest.detect.detect_source`).

    Raises:
        ContractError: the path does not exist or its format cannot be told.
    """
    return detect_source(path).format


def read_chunks(path: Path | list[Path], limits: InputLimits = _LIMITS) -> list[ChunkRecord]:
    """Read and validate chunk records from one file or several (in the order given).

    Raises:
        ContractError: a file cannot be read or holds no records.
        RecordError: first invalid record or duplicate ``chunk_id`` (across files too).
    """
    files = path if isinstance(path, list) else [path]
    located: list[tuple[ChunkRecord, str, int]] = []
    for file in files:
        before = len(located)
        located.extend(
            (parse_record(data, str(file), lineno, None), str(file), lineno)
            for lineno, data in iter_json_records(file, limits)
        )
        if len(located) == before:
            raise ContractError(f"{file}: no records")
    check_unique_ids(located)
    return [r for r, _, _ in located]


def _beir_corpus(path: Path) -> Path:
    if not path.is_dir():
        return path
    gz = path / "corpus.jsonl.gz"
    return gz if gz.is_file() and not (path / "corpus.jsonl").is_file() else path / "corpus.jsonl"


_BeirDoc = tuple[int, str, str, str | None, dict[str, Any]]


def _beir_docs(corpus: Path, limits: InputLimits) -> list[_BeirDoc]:
    """``(line, doc_id, text, title, extra)`` per BEIR document, each line validated
    (its bounds by the reader: the chunks cut from it need no second check)."""
    docs: list[_BeirDoc] = []
    for lineno, data in iter_json_records(corpus, limits):
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
    return docs


def read_beir(
    path: Path,
    max_tokens: int = 256,
    count: TokenCounter = approx_tokens,
    tenant: str = "default",
    starts: TokenStarts | None = None,
    limits: InputLimits = _LIMITS,
) -> list[ChunkRecord]:
    """Read a BEIR corpus; long documents are split into ordered chunks.

    Every line is validated before any text is split. With ``starts`` (the
    embedder's batched token offsets) each block of documents is tokenized
    once, in one parallel batch; otherwise ``count`` measures sentences.

    Raises:
        RecordError: a line without ``_id`` or text, or out of ``limits``.
    """
    corpus = _beir_corpus(path)
    docs = _beir_docs(corpus, limits)
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
                located.append(
                    (parse_record(record, str(corpus), lineno, None), str(corpus), lineno)
                )
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
    limits: InputLimits = _LIMITS,
    clock: PhaseClock | None = None,
) -> ReadResult:
    """Read any supported source into validated records.

    The format is ``fmt`` or told by content (:mod:`sectio.ingest.detect`); the
    result's ``detected`` says which and why. ``tenant`` assigns the records of
    a BEIR or Markdown source to a tenant; their chunk ids then get a
    ``<tenant>:`` prefix so two tenants can load the same source into one
    collection. Chunk records carry their own ``tenant`` field. ``clock`` times a
    Markdown source's parse (``read``, in files) and layer building (``layers``).

    Raises:
        ContractError: unknown format, unreadable source, a folder mixing formats,
            ``tenant`` with chunk records.
        RecordError: first invalid record.
    """
    found = detect_source(path, fmt)
    if tenant is not None and found.format == "chunks":
        raise ContractError(
            "--tenant is for beir and markdown sources; chunk records carry their own tenant"
        )
    readers: dict[str, Callable[[], list[ChunkRecord]]] = {
        "chunks": lambda: read_chunks(found.files, limits),
        "beir": lambda: read_beir(
            found.files[0], max_tokens=max_tokens, count=count, starts=starts, limits=limits
        ),
        "markdown": lambda: _read_markdown(
            path, max_tokens, count, limits, clock, found.files, late
        ),
    }
    late: list[tuple[str, str]] = []
    records = readers[found.format]()
    if tenant is not None and tenant != "default":
        records = [_for_tenant(r, tenant) for r in records]
    listing = found.listing()
    refused = [(r["path"], r["why"]) for r in listing["refused"]] + late
    detected = found.reason
    if late:
        shown = ", ".join(f"{p} ({why})" for p, why in late[:5])
        detected += f"; refused while read: {len(late)} file{'s' if len(late) > 1 else ''}: {shown}"
    return ReadResult(
        records=records,
        format=found.format,
        source=str(path),
        detected=detected,
        ignored=[(r["path"], r["why"]) for r in listing["ignored"]],
        refused=refused,
    )


def _for_tenant(record: ChunkRecord, tenant: str) -> ChunkRecord:
    update: dict[str, object] = {"tenant": tenant, "chunk_id": f"{tenant}:{record.chunk_id}"}
    if record.parent_id:
        update["parent_id"] = f"{tenant}:{record.parent_id}"
    dense_from = getattr(record, "dense_from", None)
    if dense_from:  # the chunk whose vector it reuses was renamed too
        update["dense_from"] = f"{tenant}:{dense_from}"
    return record.model_copy(update=update)


def _read_markdown(
    path: Path,
    max_tokens: int,
    count: TokenCounter,
    limits: InputLimits,
    clock: PhaseClock | None = None,
    files: list[Path] | None = None,
    refused: list[tuple[str, str]] | None = None,
) -> list[ChunkRecord]:
    try:
        markdown = importlib.import_module("sectio.ingest.markdown")
    except ImportError as exc:  # pragma: no cover - until the docs work lands
        raise NotAvailable("Markdown ingestion is not available in this build") from exc
    records: list[ChunkRecord] = markdown.read_markdown(
        path,
        max_tokens=max_tokens,
        count=count,
        limits=limits,
        clock=clock,
        files=files,
        refused=refused,
    )
    return records


__all__ = ["FORMATS", "ReadResult", "detect_format", "read_beir", "read_chunks", "read_source"]
