"""Document lifecycle: add, change and delete documents of a live collection, in place.

Three writes, each on one tenant of a collection that exists:

* **upsert** (``sectio upsert SRC``): every document SRC holds is added, or
  replaced when its hash differs (all its chunks written again; those of its old
  version that are gone removed); the others are left as they are;
* **delete** (``sectio delete --doc ID...``): the named documents' chunks are removed
  (an id the tenant does not hold is refused, and nothing is removed);
* **sync** (``sectio ingest SRC --sync``): the tenant is made equal to SRC: upsert
  what changed, delete what SRC no longer holds.

A document is unchanged when its hash (:mod:`sectio.ingest.doc_hashes`) is the
one the manifest records: it costs nothing (no embedding, no write). Changed
documents are embedded (through the cache) and weighted for BM25 with the
collection's ``avg_len`` (as a joining tenant is: the other points' weights
stay true; IDF is the engine's, over the points as they are). The write is
planned (:func:`plan_documents`, reads only), prepared (:func:`prepare`,
embedding, no index access) and applied (:func:`apply`): recorded in the
journal first, then points, removals and manifest (:mod:`sectio.ingest.journal`),
so a crash leaves every document old or new, and the next write or ``gc`` finishes it.
Readers in the writing process never see a half-changed document: the server
applies a write between two engine calls (:mod:`sectio.api.routes.admin`).

Example:
    >>> counts({"added": ("a",), "changed": (), "deleted": ("b", "c"), "unchanged": 4})
    {'added': 1, 'changed': 0, 'deleted': 2, 'unchanged': 4}
"""

from __future__ import annotations

import errno
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from sectio.contract.record import ChunkRecord, parse_record
from sectio.embed.cache import CachedEmbedder
from sectio.errors import ContractError, CorpusMismatch, InsufficientSpace, ManifestMismatch
from sectio.index.filters import AnyOf, Eq, Where
from sectio.index.ids import point_id_for
from sectio.index.lexical import LexicalEncoder
from sectio.index.manifest import Manifest
from sectio.index.port import IndexBackend, Journaled, PointData, VectorIndex
from sectio.index.qdrant.layout import ordinals, user_payload, with_ordinal
from sectio.ingest import journal
from sectio.ingest.doc_hashes import (
    DocEntry,
    documents_digest,
    group_by_document,
    payload_sha256,
)
from sectio.ingest.embedding import embed_records
from sectio.ingest.phases import PhaseClock
from sectio.ingest.tenancy import collection_digest

UPSERT, DELETE, SYNC = "upsert", "delete", "sync"
#: Points read per page when a tenant's documents are read from its points.
PAGE = 512


def counts(lists: dict[str, Any]) -> dict[str, int]:
    """How many documents were added, changed, deleted and left unchanged."""
    return {
        "added": len(lists["added"]),
        "changed": len(lists["changed"]),
        "deleted": len(lists["deleted"]),
        "unchanged": int(lists["unchanged"]),
    }


@dataclass(frozen=True)
class DocumentReport:
    """What a document write did: ``action`` (``upsert``, ``delete``, ``sync``), the doc
    ids added, changed and deleted (sorted), how many were unchanged, the points written
    and removed, and the collection's count after."""

    collection: str
    tenant: str
    action: str
    added: tuple[str, ...]
    changed: tuple[str, ...]
    deleted: tuple[str, ...]
    unchanged: int
    upserted: int
    removed: int
    collection_count: int
    embeddings_computed: int = 0
    embeddings_cached: int = 0
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "counts": counts(asdict(self))}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DocumentReport:
        """The report :meth:`as_dict` made (as a server's admin endpoint answers it)."""
        return cls(
            collection=str(data["collection"]),
            tenant=str(data["tenant"]),
            action=str(data["action"]),
            added=tuple(data.get("added") or ()),
            changed=tuple(data.get("changed") or ()),
            deleted=tuple(data.get("deleted") or ()),
            unchanged=int(data.get("unchanged") or 0),
            upserted=int(data.get("upserted") or 0),
            removed=int(data.get("removed") or 0),
            collection_count=int(data.get("collection_count") or 0),
            embeddings_computed=int(data.get("embeddings_computed") or 0),
            embeddings_cached=int(data.get("embeddings_cached") or 0),
            seconds=float(data.get("seconds") or 0.0),
            phases=dict(data.get("phases") or {}),
        )


