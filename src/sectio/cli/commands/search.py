"""``sectio search QUERY``: hybrid (default), dense or lexical search."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
from sectio.contract.request import SEARCH_MODES
from sectio.retrieve.search_filters import FILTER_KEYS, parse_filter_args

if TYPE_CHECKING:
    from sectio.contract.result import SearchResult


def print_hits(result: SearchResult) -> None:
    """Human-readable hits, one block each; the score is the dense cosine ("-" if none)."""
    if result.clamped:
        click.echo(f"(top-k {result.top_k_requested} clamped to {result.top_k})")
    if not result.hits:
        click.echo("no results")
    for hit in result.hits:
        text = " ".join(hit.text.split())
        score = f"{hit.score:.3f}" if hit.score else "  -  "
        click.echo(f"{hit.rank:>2}. [{score}] {hit.doc_id} / {hit.section_key} #{hit.part_index}")
        click.echo(f"    {text[:200]}{'…' if len(text) > 200 else ''}")


@cli.command()
@click.argument("query")
@click.option(
    "--top-k",
    "-k",
    type=int,
    default=10,
    show_default=True,
    help="Hits to return (clamped to 1-50).",
)
@click.option(
    "--mode",
    type=click.Choice(SEARCH_MODES),
    default="hybrid",
    show_default=True,
    help="hybrid: dense + BM25 fused by reciprocal rank; dense; lexical (BM25).",
)
@click.option(
    "--filter",
    "filters",
    multiple=True,
    metavar="KEY=VALUE",
    help=f"Repeatable; a repeated key matches any of its values. Keys: {', '.join(FILTER_KEYS)}.",
)
@click.option(
    "--layer",
    "layers",
    multiple=True,
    metavar="D0..D5|all",
    help="Docs collections: layers to search (repeatable; default D0, the doc chunks).",
)
@collection_option
@tenant_option
@json_option
@pass_state
def search(
    state: Context,
    query: str,
    top_k: int,
    mode: str,
    filters: tuple[str, ...],
    layers: tuple[str, ...],
    collection: str,
    tenant: str,
    as_json: bool,
) -> None:
    """Search a collection. Each hit's score is its dense cosine similarity (- for BM25-only)."""
    result = state.sectio.search(
        query,
        collection=collection,
        top_k=top_k,
        mode=mode,
        filters=parse_filter_args((*filters, *(f"layer={layer}" for layer in layers))),
        tenant=tenant,
    )
    if as_json:
        emit_json(result)
    else:
        print_hits(result)
