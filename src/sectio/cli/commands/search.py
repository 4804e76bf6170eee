"""``sectio search QUERY``."""

from __future__ import annotations

import click

from sectio.cli.base import (
    Context,
    cli,
    collection_option,
    emit_json,
    json_option,
    pass_state,
    tenant_option,
)
from sectio.contract.result import SearchResult


def print_hits(result: SearchResult) -> None:
    """Human-readable hits, one block each."""
    if result.clamped:
        click.echo(f"(top-k {result.top_k_requested} clamped to {result.top_k})")
    if not result.hits:
        click.echo("no results")
    for hit in result.hits:
        text = " ".join(hit.text.split())
        click.echo(
            f"{hit.rank:>2}. [{hit.score:.3f}] {hit.doc_id} / {hit.section_key} #{hit.part_index}"
        )
        click.echo(f"    {text[:200]}{'…' if len(text) > 200 else ''}")


@cli.command()
@click.argument("query")
@click.option(
    "--top-k", "-k", type=int, default=10, show_default=True, help="Hits to return (1-50)."
)
@collection_option
@tenant_option
@json_option
@pass_state
def search(
    state: Context, query: str, top_k: int, collection: str, tenant: str, as_json: bool
) -> None:
    """Similarity search over a collection."""
    result = state.sectio.search(query, collection=collection, top_k=top_k, tenant=tenant)
    if as_json:
        emit_json(result)
    else:
        print_hits(result)