@dataclass(frozen=True)
class DocumentPlan:
    """A document write decided before anything is written (:func:`plan_documents`).

    ``records``: the chunks to write (those of added and changed documents);
    ``delete``: the point ids to remove (gone chunks of changed documents, all of
    deleted ones); ``manifest``: the collection's manifest after the write.
    """

    name: str
    tenant: str
    action: str
    added: tuple[str, ...]
    changed: tuple[str, ...]
    deleted: tuple[str, ...]
    unchanged: int
    records: tuple[ChunkRecord, ...]
    delete: tuple[str, ...]
    manifest: Manifest
    #: The manifest the plan was made against (a write applies only over it).
    base: Manifest

    @property
    def empty(self) -> bool:
        """Nothing to write: every document is unchanged."""
        return not (self.records or self.delete)


@dataclass(frozen=True)
class Prepared:
    """A planned write with its points built (embedded): ready to apply."""

    plan: DocumentPlan
    points: tuple[PointData, ...]
    embeddings_computed: int
    embeddings_cached: int


def held_documents(index: VectorIndex, manifest: Manifest, tenant: str) -> dict[str, DocEntry]:
    """The documents ``tenant`` holds: the manifest's entry, or (a manifest written before
    per-document hashes) read once from its points."""
    entry = manifest.tenants.get(tenant) or {}
    if isinstance(entry.get("documents"), dict):
        return dict(entry["documents"])
    payloads: dict[str, list[dict[str, Any]]] = {}
    offset: str | None = None
    while True:
        page, offset = index.scroll(Where.of(Eq("tenant", tenant)), limit=PAGE, offset=offset)
        for point in page:
            record = parse_record(user_payload(point.payload), "collection", 0)
            payloads.setdefault(record.doc_id, []).append(record.payload())
        if offset is None or not page:
            break
    return {
        doc: {"sha256": payload_sha256(group), "chunks": len(group)}
        for doc, group in sorted(payloads.items())
    }


def one_tenant(records: Sequence[ChunkRecord], tenant: str | None) -> str:
    """The one tenant ``records`` belong to (``tenant`` when given and they all match).

    Raises:
        ContractError: they name several tenants, or another than ``tenant``.
    """
    found = sorted({r.tenant for r in records})
    if tenant is not None and found and found != [tenant]:
        raise ContractError(
            f"the source's records belong to tenant(s) {', '.join(found)}, not {tenant!r}"
        )
    if len(found) > 1:
        raise ContractError(
            f"the source holds records of several tenants ({', '.join(found)}); a document "
            "write changes one tenant: split it, or pass --tenant on a Markdown or BEIR source"
        )
    return tenant or (found[0] if found else "default")


def plan_documents(
    index: VectorIndex,
    manifest: Manifest,
    tenant: str,
    records: Sequence[ChunkRecord],
    *,
    action: str,
    doc_ids: Sequence[str] = (),
) -> DocumentPlan:
    """Decide a document write on ``tenant`` of an open collection (reads only).

    ``records``: the source's chunks (upsert, sync); ``doc_ids``: the documents to
    delete (delete).

    Raises:
        ContractError: a delete names a document the tenant does not hold; a chunk id
            of the source is already a point of another document or tenant.
        CorpusMismatch: the tenant is not in the collection (load it with ``ingest``).
    """
    if tenant not in manifest.tenants:
        raise CorpusMismatch(
            f"collection {manifest.collection!r} holds no tenant {tenant!r}; "
            "load its first version with `sectio ingest`",
            fields=["tenants"],
        )
    held = held_documents(index, manifest, tenant)
    groups = group_by_document(records)
    incoming = {
        doc: {"sha256": payload_sha256(r.payload() for r in group), "chunks": len(group)}
        for doc, group in groups.items()
    }
    added = sorted(d for d in incoming if d not in held)
    changed = sorted(d for d in incoming if d in held and held[d] != incoming[d])
    deleted = _deleted(held, incoming, action, doc_ids, manifest.collection, tenant)
    writing = set(added) | set(changed)
    chosen = tuple(r for d in sorted(writing) for r in groups[d])
    _check_ids(index, chosen, tenant, set(changed), manifest.collection)
    new_ids = {point_id_for(r.chunk_id) for r in chosen}
    old = _point_ids(index, tenant, [*changed, *deleted])
    docs = {d: e for d, e in held.items() if d not in deleted} | {d: incoming[d] for d in writing}
    return DocumentPlan(
        name=manifest.collection,
        tenant=tenant,
        action=action,
        added=tuple(added),
        changed=tuple(changed),
        deleted=tuple(deleted),
        unchanged=sum(1 for d in incoming if d in held and d not in writing),
        records=chosen,
        delete=tuple(sorted(old - new_ids)),
        manifest=with_documents(manifest, tenant, docs),
        base=manifest,
    )


