"""``sectio eval QUERIES_JSONL QRELS_TSV``: score a collection against BEIR queries and qrels."""

from __future__ import annotations

from pathlib import Path

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
from sectio.cli.progress import progress_reporter
from sectio.eval import (
    EVAL_MODES,
    LEVELS,
    evaluate,
    load_qrels,
    load_queries,
    write_per_query,
)


@cli.command(name="eval")
@click.argument("queries", type=click.Path(path_type=Path))
@click.argument("qrels", type=click.Path(path_type=Path))
@click.option(
    "--mode",
    type=click.Choice(EVAL_MODES),
    default="hybrid",
    show_default=True,
    help="Search mode, or routed (what `sectio ask` returns).",
)
@click.option(
    "--level",
    type=click.Choice(LEVELS),
    default="doc",
    show_default=True,
    help="What a qrels corpus-id names: doc_id, doc_id#section_key, or chunk_id.",
)
@click.option(
    "--top-k",
    type=int,
    default=100,
    show_default=True,
    help="Ranking depth scored (past the search clamp of 50; at most 1000).",
)
@click.option(
    "--per-query",
    "per_query",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write per-query metrics and rankings to this JSON Lines file.",
)
@collection_option
@tenant_option
@json_option
@pass_state
def eval_command(
    state: Context,
    queries: Path,
    qrels: Path,
    mode: str,
    level: str,
    top_k: int,
    per_query: Path | None,
    collection: str,
    tenant: str,
    as_json: bool,
) -> None:
    """Score a collection with BEIR QUERIES_JSONL and QRELS_TSV.

    Metrics: nDCG@10, Recall@10, Recall@100, MRR@10, hit@1.
    """
    judged = load_qrels(qrels)
    texts = load_queries(queries)
    progress, done = progress_reporter("eval", "queries", enabled=not as_json)
    try:
        report, rows = evaluate(
            state.sectio,
            texts,
            judged,
            collection=collection,
            tenant=tenant,
            mode=mode,
            level=level,
            top_k=top_k,
            progress=progress,
        )
    finally:
        done()
    if per_query is not None:
        write_per_query(per_query, rows)
    if as_json:
        emit_json(report)
        return
    click.echo(
        f"{report.collection} · mode {report.mode} · level {report.level} · "
        f"top-k {report.top_k} · {report.queries} queries · {report.queries_per_s:.0f} q/s"
    )
    for name, value in report.metrics.items():
        click.echo(f"  {name:<11} {value:.4f}")
    if report.queries_without_results:
        click.echo(f"  ({report.queries_without_results} queries returned nothing)")
