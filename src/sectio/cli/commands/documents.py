"""``sectio upsert PATH`` and ``sectio delete --doc ID...``: one document at a time."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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
    from sectio.engine_docs import DocumentReport


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
    report = state.sectio.delete(doc_ids, collection=collection, tenant=tenant or "default")
    emit_document_report(report, as_json)
