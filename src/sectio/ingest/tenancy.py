"""Tenants sharing one collection: each tenant's corpus is its own.

Every record names its tenant (``default`` when it names none). A collection's
manifest records each tenant's corpus (``Manifest.tenants``: the sha256 of its
records, their count, the source), and a load is planned tenant by tenant
against it (:func:`plan_tenants`):

* a tenant the load does not name is never touched: its points stay as they
  are (a staged version gets them copied, vectors and all, never re-embedded);
* a tenant the collection does not hold yet is **added** in place: another
  tenant's first load is not "another corpus" (it is written under a journal
  entry naming it, its manifest entry after its points, so an add that fails
  part way is reported not ready and then removed again:
  :mod:`sectio.ingest.journal`);
* a tenant whose corpus changed needs ``replace``: its points are **replaced**
  in a staged new version that holds the other tenants' points unchanged,
  switched live at once (a failure leaves the live version as it was);
* a tenant whose corpus is the same **converges** (nothing is written when every
  one of its points is there; a short count is repaired in place).

The settings tenants share (model, dimensions, profile, BM25, quantization,
dense windows) are the collection's: a load that would change them must name
every tenant the collection holds (and pass ``replace``: the collection is
rebuilt); one that leaves other tenants behind is refused, ``replace`` or not,
since their points could not be rebuilt with the new settings. A joining or
replaced tenant's BM25 document weights use the collection's ``avg_len``.

Chunk ids stay unique within a collection (point id = uuid5 of the chunk id):
a load whose chunk ids are already another tenant's points is refused
(``--tenant`` on a BEIR or Markdown source prefixes its chunk ids, so two
tenants can load one source).

A manifest written before per-tenant entries has none: when the collection
holds only tenants the load names, the load is planned as one corpus (as
before); otherwise the other tenants are found by reading the points' tenants
once, and every tenant of such a collection counts as changed.

Example:
    >>> from sectio.contract.record import ChunkRecord
    >>> r = ChunkRecord(chunk_id="c", doc_id="d", section_key="s", part_index=0, text="t")
    >>> corpora = tenant_corpora([r], "src.jsonl")
    >>> list(corpora), corpora["default"]["chunk_count"]
    (['default'], 1)
    >>> collection_digest(corpora) == corpora["default"]["corpus_sha256"]
    True
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sectio.contract.record import ChunkRecord, corpus_sha256
from sectio.errors import ContractError, CorpusMismatch
from sectio.index.filters import AnyOf, HasIds, Where
from sectio.index.manifest import Manifest
from sectio.index.port import VectorIndex
from sectio.ingest.doc_hashes import document_hashes

#: One tenant's corpus in a manifest: ``corpus_sha256`` (None: not recorded), ``chunk_count``,
#: ``source``, ``documents`` (doc id -> ``{"sha256", "chunks"}``, :mod:`sectio.ingest.doc_hashes`;
#: absent in manifests written before it).
TenantCorpus = dict[str, Any]

#: Points read per page when a manifest without per-tenant entries is read for its tenants.
SCAN_PAGE = 1024


def tenant_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a tenant, or None.

    A tenant is refused, not normalised, when it would read as another: leading or
    trailing whitespace (``" acme"``, ``"default "``), or an invisible character
    anywhere (a zero-width space or joiner, a BOM, a control): normalising would
    silently file the records under a tenant they did not name.

    Example:
        >>> tenant_name_problem("acme\u200b"), tenant_name_problem("acme corp")
        ('holds an invisible character (U+200B)', None)
    """
    if name != name.strip():
        return "has leading or trailing whitespace"
    for ch in name:
        if unicodedata.category(ch) in ("Cf", "Cc") or (ch.isspace() and ch != " "):
            return f"holds an invisible character (U+{ord(ch):04X})"
    return None


