"""``sectio snapshot OUT_FILE`` and ``sectio restore IN_FILE``."""

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


@cli.command()
@click.argument("out_file", type=click.Path(path_type=Path, dir_okay=False))
@collection_option
@json_option
@pass_state
def snapshot(state: Context, out_file: Path, collection: str, as_json: bool) -> None:
    """Write a collection to one file (shard + manifest + checksums)."""
    manifest = state.sectio.snapshot(out_file, collection=collection)
    data = {
        "collection": collection,
        "file": str(out_file),
        "bytes": out_file.stat().st_size,
        "chunk_count": manifest.chunk_count,
        "corpus_sha256": manifest.corpus_sha256,
    }
    if as_json:
        emit_json(data)
    else:
        note(
            f"snapshot of {collection!r} ({manifest.chunk_count} chunks) written to {out_file} "
            f"({data['bytes']} bytes)"
        )


@cli.command()
@click.argument("in_file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--replace", is_flag=True, help="Replace a collection that holds another corpus.")
@collection_option
@json_option
@pass_state
def restore(state: Context, in_file: Path, replace: bool, collection: str, as_json: bool) -> None:
    """Restore a snapshot as a collection, verifying checksums and the manifest; no re-embedding."""
    manifest = state.sectio.restore(in_file, collection=collection, replace=replace)
    data = {
        "collection": collection,
        "file": str(in_file),
        "chunk_count": manifest.chunk_count,
        "corpus_sha256": manifest.corpus_sha256,
        "model_id": manifest.model_id,
    }
    if as_json:
        emit_json(data)
    else:
        note(f"restored {collection!r} ({manifest.chunk_count} chunks) from {in_file}")
