"""``sectio eval QUERIES_JSONL QRELS_TSV``: score a collection against BEIR queries and qrels.

``sectio eval QUESTIONS_JSONL --answerability``: score ``ask``'s decisions
against each question's ``expect`` (answer or abstain); no qrels needed.
"""

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
    pass_state,
    tenant_option,
)
from sectio.cli.progress import progress_reporter
from sectio.eval.choices import EVAL_MODES, LEVELS

if TYPE_CHECKING:
    from sectio.eval.harness import EvalReport


@cli.command(name="eval")
@click.argument("queries", type=click.Path(path_type=Path))
@click.argument("qrels", type=click.Path(path_type=Path), required=False)
@click.option(
    "--answerability",
    is_flag=True,
    help="Score ask's decisions against each question's expect (answer|abstain); no QRELS.",
)
@click.option(
    "--group-by",
    "group_by",
    metavar="FIELD",
    help="With --answerability: also break the shares down by this metadata field.",
)
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
    "--compare",
    is_flag=True,
    help="Score hybrid, dense and lexical side by side in one run (ignores --mode).",
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
    qrels: Path | None,
    answerability: bool,
    group_by: str | None,
    mode: str,
    level: str,
    compare: bool,
    top_k: int,
    per_query: Path | None,
    collection: str,
    tenant: str,
    as_json: bool,
) -> None:
    """Score a collection with BEIR QUERIES_JSONL and QRELS_TSV.

    Metrics: nDCG@10, Recall@10, Recall@100, MRR@10, hit@1. With
    --answerability, QUERIES_JSONL lines carry ``expect`` (answer|abstain) and
    the report is the share of each that ask got right, by route, with the
    trade-off curve over min_coverage.
    \f
    Long: click's option decorators are most of its lines; the work is in helpers.
    """
    if answerability:
        _answerability(state, queries, group_by, per_query, collection, tenant, as_json)
        return
    if qrels is None:
        raise click.UsageError("QRELS is required (or pass --answerability)")
    from sectio.eval import evaluate, load_qrels, load_queries, write_per_query

    judged = load_qrels(qrels)
    texts = load_queries(queries)
    reports: dict[str, EvalReport] = {}
    for each in COMPARED if compare else (mode,):
        progress, done = progress_reporter(f"eval {each}", "queries", enabled=not as_json)
        try:
            reports[each], rows = evaluate(
                state.sectio,
                texts,
                judged,
                collection=collection,
                tenant=tenant,
                mode=each,
                level=level,
                top_k=top_k,
                progress=progress,
            )
        finally:
            done()
        if per_query is not None and not compare:
            write_per_query(per_query, rows)
    if compare:
        _print_comparison(reports, as_json)
    elif as_json:
        emit_json(reports[mode])
    else:
        _print_report(reports[mode])


#: The lists ``--compare`` scores, fused first.
COMPARED = ("hybrid", "dense", "lexical")


def _print_comparison(reports: dict[str, EvalReport], as_json: bool) -> None:
    """Each metric for every mode, the better single list and hybrid's difference to it."""
    metrics = list(reports["hybrid"].metrics)
    best = {
        m: max(("dense", "lexical"), key=lambda mode: reports[mode].metrics[m]) for m in metrics
    }
    if as_json:
        emit_json(
            {
                "modes": {k: r.model_dump(mode="json") for k, r in reports.items()},
                "best_single": {
                    m: {
                        "mode": best[m],
                        "value": reports[best[m]].metrics[m],
                        "hybrid_minus_best": reports["hybrid"].metrics[m]
                        - reports[best[m]].metrics[m],
                    }
                    for m in metrics
                },
            }
        )
        return
    first = reports["hybrid"]
    click.echo(f"{first.collection} · level {first.level} · {first.queries} queries")
    click.echo(f"  {'metric':<11}{'hybrid':>9}{'dense':>9}{'lexical':>9}   hybrid - best single")
    for m in metrics:
        values = "".join(f"{reports[k].metrics[m]:>9.4f}" for k in COMPARED)
        diff = reports["hybrid"].metrics[m] - reports[best[m]].metrics[m]
        click.echo(f"  {m:<11}{values}   {diff:+.4f} ({best[m]})")


def _print_report(report: EvalReport) -> None:
    click.echo(
        f"{report.collection} · mode {report.mode} · level {report.level} · "
        f"top-k {report.top_k} · {report.queries} queries · {report.queries_per_s:.0f} q/s"
    )
    for name, value in report.metrics.items():
        click.echo(f"  {name:<11} {value:.4f}")
    if report.queries_without_results:
        click.echo(f"  ({report.queries_without_results} queries returned nothing)")


def _answerability(
    state: Context,
    queries: Path,
    group_by: str | None,
    per_query: Path | None,
    collection: str,
    tenant: str,
    as_json: bool,
) -> None:
    from sectio.eval.answerability import evaluate_answerability, load_questions, write_rows

    questions = load_questions(queries, group_key=group_by)
    progress, done = progress_reporter("eval", "questions", enabled=not as_json)
    try:
        report, rows = evaluate_answerability(
            state.sectio, questions, collection=collection, tenant=tenant, progress=progress
        )
    finally:
        done()
    if per_query is not None:
        write_rows(per_query, rows)
    if as_json:
        emit_json(report)
        return
    click.echo(f"{report.collection} · answerability · {report.questions} questions")
    click.echo(f"  {'':<22}{'abstain (expect abstain)':>26}{'answer (expect answer)':>24}")
    for name, shares in (
        ("all", report.overall),
        *((f"route {k}", v) for k, v in report.by_route.items()),
        *((f"{group_by} {k}", v) for k, v in report.by_group.items()),
    ):
        click.echo(f"  {name:<22}{_share(shares, 'abstain'):>26}{_share(shares, 'answer'):>24}")
    click.echo(
        "  curve over min_coverage (abstain/answer): "
        + ", ".join(
            f"{p['min_coverage']:.1f}: {_rate(p, 'abstain_rate')}/{_rate(p, 'answer_rate')}"
            for p in report.curve
        )
    )
    if report.reasons:
        click.echo(
            "  abstained by reason: " + ", ".join(f"{k} {v}" for k, v in report.reasons.items())
        )


def _rate(point: dict[str, float], key: str) -> str:
    """A curve point's share, or "-" when the set has no question of that kind."""
    return f"{point[key]:.3f}" if key in point else "-"


def _share(shares: dict[str, float | int], which: str) -> str:
    n = shares["unanswerable" if which == "abstain" else "answerable"]
    if not n:
        return "-"
    return f"{shares[f'{which}_rate']:.3f} of {n}"