def tenant_corpora(records: Sequence[ChunkRecord], source: str | None) -> dict[str, TenantCorpus]:
    """Each tenant's corpus in ``records`` (its records in source order), by tenant, sorted.

    Raises:
        ContractError: a record's tenant would read as another (:func:`tenant_name_problem`);
            nothing is written.
    """
    groups: dict[str, list[ChunkRecord]] = {}
    for record in records:
        if record.tenant not in groups:
            problem = tenant_name_problem(record.tenant)
            if problem is not None:
                raise ContractError(
                    f"{source or 'records'}: chunk {record.chunk_id!r}: field tenant: "
                    f"{record.tenant!r} {problem}"
                )
        groups.setdefault(record.tenant, []).append(record)
    return {
        tenant: {
            "corpus_sha256": corpus_sha256(group),
            "chunk_count": len(group),
            "source": source,
            "documents": document_hashes(group),
        }
        for tenant, group in sorted(groups.items())
    }


def collection_digest(tenants: dict[str, TenantCorpus]) -> str:
    """The whole collection's corpus sha256: a single tenant's own, else one over every
    tenant's (so it does not depend on which load brought which tenant)."""
    if len(tenants) == 1:
        only = next(iter(tenants.values()))
        return str(only["corpus_sha256"])
    h = hashlib.sha256()
    for tenant, corpus in sorted(tenants.items()):
        h.update(f"{tenant}\t{corpus['corpus_sha256']}\t{corpus['chunk_count']}\n".encode())
    return h.hexdigest()


def others_where(tenants: Sequence[str]) -> Where:
    """Points of every tenant but ``tenants``."""
    return Where(must_not=(AnyOf("tenant", tuple(tenants)),))


def held_tenants(existing: Manifest, index: VectorIndex, loading: Sequence[str]) -> dict[str, Any]:
    """The tenants the collection holds, by tenant (see the module doc for old manifests).

    An old manifest (no per-tenant entries) whose collection holds only ``loading``
    tenants gives ``{}`` (the load is planned as one corpus); else every tenant found
    in the points, its ``corpus_sha256`` None (unknown) unless it is the only one.
    """
    if existing.tenants:
        return dict(existing.tenants)
    if not index.count(others_where(loading)):
        return {}
    counts: dict[str, int] = {}
    offset: str | None = None
    while True:
        page, offset = index.scroll(None, limit=SCAN_PAGE, offset=offset)
        for point in page:
            tenant = str(point.payload.get("tenant") or "default")
            counts[tenant] = counts.get(tenant, 0) + 1
        if offset is None or not page:
            break
    known = existing.corpus_sha256 if len(counts) == 1 else None
    return {
        t: {"corpus_sha256": known, "chunk_count": n, "source": existing.source}
        for t, n in sorted(counts.items())
    }


@dataclass(frozen=True)
class TenantPlan:
    """What a load into a collection with per-tenant corpora does.

    ``action``: ``added``, ``replaced`` or ``converged``; ``staged``: a new version
    is built (else the live one is written in place); ``keep``: the points a staged
    version copies from the live one (the other tenants'), None for none;
    ``refit``: the BM25 fit is the load's own (a whole rebuild), else the collection's.
    """

    action: str
    staged: bool
    keep: Where | None
    refit: bool


def plan_tenants(
    existing: Manifest,
    incoming: Manifest,
    held: dict[str, TenantCorpus],
    corpora: dict[str, TenantCorpus],
    *,
    replace: bool,
) -> TenantPlan:
    """Plan a load of ``corpora`` (``incoming``: its manifest with the collection's BM25
    fit) into a collection holding ``held``; nothing is written.

    Raises:
        CorpusMismatch: a tenant's corpus changed and ``replace`` is False; or the
            settings changed while other tenants stay (``replace`` or not), or while
            ``replace`` is False.
    """
    others = sorted(set(held) - set(corpora))
    changed = [t for t in corpora if t in held and _differs(held[t], corpora[t])]
    settings = existing.setting_differences(incoming)
    if settings and others:
        raise CorpusMismatch(
            f"collection {existing.collection!r} is shared with tenant(s) "
            f"{', '.join(others)}, built with other settings: {_detail(existing, incoming)}; "
            "a load must keep them (or name every tenant, with --replace)",
            fields=settings,
        )
    if (settings or changed) and not replace:
        fields = (["corpus_sha256", "chunk_count"] if changed else []) + settings
        raise CorpusMismatch(
            _changed_message(existing, incoming, held, corpora, changed), fields=fields
        )
    if settings or (changed and not others):
        return TenantPlan("replaced", staged=True, keep=None, refit=True)
    if changed:
        return TenantPlan("replaced", staged=True, keep=others_where(list(corpora)), refit=False)
    added = [t for t in corpora if t not in held]
    return TenantPlan("added" if added else "converged", staged=False, keep=None, refit=False)


