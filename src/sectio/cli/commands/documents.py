"""``sectio upsert PATH`` and ``sectio delete --doc ID...``: one document at a time.

A write while ``sectio serve`` holds the store. On Qdrant Edge one process opens a
collection; while ``sectio serve`` has it open, another process cannot write it.
The server records where it listens at start-up
(:func:`sectio.engine_docs.register_served`); ``sectio upsert``, ``delete``,
``ingest --sync``, a tenant's first ``ingest`` and a one-tenant ``ingest --replace``
then read and validate the source here and send its chunk records to the server's
admin endpoints (:mod:`sectio.api.routes.admin`), which write them between two of
its engine calls. The key sent is ``SECTIO_ADMIN_KEY`` (an admin key of the tenant
written, ``key:tenant:admin`` in the server's keys); a server without keys takes
writes from loopback clients only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import click

from sectio.cli.base import (
    Context,
    cli,
    collection_option,
    emit_json,
    json_option,
    note,
    pass_state,
)
from sectio.errors import ContractError
from sectio.ingest.detect import FORMATS

if TYPE_CHECKING:
    from sectio.contract.record import ChunkRecord
    from sectio.engine_docs import DocumentReport
    from sectio.settings import Settings

#: Seconds a forwarded write may take (the server embeds the changed documents).
TIMEOUT_S = 600.0
#: Bytes of a forwarded body beside its records (the JSON around them).
BODY_MARGIN = 1024


def served_url(settings: Settings) -> str | None:
    """The URL of the live ``sectio serve`` to send writes to, or None (write here)."""
    from sectio.engine_docs import served_url as registered

    return registered(settings)


def forward(
    url: str,
    settings: Settings,
    action: str,
    *,
    collection: str,
    records: Sequence[ChunkRecord] = (),
    doc_ids: Sequence[str] = (),
    whole: bool = False,
) -> DocumentReport:
    """Send a document write (``upsert``, ``sync``, ``delete``, ``replace``) to the server
    at ``url``; its report.

    A body must fit ``SECTIO_ADMIN_MAX_BODY_BYTES`` (this process's setting, which the
    server shares by default). An ``upsert`` over it is sent in batches of whole
    documents, in the source's order (each document is old or new at every moment;
    the reports are summed); ``sync``, ``replace`` and an upsert sent ``whole`` (a
    tenant's first load through ``ingest``) need one request.

    Raises:
        ContractError: records over the body cap that cannot be split (a ``sync``, a
            ``replace``, a ``whole`` upsert, or one document alone), naming the setting.
        SectioError: what the server answered (a refused write, 401/403 for a key
            that may not write), or ServiceUnreachable.
    """
    from sectio.client.sync import SectioClient
    from sectio.engine_docs import document_report

    key = settings.admin_key.get_secret_value() if settings.admin_key is not None else None
    rows = [r.payload() for r in records]
    batches = record_batches(
        rows,
        settings.admin_max_body_bytes,
        action,
        collection,
        split=action == "upsert" and not whole,
    )
    with SectioClient(url, api_key=key, timeout_s=TIMEOUT_S) as client:
        if action == "delete":
            return document_report(client.delete_documents(doc_ids, collection=collection))
        send = {
            "upsert": client.upsert_documents,
            "sync": client.sync_documents,
            "replace": client.replace_tenant,
        }[action]
        reports = [document_report(send(batch, collection=collection)) for batch in batches]
    return summed(reports)


def _size(row: dict[str, Any]) -> int:
    """Bytes ``row`` takes in a request body, at most (ASCII escapes, default separators)."""
    return len(json.dumps(row)) + 2


def record_batches(
    rows: Sequence[dict[str, Any]], cap: int, action: str, collection: str, *, split: bool
) -> list[list[dict[str, Any]]]:
    """``rows`` as request bodies' record lists that each fit ``cap`` bytes: one list
    when they fit (or when there are none), else (``split``) batches of whole documents
    (every chunk of a document in one batch), documents in first-seen order.

    Raises:
        ContractError: over ``cap`` and not ``split``, or one document alone over it.
    """
    budget = cap - BODY_MARGIN - len(collection)
    total = sum(_size(r) for r in rows)
    if total <= budget:
        return [list(rows)]
    setting = f"SECTIO_ADMIN_MAX_BODY_BYTES ({cap})"
    if not split:
        raise ContractError(
            f"the {action}'s chunk records take {total} bytes, over {setting}, and a "
            f"{action} is sent in one request: raise the setting (here and on the server) "
            "or stop the server and run it here"
        )
    documents: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        documents.setdefault(str(row["doc_id"]), []).append(row)
    batches: list[list[dict[str, Any]]] = [[]]
    used = 0
    for doc_id, chunks in documents.items():
        size = sum(_size(r) for r in chunks)
        if size > budget:
            raise ContractError(
                f"document {doc_id!r} takes {size} bytes of chunk records, over {setting} "
                "of one request: raise the setting (here and on the server)"
            )
        if used + size > budget and batches[-1]:
            batches.append([])
            used = 0
        batches[-1].extend(chunks)
        used += size
    return batches


def summed(reports: Sequence[DocumentReport]) -> DocumentReport:
    """One report of the batches of a write (doc ids and counts added up; the last
    batch's collection count)."""
    from dataclasses import replace

    last = reports[-1]
    if len(reports) == 1:
        return last
    return replace(
        last,
        added=tuple(sorted(d for r in reports for d in r.added)),
        changed=tuple(sorted(d for r in reports for d in r.changed)),
        deleted=tuple(sorted(d for r in reports for d in r.deleted)),
        unchanged=sum(r.unchanged for r in reports),
        upserted=sum(r.upserted for r in reports),
        removed=sum(r.removed for r in reports),
        embeddings_computed=sum(r.embeddings_computed for r in reports),
        embeddings_cached=sum(r.embeddings_cached for r in reports),
        seconds=sum(r.seconds for r in reports),
        phases={},
    )


def write_records(
    state: Context,
    action: Literal["upsert", "sync"],
    path: Path,
    *,
    fmt: str | None,
    tenant: str | None,
    collection: str,
) -> DocumentReport:
    """``upsert`` or ``sync`` PATH: sent to the ``sectio serve`` that holds the collection
    open when one runs (the records read and checked here), else written here."""
    url = served_url(state.settings)
    if url is not None:  # the collection is open in `sectio serve`: the write goes there
        records = state.sectio.read_records(path, fmt=fmt, tenant=tenant)
        return forward(url, state.settings, action, collection=collection, records=records)
    here = state.sectio.upsert if action == "upsert" else state.sectio.sync
    return here(path, collection=collection, tenant=tenant, fmt=fmt)


def emit_document_report(report: DocumentReport, as_json: bool) -> None:
    """Print a document write's report (JSON on stdout, or one line on stderr)."""
    if as_json:
        emit_json(report)
        return
    c = report.as_dict()["counts"]
    assert isinstance(c, dict)
    note(
        f"{report.action} collection {report.collection!r} tenant {report.tenant!r}: "
        f"{c['added']} added, {c['changed']} changed, {c['deleted']} deleted, "
        f"{c['unchanged']} unchanged; {report.upserted} chunks written, "
        f"{report.removed} removed, count {report.collection_count}; "
        f"embeddings {report.embeddings_computed} computed; {report.seconds:.2f} s"
    )


@cli.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Source format (as ingest).")
@click.option("--tenant", default=None, help="Tenant to write (a BEIR or Markdown source's).")
@collection_option
@json_option
@pass_state
def upsert(
    state: Context, path: Path, fmt: str | None, tenant: str | None, collection: str, as_json: bool
) -> None:
    """Add the documents PATH holds, and replace those the collection holds already.

    Documents are matched by doc_id; an unchanged one (same hash) costs nothing,
    a changed one has every chunk replaced. Other documents are untouched.
    """
    report = write_records(state, "upsert", path, fmt=fmt, tenant=tenant, collection=collection)
    for line in _page_copies(state, report):
        note(f"warning: {line}")
    emit_document_report(report, as_json)


def _page_copies(state: Context, report: DocumentReport) -> list[str]:
    """A page upserted from inside its tree gets the doc_id of its path under the folder
    given (``configuration.md``, not ``guides/configuration.md``): a new document beside
    the one it meant to replace. One line per such page."""
    if not report.added:
        return []
    manifest = state.sectio.backend.read_manifest(report.collection)
    held = ((manifest.tenants.get(report.tenant) or {}) if manifest else {}).get("documents")
    if not isinstance(held, dict):
        return []
    lines = []
    for doc_id in report.added:
        twins = sorted(h for h in held if h != doc_id and h.endswith(f"/{doc_id}"))
        if twins:
            lines.append(
                f"{doc_id} was added beside {', '.join(twins)} (a page's doc_id is its path "
                "under the folder given); to replace a page, upsert its tree's folder "
                "(unchanged pages cost nothing), then "
                f"`sectio delete --doc {doc_id} -c {report.collection}`"
            )
    return lines


@cli.command()
@click.option("--doc", "doc_ids", multiple=True, required=True, help="A doc_id to remove.")
@click.option("--tenant", default=None, help="Tenant whose documents to remove (default).")
@collection_option
@json_option
@pass_state
def delete(
    state: Context, doc_ids: tuple[str, ...], tenant: str | None, collection: str, as_json: bool
) -> None:
    """Remove documents (every chunk of each) from a collection.

    A doc_id the tenant does not hold is refused, and nothing is removed.
    """
    url = served_url(state.settings)
    if url is not None:  # the server's admin key names the tenant
        report = forward(url, state.settings, "delete", collection=collection, doc_ids=doc_ids)
    else:
        report = state.sectio.delete(doc_ids, collection=collection, tenant=tenant or "default")
    emit_document_report(report, as_json)
