"""``sectio ingest PATH``."""

from __future__ import annotations

from pathlib import Path

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
from sectio.cli.progress import phase_reporter
from sectio.errors import ContractError
from sectio.ingest.detect import FORMATS, detect_source
from sectio.ingest.phases import phase_table

_FORMAT_HELP = (
    "Source format (default: told by content; a folder mixing formats needs it). "
    "markdown: documents (.md, .mdx, .pdf, .html, .docx, .txt, .rst, .org, .adoc, README; "
    "maybe .gz), and a JSON export whose records have a text field (body, content, answer ...)."
)


@cli.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    help=_FORMAT_HELP,
)
@click.option("--profile", help="Corpus profile: a shipped name or a TOML file.")
@click.option(
    "--replace", is_flag=True, help="Load a changed corpus as a new version, switched atomically."
)
@click.option("--sync", is_flag=True, help="Make the tenant equal to PATH, document by document.")
@click.option("--tenant", default=None, help="Tenant of a BEIR or Markdown source.")
@click.option(
    "--profile-time",
    is_flag=True,
    help="Print the seconds of each phase (read, layers, embed, upsert, ...) on stderr.",
)
@collection_option
@json_option
@pass_state
def ingest(
    state: Context,
    path: Path,
    fmt: str | None,
    profile: str | None,
    replace: bool,
    sync: bool,
    tenant: str | None,
    profile_time: bool,
    collection: str,
    as_json: bool,
) -> None:
    """Validate PATH and load it into a collection (gated by its manifest).

    Progress goes to stderr (not with --json); the --json report always holds
    ``phases`` (seconds per phase).
    """
    if sync:
        if replace or profile:
            raise click.UsageError("--sync takes neither --replace nor --profile")
        _sync(state, path, fmt, tenant, collection, as_json)
        return
    if _sent_to_server(state, path, fmt, profile, replace, tenant, collection, as_json):
        return
    progress, done = phase_reporter(f"ingest {collection}", enabled=not as_json)
    try:
        report = state.sectio.ingest(
            path,
            fmt=fmt,
            profile=profile,
            collection=collection,
            replace=replace,
            tenant=tenant,
            progress=progress,
        )
    finally:
        done()
    if profile_time:
        for line in phase_table(report.phases):
            note(line)
    for line in report.warnings:
        note(f"warning: {line}")
    if as_json:
        emit_json({**report.as_dict(), **_listing(path, fmt)})
        return
    if report.detected:
        note(f"read as {report.detected}")
    rate = report.chunks_read / report.seconds if report.seconds else 0.0
    note(
        f"{report.action} collection {report.collection!r} from {report.source} ({report.format}): "
        f"{report.chunks_read} chunks read, {report.upserted} upserted, "
        f"count {report.collection_count}; "
        f"embeddings {report.embeddings_computed} computed, {report.embeddings_cached} cached; "
        f"{report.seconds:.1f} s ({rate:.0f} chunks/s)"
    )


def _sync(
    state: Context, path: Path, fmt: str | None, tenant: str | None, collection: str, as_json: bool
) -> None:
    """``ingest --sync``: the tenant made equal to PATH (:meth:`sectio.Sectio.sync`)."""
    from sectio.cli.commands.documents import emit_document_report, write_records

    report = write_records(state, "sync", path, fmt=fmt, tenant=tenant, collection=collection)
    emit_document_report(report, as_json)


def _sent_to_server(
    state: Context,
    path: Path,
    fmt: str | None,
    profile: str | None,
    replace: bool,
    tenant: str | None,
    collection: str,
    as_json: bool,
) -> bool:
    """While ``sectio serve`` holds the store, send it a tenant's first load or a one-tenant
    ``--replace`` (:mod:`sectio.cli.commands.documents`); whether it was sent. A new
    collection and a whole ``--replace`` are built beside the live version here, as always.

    Raises:
        click.UsageError: ``--profile`` with a write the server makes (it keeps the
            collection's profile).
    """
    from sectio.cli.commands.documents import emit_document_report, forward, served_url

    url = served_url(state.settings)
    manifest = state.sectio.backend.read_manifest(collection) if url is not None else None
    if url is None or manifest is None:
        return False
    records = state.sectio.read_records(path, fmt=fmt, tenant=tenant)
    tenants = {r.tenant for r in records}
    others = set(manifest.tenants) - tenants
    if replace and others:
        action = "replace"
    elif not replace and not tenants <= set(manifest.tenants):
        action = "upsert"  # a tenant addition: the server loads it whole
    else:
        return False
    if profile:
        raise click.UsageError(
            f"collection {collection!r} is served by {url}: this write is made there with "
            "the collection's profile; drop --profile"
        )
    # a tenant's first load is one request: the tenant is served whole or not at all
    report = forward(
        url, state.settings, action, collection=collection, records=records, whole=True
    )
    emit_document_report(report, as_json)
    return True


def _listing(path: Path, fmt: str | None) -> dict[str, list[dict[str, str]]]:
    """Every file of the source not read (``ignored``) or refused, each with why
    (the text line names five of each; this has them all)."""
    try:
        return detect_source(path, fmt).listing()
    except ContractError:  # the source changed since it was read
        return {"ignored": [], "refused": []}
