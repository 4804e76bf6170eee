"""``sectio demo``: ingest the shipped drug-label corpus and run a few questions."""

from __future__ import annotations

import click

from sectio.cli.base import Context, cli, emit_json, json_option, note, pass_state
from sectio.cli.commands.search import print_hits
from sectio.demo import DEMO_COLLECTION, DEMO_PROFILE, DEMO_QUERIES, demo_corpus_path
from sectio.ingest.loader import tty_progress


@cli.command()
@click.option(
    "--collection", "-c", default=DEMO_COLLECTION, show_default=True, help="Collection name."
)
@json_option
@pass_state
def demo(state: Context, collection: str, as_json: bool) -> None:
    """Load the shipped US drug-label sample and show what retrieval returns."""
    path = demo_corpus_path()
    progress, done = tty_progress("demo ingest", enabled=None if not as_json else False)
    try:
        report = state.sectio.ingest(
            path,
            fmt="chunks",
            profile=DEMO_PROFILE,
            collection=collection,
            replace=True,
            progress=progress,
        )
    finally:
        done()
    results = [
        state.sectio.search(q, collection=collection, top_k=3, tenant="default")
        for q in DEMO_QUERIES
    ]
    if as_json:
        emit_json(
            {"ingest": report.as_dict(), "searches": [r.model_dump(mode="json") for r in results]}
        )
        return
    note(
        f"{report.action} collection {collection!r}: {report.chunks_read} chunks "
        f"({report.embeddings_computed} embedded, {report.embeddings_cached} cached) "
        f"in {report.seconds:.1f} s under {state.settings.home}"
    )
    for q, r in zip(DEMO_QUERIES, results, strict=True):
        click.echo(f"\n$ sectio search {q!r} --collection {collection}")
        print_hits(r)