def kept_points(existing: Manifest | None, loading: Iterable[str], *, replace: bool) -> int:
    """The points of the tenants a load does not name that its staged version would copy
    (an upper bound, for the free-space check: a converging load copies none).

    Only ``replace`` stages a version while other tenants stay (an added tenant is
    written in place); a manifest without per-tenant entries counts none.
    """
    if existing is None or not replace:
        return 0
    names = set(loading)
    return sum(
        int(c.get("chunk_count") or 0) for t, c in existing.tenants.items() if t not in names
    )


def merged_manifest(
    incoming: Manifest, held: dict[str, TenantCorpus], corpora: dict[str, TenantCorpus]
) -> Manifest:
    """``incoming`` as the whole collection's manifest: the held tenants it does not name,
    then its own; the collection's count and digest over them all."""
    tenants = {t: c for t, c in held.items() if t not in corpora} | corpora
    return incoming.model_copy(
        update={
            "tenants": dict(sorted(tenants.items())),
            "chunk_count": sum(int(c["chunk_count"]) for c in tenants.values()),
            "corpus_sha256": collection_digest(tenants),
        }
    )


def check_unique_ids(
    index: VectorIndex, name: str, ids: Sequence[str], records: Sequence[ChunkRecord]
) -> None:
    """Refuse chunk ids that are already another tenant's points (one engine count).

    Raises:
        ContractError: names the first such chunk id and both tenants.
    """
    tenants = sorted({r.tenant for r in records})
    where = others_where(tenants).and_(HasIds(tuple(ids)))
    taken = index.count(where)
    if not taken:
        return
    page, _ = index.scroll(where, limit=1)
    held = page[0].payload if page else {}
    raise ContractError(
        f"{taken} chunk id(s) of this load are already points of another tenant in "
        f"collection {name!r} (first: {held.get('chunk_id')!r} of tenant "
        f"{held.get('tenant')!r}); chunk ids must be unique in a collection "
        "(--tenant on a BEIR or Markdown source prefixes them with the tenant)"
    )


def _differs(held: TenantCorpus, incoming: TenantCorpus) -> bool:
    """Whether a tenant's corpus changed: by its documents when both entries hold them
    (a tenant written document by document has no source-order sha256), else its sha256."""
    if held.get("documents") is not None and incoming.get("documents") is not None:
        return bool(held["documents"] != incoming["documents"])
    return bool(
        held.get("corpus_sha256") != incoming["corpus_sha256"]
        or held.get("chunk_count") != incoming["chunk_count"]
    )


def _detail(existing: Manifest, incoming: Manifest) -> str:
    return ", ".join(
        f"{f} ({_short(getattr(existing, f))} -> {_short(getattr(incoming, f))})"
        for f in existing.setting_differences(incoming)
    )


def _changed_message(
    existing: Manifest,
    incoming: Manifest,
    held: dict[str, TenantCorpus],
    corpora: dict[str, TenantCorpus],
    changed: list[str],
) -> str:
    """The refusal of a changed corpus without ``replace``: what differs, old -> new."""
    parts = []
    whose = ""
    if changed:
        t = changed[0]
        whose = f" for tenant {t!r}" if len(set(held) | set(corpora)) > 1 else ""
        parts.append(
            f"corpus_sha256 ({_short(held[t].get('corpus_sha256'))} -> "
            f"{_short(corpora[t]['corpus_sha256'])}), "
            f"chunk_count ({held[t].get('chunk_count')} -> {corpora[t]['chunk_count']})"
        )
    if existing.setting_differences(incoming):
        parts.append(_detail(existing, incoming))
    return (
        f"collection {existing.collection!r} holds another corpus{whose}: {', '.join(parts)}; "
        "use --replace to load the new version"
    )


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 24 else text[:12] + "…"


__all__ = [
    "TenantPlan",
    "check_unique_ids",
    "collection_digest",
    "held_tenants",
    "kept_points",
    "merged_manifest",
    "plan_tenants",
    "tenant_corpora",
]
