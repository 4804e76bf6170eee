"""``sectio export --to DEST`` and ``sectio import FROM``: copy a collection between stores.

DEST and FROM are endpoints (see :mod:`sectio.index.factory`):
``http(s)://host:6333`` (a Qdrant server; key from ``SECTIO_QDRANT_API_KEY``),
``local:PATH`` (qdrant-client local mode), ``edge:PATH`` or a plain ``PATH``
(another ``SECTIO_HOME``'s Qdrant Edge store). The configured store is the one
``SECTIO_HOME`` / ``SECTIO_QDRANT_URL`` / ``SECTIO_QDRANT_LOCATION`` select.
Vectors travel as they are: nothing is re-embedded. On arrival the manifest
must match the configured embedder (model id, dimensions), and a target
holding another corpus is refused unless ``--replace``.
"""

from __future__ import annotations

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
from sectio.cli.progress import progress_reporter

if TYPE_CHECKING:
    from sectio.engine import TransferReport


def _report(report: TransferReport, as_json: bool) -> None:
    if as_json:
        emit_json(report.as_dict())
    else:
        note(
            f"copied {report.points} points of {report.collection!r} ({report.source}) to "
            f"{report.target_collection!r} ({report.target}) in {report.seconds:.1f} s; "
            "nothing re-embedded"
        )


@cli.command("export")
@click.option(
    "--to",
    "dest",
    required=True,
    metavar="URL|PATH",
    help="http(s)://host:6333 (Qdrant server), local:PATH (qdrant-client local mode), "
    "or PATH / edge:PATH (another SECTIO_HOME).",
)
@collection_option
@click.option("--as", "as_name", default=None, help="Name at the target (default: the same).")
@click.option("--replace", is_flag=True, help="Replace a different corpus at the target.")
@click.option(
    "--quantization",
    type=click.Choice(["none", "int8"]),
    default=None,
    help="Vectors at the target (default: as at the source).",
)
@json_option
@pass_state
def export_(
    state: Context,
    dest: str,
    collection: str,
    as_name: str | None,
    replace: bool,
    quantization: str | None,
    as_json: bool,
) -> None:
    """Copy a collection (vectors, payloads, manifest) to another store, without re-embedding."""
    progress, done = progress_reporter("export", enabled=not as_json)
    try:
        report = state.sectio.export(
            dest,
            collection=collection,
            as_name=as_name,
            replace=replace,
            quantization=quantization,
            progress=progress,
        )
    finally:
        done()
    _report(report, as_json)


@cli.command("import")
@click.argument("source", metavar="FROM")
@collection_option
@click.option(
    "--from-collection",
    "source_collection",
    default=None,
    help="Collection name at FROM (default: the same as --collection).",
)
@click.option("--replace", is_flag=True, help="Replace a different corpus here.")
@click.option(
    "--quantization",
    type=click.Choice(["none", "int8"]),
    default=None,
    help="Vectors at the target (default: as at the source).",
)
@json_option
@pass_state
def import_(
    state: Context,
    source: str,
    collection: str,
    source_collection: str | None,
    replace: bool,
    quantization: str | None,
    as_json: bool,
) -> None:
    """Copy a collection from FROM (URL|PATH) into the configured store, without re-embedding."""
    progress, done = progress_reporter("import", enabled=not as_json)
    try:
        report = state.sectio.import_(
            source,
            collection=collection,
            source_collection=source_collection,
            replace=replace,
            quantization=quantization,
            progress=progress,
        )
    finally:
        done()
    _report(report, as_json)