def _deleted(
    held: dict[str, DocEntry],
    incoming: dict[str, DocEntry],
    action: str,
    doc_ids: Sequence[str],
    name: str,
    tenant: str,
) -> list[str]:
    """The documents a write removes: sync's gone ones, delete's named ones.

    Raises:
        ContractError: a named document is not held (nothing is removed).
    """
    if action == SYNC:
        return sorted(d for d in held if d not in incoming)
    if action != DELETE:
        return []
    unknown = [d for d in doc_ids if d not in held]
    if unknown:
        raise ContractError(
            f"tenant {tenant!r} of collection {name!r} holds no document "
            f"{', '.join(repr(d) for d in unknown[:5])}"
            f"{' (and more)' if len(unknown) > 5 else ''}; nothing was deleted"
        )
    return sorted(set(doc_ids))


def _check_ids(
    index: VectorIndex, records: Sequence[ChunkRecord], tenant: str, changed: set[str], name: str
) -> None:
    """Refuse chunk ids that are points of another tenant or of a document not rewritten.

    Raises:
        ContractError: naming the first such chunk id and where it is.
    """
    for start in range(0, len(records), PAGE):
        part = records[start : start + PAGE]
        found = index.retrieve([point_id_for(r.chunk_id) for r in part])
        for point in found:
            owner = point.payload
            if owner.get("tenant") == tenant and owner.get("doc_id") in changed:
                continue
            raise ContractError(
                f"chunk id {owner.get('chunk_id')!r} is already a point of document "
                f"{owner.get('doc_id')!r} (tenant {owner.get('tenant')!r}) in collection "
                f"{name!r}; chunk ids must be unique in a collection"
            )


def _point_ids(index: VectorIndex, tenant: str, docs: Sequence[str]) -> set[str]:
    """The ids of every point of ``docs`` of ``tenant``."""
    out: set[str] = set()
    for start in range(0, len(docs), PAGE):
        where = Where.of(Eq("tenant", tenant), AnyOf("doc_id", tuple(docs[start : start + PAGE])))
        offset: str | None = None
        while True:
            page, offset = index.scroll(where, limit=PAGE, offset=offset)
            out.update(p.id for p in page)
            if offset is None or not page:
                break
    return out


def with_documents(manifest: Manifest, tenant: str, docs: dict[str, DocEntry]) -> Manifest:
    """``manifest`` with ``tenant`` holding ``docs``: its entry's count and digest, the
    collection's over every tenant (a tenant left with no document is removed)."""
    tenants = dict(manifest.tenants)
    entry = dict(tenants.get(tenant) or {})
    if docs:
        entry.update(
            documents=dict(sorted(docs.items())),
            chunk_count=sum(int(e["chunks"]) for e in docs.values()),
            corpus_sha256=documents_digest(docs),
        )
        tenants[tenant] = entry
    else:
        tenants.pop(tenant, None)
    return manifest.model_copy(
        update={
            "tenants": dict(sorted(tenants.items())),
            "chunk_count": sum(int(c.get("chunk_count") or 0) for c in tenants.values()),
            "corpus_sha256": collection_digest(tenants) if tenants else documents_digest({}),
        }
    )


