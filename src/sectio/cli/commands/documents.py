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

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from sectio.ingest.detect import FORMATS

if TYPE_CHECKING:
    from sectio.contract.record import ChunkRecord
    from sectio.engine_docs import DocumentReport
    from sectio.settings import Settings

#: Seconds a forwarded write may take (the server embeds the changed documents).
TIMEOUT_S = 600.0


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
) -> DocumentReport:
    """Send a document write (``upsert``, ``sync``, ``delete``, ``replace``) to the server
    at ``url``; its report.

    Raises:
        SectioError: what the server answered (a refused write, 401/403 for a key
            that may not write), or ServiceUnreachable.
    """
    from sectio.client.sync import SectioClient
    from sectio.engine_docs import document_report

    key = settings.admin_key.get_secret_value() if settings.admin_key is not None else None
    with SectioClient(url, api_key=key, timeout_s=TIMEOUT_S) as client:
        data: dict[str, Any]
        if action == "delete":
            data = client.delete_documents(doc_ids, collection=collection)
        else:
            rows = [r.payload() for r in records]
            send = {
                "upsert": client.upsert_documents,
                "sync": client.sync_documents,
                "replace": client.replace_tenant,
            }[action]
            data = send(rows, collection=collection)
    return document_report(data)


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
    url = served_url(state.settings)
    if url is not None:  # the collection is open in `sectio serve`: the write goes there
        records = state.sectio.read_records(path, fmt=fmt, tenant=tenant)
        report = forward(url, state.settings, "upsert", collection=collection, records=records)
    else:
        report = state.sectio.upsert(path, collection=collection, tenant=tenant, fmt=fmt)
    emit_document_report(report, as_json)


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
