"""``sectio demo``: ingest the shipped drug-label corpus, then ask and search it."""

from __future__ import annotations

import shlex

import click

from sectio.cli.base import Context, cli, emit_json, json_option, note, pass_state
from sectio.cli.commands.ask import print_result
from sectio.cli.commands.search import print_hits
from sectio.cli.invocation import command_prefix
from sectio.cli.progress import phase_reporter
from sectio.demo import DEMO_COLLECTION, DEMO_PROFILE, DEMO_QUERIES, demo_corpus_path


@cli.command()
@click.option(
    "--collection", "-c", default=DEMO_COLLECTION, show_default=True, help="Collection name."
)
@json_option
@pass_state
def demo(state: Context, collection: str, as_json: bool) -> None:
    """Load the shipped US drug-label sample; show routed answers next to plain search."""
    path = demo_corpus_path()
    progress, done = phase_reporter("demo ingest", enabled=not as_json)
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
    s = state.sectio
    answers = [s.ask(q, collection=collection, tenant="default") for q in DEMO_QUERIES]
    searches = [s.search(q, collection=collection, top_k=3, tenant="default") for q in DEMO_QUERIES]
    if as_json:
        emit_json(
            {
                "ingest": report.as_dict(),
                "answers": [r.model_dump(mode="json") for r in answers],
                "searches": [r.model_dump(mode="json") for r in searches],
            }
        )
        return
    note(
        f"{report.action} collection {collection!r}: {report.chunks_read} chunks "
        f"({report.embeddings_computed} embedded, {report.embeddings_cached} cached) "
        f"in {report.seconds:.1f} s under {state.settings.home}"
    )
    run = command_prefix(state.settings.home)
    c = shlex.quote(collection)
    for q, answer, hits in zip(DEMO_QUERIES, answers, searches, strict=True):
        click.echo(f"\n$ {run} ask {shlex.quote(q)} --collection {c}")
        print_result(answer)
        click.echo(f"\n$ {run} search {shlex.quote(q)} --collection {c} --top-k 3")
        print_hits(hits)
    click.echo("\nNext steps (each runs as printed, from this folder):")
    for step in next_steps(run, c):
        click.echo(f"  {step}")


def next_steps(run: str, collection: str) -> list[str]:
    """Commands to try on the demo collection, prefixed with ``run`` (program and home)."""
    return [
        f"{run} ask 'who should not take Glucophage?' --collection {collection}",
        f"{run} search 'lactic acidosis' --collection {collection} --top-k 5",
        f"{run} lookup 'hypertension' --collection {collection}",
        f"{run} info --collection {collection}",
    ]