def prepare(
    plan: DocumentPlan, embedder: CachedEmbedder, clock: PhaseClock, *, batch_size: int = 256
) -> Prepared:
    """Embed and BM25-encode the plan's chunks as the collection's manifest says (no
    index access: the server runs this off its engine thread).

    Raises:
        ManifestMismatch: the embedder is not the collection's.
    """
    manifest = plan.base
    if (embedder.model_id, embedder.dimensions) != (manifest.model_id, manifest.dimensions):
        raise ManifestMismatch(
            f"collection {plan.name!r} was built with {manifest.model_id} "
            f"({manifest.dimensions}-d), not the configured {embedder.model_id}"
        )
    before = (embedder.stats.computed, embedder.stats.cached)
    records = list(plan.records)
    texts = [r.index_text() for r in records]
    lexical = LexicalEncoder.from_manifest_entry(manifest.bm25)
    with clock.phase("tokenize", total=len(texts)):
        sparse = lexical.encode_documents(texts) if texts else []
    dense = embed_records(
        records,
        texts,
        embedder,
        clock,
        batch_size=batch_size,
        dense_window_tokens=manifest.dense_window_tokens,
    )
    places = ordinals(r.doc_id for r in records)
    points = tuple(
        PointData(
            id=point_id_for(r.chunk_id), dense=d, sparse=s, payload=with_ordinal(r.payload(), n)
        )
        for r, d, s, n in zip(records, dense, sparse, places, strict=True)
    )
    return Prepared(
        plan,
        points,
        embedder.stats.computed - before[0],
        embedder.stats.cached - before[1],
    )


def apply(backend: IndexBackend, index: VectorIndex, prepared: Prepared, clock: PhaseClock) -> int:
    """Write a prepared plan in place: journal entry, points, removals, manifest (see
    :mod:`sectio.ingest.journal`); returns the collection's count after.

    Raises:
        CorpusMismatch: the live manifest is no longer the one the plan was made on.
        NotAvailable: the backend cannot write documents in place.
        InsufficientSpace: the disk filled up (ENOSPC); it says whether the journal holds
            the write (then ``gc`` or the next write finishes it) or nothing changed.
    """
    plan = prepared.plan
    store = journal.journaled(backend)
    live = backend.read_manifest(plan.name)
    if live != plan.base:
        raise CorpusMismatch(
            f"collection {plan.name!r} changed while this write was prepared; run it again",
            fields=["corpus_sha256"],
        )
    if plan.empty:
        return index.count()
    with clock.phase("write", total=len(prepared.points) + len(plan.delete)):
        try:
            _write_journaled(backend, store, index, prepared)
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
            recorded = store.read_journal(plan.name) is not None
            raise InsufficientSpace(
                f"no space left on the device while writing collection {plan.name!r}: "
                + (
                    "the write is recorded in its journal; free space, then `sectio gc` "
                    "(or the next write) finishes it"
                    if recorded
                    else "nothing was changed"
                )
            ) from exc
    return index.count()


def _write_journaled(
    backend: IndexBackend, store: Journaled, index: VectorIndex, prepared: Prepared
) -> None:
    from sectio._faults import fault_point

    plan = prepared.plan
    store.write_journal(
        plan.name,
        journal.documents_entry(plan.tenant, prepared.points, plan.delete, plan.manifest),
    )
    fault_point("lifecycle.journal.written")
    journal.apply_documents(backend, index, plan.name, prepared.points, plan.delete, plan.manifest)


def report(prepared: Prepared, count: int, started: float, clock: PhaseClock) -> DocumentReport:
    """The :class:`DocumentReport` of an applied write."""
    plan = prepared.plan
    return DocumentReport(
        collection=plan.name,
        tenant=plan.tenant,
        action=plan.action,
        added=plan.added,
        changed=plan.changed,
        deleted=plan.deleted,
        unchanged=plan.unchanged,
        upserted=len(prepared.points),
        removed=len(plan.delete),
        collection_count=count,
        embeddings_computed=prepared.embeddings_computed,
        embeddings_cached=prepared.embeddings_cached,
        seconds=round(time.perf_counter() - started, 3),
        phases=clock.seconds(),
    )


__all__ = [
    "DELETE",
    "SYNC",
    "UPSERT",
    "DocumentPlan",
    "DocumentReport",
    "Prepared",
    "apply",
    "held_documents",
    "one_tenant",
    "plan_documents",
    "prepare",
    "report",
    "with_documents",
]
