"""What a collection looks like in Qdrant, whichever backend holds it.

Each chunk is one point: the whole record as payload, plus filterable 0/1 copies of
its flags under :data:`RESERVED` (bool payload filters never match in Qdrant Edge),
and the payload indexes of :data:`PAYLOAD_INDEXES`. ``enable_hnsw=False`` on every
index except the tenant one keeps optimize() affordable (ENGINE-NOTES: 79 s vs
475 s per 100k chunks).

Example:
    >>> engine_payload({"tenant": "a", "requires_visual_check": True})["_sectio"]
    {'requires_visual_check': 1, 'has_quarantined_content': 0}
    >>> [i.field for i in PAYLOAD_INDEXES][:2]
    ['tenant', 'chunk_id']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

#: Keyword payload indexes created with every collection (``path`` also has a prefix index).
KEYWORD_FIELDS = (
    "chunk_id",
    "doc_id",
    "section_key",
    "chunk_kind",
    "tags",
    "path",
    "parent_id",
    "layer",
    "metadata.domain",
    "metadata.subdomain",
)
#: Flags are indexed as 0/1 integers under ``_sectio``: bool filters never match in edge.
FLAG_FIELDS = ("requires_visual_check", "has_quarantined_content")
RESERVED = "_sectio"
#: Scalar int8 quantization: the quantile both backends are configured with.
INT8_QUANTILE = 0.99

IndexKind = Literal["tenant", "keyword", "integer", "text"]


@dataclass(frozen=True)
class PayloadIndex:
    """One payload index, engine-neutral; each adapter renders it as its own params."""

    field: str
    kind: IndexKind
    #: keyword: also a prefix index.
    prefix: bool = False
    #: integer: also a range index (ordered scroll and ``Range`` filters need it).
    range: bool = False


def flag_key(flag: str) -> str:
    """The payload key of a flag's filterable 0/1 copy."""
    return f"{RESERVED}.{flag}"


def engine_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """The stored payload: the whole record, plus filterable copies under ``_sectio`` (and
    what the writer put there already: the record's :data:`ORDINAL`)."""
    out = dict(payload)
    kept = payload.get(RESERVED)
    out[RESERVED] = {
        **(kept if isinstance(kept, dict) else {}),
        **{flag: 1 if payload.get(flag) else 0 for flag in FLAG_FIELDS},
    }
    return out


#: A record's place among its document's records as the source listed them (the book's
#: order, which chunk ids and section keys need not follow), kept under ``_sectio``.
ORDINAL = "ordinal"


def ordinals(doc_ids: Iterable[Any]) -> list[int]:
    """Each record's :data:`ORDINAL`, given the records' doc ids in source order: its place
    among its document's records.

    Example:
        >>> ordinals(["a", "b", "a"])
        [0, 0, 1]
        >>> row = with_ordinal({"doc_id": "a"}, 1)
        >>> ordinal(row), user_payload(row)
        (1, {'doc_id': 'a'})
    """
    seen: dict[Any, int] = {}
    out = []
    for doc_id in doc_ids:
        n = seen.get(doc_id, 0)
        seen[doc_id] = n + 1
        out.append(n)
    return out


def with_ordinal(payload: dict[str, Any], n: int | None) -> dict[str, Any]:
    """``payload`` to write with its :data:`ORDINAL` ``n`` (unchanged for None)."""
    return payload if n is None else {**payload, RESERVED: {ORDINAL: n}}


def ordinal(payload: dict[str, Any]) -> int | None:
    """A stored record's :data:`ORDINAL` (None: written before records kept one)."""
    kept = payload.get(RESERVED)
    value = kept.get(ORDINAL) if isinstance(kept, dict) else None
    return value if isinstance(value, int) else None


def user_payload(payload: dict[str, Any] | None) -> dict[str, Any]:
    """A stored payload as the record it came from (the ``_sectio`` copies removed)."""
    out = dict(payload or {})
    out.pop(RESERVED, None)
    return out


#: Every payload index a collection gets, in creation order.
PAYLOAD_INDEXES: tuple[PayloadIndex, ...] = (
    PayloadIndex("tenant", "tenant"),
    *(PayloadIndex(name, "keyword", prefix=name == "path") for name in KEYWORD_FIELDS),
    PayloadIndex("part_index", "integer", range=True),
    *(PayloadIndex(flag_key(flag), "integer") for flag in FLAG_FIELDS),
    PayloadIndex("text", "text"),
)
