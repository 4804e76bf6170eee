"""Per-document hashes: what says a document changed, without reading its points.

A tenant's manifest entry (:mod:`sectio.ingest.tenancy`) holds ``documents``:
doc id -> ``{"sha256", "chunks"}``. A document's sha256 is over its records'
payloads in canonical form, ordered by chunk id (so it does not depend on the
order a source lists them in, and can be computed again from the points the
collection holds). The derived rows of a docs corpus (D1-D5) carry their
document's ``doc_id``, so they are part of its hash: a page whose inbound links
changed changes too.

Example:
    >>> from sectio.contract.record import ChunkRecord
    >>> r = ChunkRecord(chunk_id="c", doc_id="d", section_key="s", part_index=0, text="t")
    >>> docs = document_hashes([r])
    >>> list(docs), docs["d"]["chunks"]
    (['d'], 1)
    >>> documents_digest(docs) == documents_digest(document_hashes([r]))
    True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from sectio.contract.record import ChunkRecord

#: One document's entry: ``{"sha256": str, "chunks": int}``.
DocEntry = dict[str, Any]


def group_by_document(records: Iterable[ChunkRecord]) -> dict[str, list[ChunkRecord]]:
    """``records`` by doc id, each document's in the order given, doc ids in first-seen order."""
    out: dict[str, list[ChunkRecord]] = {}
    for record in records:
        out.setdefault(record.doc_id, []).append(record)
    return out


def payload_sha256(payloads: Iterable[dict[str, Any]]) -> str:
    """sha256 of record payloads, ordered by chunk id, each in canonical JSON."""
    h = hashlib.sha256()
    for payload in sorted(payloads, key=lambda p: str(p.get("chunk_id"))):
        h.update(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()


def document_hashes(records: Iterable[ChunkRecord]) -> dict[str, DocEntry]:
    """Each document's ``{"sha256", "chunks"}`` in ``records``, by doc id, sorted."""
    groups = group_by_document(records)
    return {
        doc: {"sha256": payload_sha256(r.payload() for r in group), "chunks": len(group)}
        for doc, group in sorted(groups.items())
    }


def documents_digest(documents: Mapping[str, DocEntry]) -> str:
    """One sha256 over a tenant's documents (their ids, hashes and counts, by id)."""
    h = hashlib.sha256()
    for doc, entry in sorted(documents.items()):
        h.update(f"{doc}\t{entry['sha256']}\t{entry['chunks']}\n".encode())
    return h.hexdigest()


__all__ = ["DocEntry", "document_hashes", "documents_digest", "group_by_document", "payload_sha256"]
