"""The chunk record: one JSON object per chunk, the unit of the corpus contract.

Required: ``chunk_id`` (unique, stable), ``doc_id``, ``section_key``, ``part_index``
(int >= 0, order inside the section), ``text`` (non-empty). Optional fields are
typed; any other field passes through untouched (no whitelist). One
normalisation: ``metadata.domain`` and ``metadata.subdomain`` (strings, or
lists of strings) are stored trimmed and lower-cased, as the Markdown reader
derives them, so the case-insensitive domain filters (search, docs planner)
match whatever case a source used.

Example:
    >>> r = ChunkRecord.model_validate(
    ...     {"chunk_id": "a#0", "doc_id": "a", "section_key": "s", "part_index": 0,
    ...      "text": "hello", "page_hint": 4})
    >>> r.tenant, r.chunk_kind, r.model_dump()["page_hint"]
    ('default', 'prose', 4)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, field_validator

from sectio.contract.bounds import InputLimits, check_value
from sectio.errors import RecordError

_DEFAULT_LIMITS = InputLimits()

ChunkKind = Literal["prose", "block"]

#: ``metadata`` keys stored lower-cased (filters compare them case-insensitively).
FOLDED_METADATA = ("domain", "subdomain")


def _fold(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip().lower()
    if isinstance(value, list):
        return [_fold(v) for v in value]
    return value


class SourceRef(BaseModel):
    """Where a piece of evidence comes from."""

    model_config = ConfigDict(extra="allow")

    source: str = Field(min_length=1)
    page: int | str | None = None
    url: str | None = None


class ChunkRecord(BaseModel):
    """One chunk of one section of one document."""

    model_config = ConfigDict(extra="allow", frozen=True)

    chunk_id: str = Field(min_length=1)
    doc_id: str = Field(min_length=1)
    section_key: str = Field(min_length=1)
    part_index: StrictInt = Field(ge=0)
    text: str
    doc_title: str | None = None
    section_title: str | None = None
    chunk_kind: ChunkKind = "prose"
    tenant: str = Field(default="default", min_length=1)
    path: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    tags: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    source_refs: list[SourceRef] = Field(default_factory=list)
    requires_visual_check: bool = False
    has_quarantined_content: bool = False
    parent_id: str | None = None

    @field_validator("metadata")
    @classmethod
    def _fold_domains(cls, value: dict[str, Any]) -> dict[str, Any]:
        if not any(k in value for k in FOLDED_METADATA):
            return value
        return {k: _fold(v) if k in FOLDED_METADATA else v for k, v in value.items()}

    @field_validator("text")
    @classmethod
    def _text_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must be non-empty")
        return value

    def payload(self) -> dict[str, Any]:
        """The record as a JSON-ready dict: every field, unknown ones included."""
        return self.model_dump(mode="json")

    def index_text(self) -> str:
        """The text that is embedded and BM25-indexed: titles first, then the chunk.

        The document title (and the section title when it adds something) are
        indexed with the text, so a chunk is found by the names it lives under.
        """
        return "\n".join([*self.index_titles(), self.text])

    def index_titles(self) -> list[str]:
        """The title lines :meth:`index_text` puts before the text (none, one or two)."""
        parts: list[str] = []
        if self.doc_title:
            parts.append(self.doc_title)
        if self.section_title and self.section_title != self.doc_title:
            parts.append(self.section_title)
        return parts


def parse_record(
    data: object, source: str, line: int, limits: InputLimits | None = _DEFAULT_LIMITS
) -> ChunkRecord:
    """Validate one decoded JSON value as a chunk record, within ``limits``.

    The bounds (:mod:`sectio.contract.bounds`) are checked first, then the contract.
    ``limits=None`` skips the bounds: for values the reader already checked (see
    :func:`sectio.ingest.sources.iter_json_records`).

    Raises:
        RecordError: naming ``source``, ``line`` and the first offending field.
    """
    if not isinstance(data, dict):
        raise RecordError(source, line, "<record>", "must be a JSON object")
    bad = check_value(data, limits) if limits is not None else None
    if bad is not None:
        raise RecordError(source, line, *bad)
    try:
        return ChunkRecord.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err.get("loc", ())) or "<record>"
        msg = str(err.get("msg", "invalid"))
        if err.get("type") == "missing":
            msg = "required field is missing"
        raise RecordError(source, line, field, msg) from exc


def check_unique_ids(records: Iterable[tuple[ChunkRecord, str, int]]) -> None:
    """Refuse a corpus where two records share a ``chunk_id``.

    Raises:
        RecordError: on the second occurrence, naming its line (and the first's file
            when the two come from different files).
    """
    seen: dict[str, tuple[str, int]] = {}
    for record, source, line in records:
        first = seen.get(record.chunk_id)
        if first is not None:
            where = f"line {first[1]}" if first[0] == source else f"{first[0]}:{first[1]}"
            raise RecordError(
                source, line, "chunk_id", f"duplicate of {where} ({record.chunk_id!r})"
            )
        seen[record.chunk_id] = (source, line)


def corpus_sha256(records: Iterable[ChunkRecord]) -> str:
    """sha256 of the corpus in canonical form (sorted keys, one record a line).

    Independent of the source format and of key order, so the same chunks read
    from JSONL or derived from BEIR give the same hash.
    """
    h = hashlib.sha256()
    for record in records:
        h.update(json.dumps(record.payload(), sort_keys=True, ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()
