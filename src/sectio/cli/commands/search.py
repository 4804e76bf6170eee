"""``sectio search QUERY``: hybrid (default), dense or lexical search."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from sectio.cli.base import (
    Context,
    bounded_query,
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
    from sectio.contract.result import ListScore, SearchResult

#: Column titles of the lists a search ranks by (``Evidence.scores`` keys), in display order.
LIST_COLUMNS = {"fusion": "fusion", "dense": "cosine", "bm25": "bm25", "bm25_folded": "bm25 folded"}
#: What each column's numbers are, for the line under the table.
LIST_LEGEND = {
    "fusion": "fusion = reciprocal rank fusion value (it orders the hits)",
    "dense": "cosine = dense similarity",
    "bm25": "bm25 = BM25 score",
    "bm25_folded": "bm25 folded = BM25 score without diacritics",
}
CELL = 13


def _cell(name: str, place: ListScore | None) -> str:
    """One list's cell: ``score #rank`` (the fusion's rank is the row's), ``-`` when absent."""
    if place is None:
        return "-"
    return f"{place.score:.3f}" if name == "fusion" else f"{place.score:.3f} #{place.rank}"


def print_hits(result: SearchResult) -> None:
    """Hits as a table, best first: the rank, then each ranked list's score and rank in
    it (``-``: not among that list's candidates), then the chunk and its text."""
    if result.clamped:
        click.echo(f"(top-k {result.top_k_requested} clamped to {result.top_k})")
    if not result.hits:
        click.echo("no results")
        return
    names = [n for n in LIST_COLUMNS if any(n in (h.scores or {}) for h in result.hits)]
    head = "".join(f"{LIST_COLUMNS[n]:<{CELL}}" for n in names)
    click.echo(f"{'#':>3}  {head}doc / section #part")
    for hit in result.hits:
        scores = hit.scores or {}
        cells = "".join(f"{_cell(n, scores.get(n)):<{CELL}}" for n in names)
        click.echo(f"{hit.rank:>3}  {cells}{hit.doc_id} / {hit.section_key} #{hit.part_index}")
        text = " ".join(hit.text.split())
        click.echo(f"     {text[:200]}{'…' if len(text) > 200 else ''}")
    legend = "; ".join(LIST_LEGEND[n] for n in names)
    click.echo(f"({legend}; #n = rank in that list; - = not among its candidates)")


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
    """Search a collection. Each hit shows what ranked it: fusion value, cosine, BM25, ranks."""
    result = state.sectio.search(
        bounded_query(state, query),
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
