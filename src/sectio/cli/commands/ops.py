"""``sectio migrate``, ``feedback``, ``purge``, ``traces``: the operational store.

Each is a call on :class:`sectio.Sectio` (:mod:`sectio.engine_ops`). The store
(SQLAlchemy, Alembic) is imported when one of these commands runs, not at
every CLI start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from sectio.cli.base import Context, cli, emit_json, json_option, pass_state
from sectio.errors import ConfigError

if TYPE_CHECKING:
    from sectio.engine_ops import PurgeReport

RATINGS = ("helpful", "not_helpful")  # sectio.ops.schema.RATINGS, without importing SQLAlchemy


@cli.command()
@json_option
@pass_state
def migrate(state: Context, as_json: bool) -> None:
    """Create or upgrade the operational store's schema (safe to re-run)."""
    report = state.sectio.ops.migrate()
    if as_json:
        emit_json(report)
    elif report.applied:
        click.echo(
            f"{report.url}: migrated {report.from_revision or '(empty)'} -> "
            f"{report.to_revision} ({', '.join(report.applied)})"
        )
    else:
        click.echo(f"{report.url}: already at {report.to_revision}")


@cli.command()
@click.argument("trace_id")
@click.argument("rating", type=click.Choice(RATINGS), metavar="helpful|not_helpful")
@click.option("--comment", default=None, help="Free text, at most 2000 characters.")
@click.option("--tenant", default="default", show_default=True, help="Tenant to act as.")
@click.option("--conversation", "conversation_id", default=None, help="Conversation id.")
@json_option
@pass_state
def feedback(
    state: Context,
    trace_id: str,
    rating: str,
    comment: str | None,
    tenant: str,
    conversation_id: str | None,
    as_json: bool,
) -> None:
    """Rate the answer of one trace (a second rating replaces the first)."""
    fb = state.sectio.ops.feedback(
        trace_id, rating, tenant=tenant, comment=comment, conversation_id=conversation_id
    )
    if as_json:
        emit_json(fb)
    else:
        click.echo(f"{'updated' if fb.updated else 'recorded'} {fb.rating} for trace {fb.trace_id}")


@cli.command()
@click.option(
    "--older-than",
    "older_than",
    type=click.IntRange(min=0, max=36_500),
    default=None,
    help="Delete traces and turns older than DAYS days, 0 to 36500 (feedback goes with its trace).",
    metavar="DAYS",
)
@click.option(
    "--conversation",
    "conversation_id",
    default=None,
    help="Erase one conversation: its turns and its traces.",
)
@click.option("--auto", is_flag=True, help="Apply SECTIO_RETENTION_DAYS.")
@click.option("--tenant", default=None, help="With --conversation: only this tenant's rows.")
@json_option
@pass_state
def purge(
    state: Context,
    older_than: int | None,
    conversation_id: str | None,
    auto: bool,
    tenant: str | None,
    as_json: bool,
) -> None:
    """Delete old traces and turns, or erase one conversation."""
    chosen = [older_than is not None, conversation_id is not None, auto]
    if sum(chosen) != 1:
        raise click.UsageError("give exactly one of --older-than DAYS, --conversation ID, --auto")
    if tenant is not None and conversation_id is None:
        raise click.UsageError("--tenant only applies with --conversation")
    sectio = state.sectio
    report: PurgeReport | None
    if older_than is not None:
        report = sectio.ops.purge_older_than(older_than)
    elif conversation_id is not None:
        report = sectio.ops.purge_conversation(conversation_id, tenant=tenant)
    else:
        report = sectio.ops.apply_retention()
        if report is None:
            raise ConfigError("--auto needs SECTIO_RETENTION_DAYS (no retention period is set)")
    if as_json:
        emit_json(report)
        return
    what = (
        f"conversation {report.conversation_id}"
        if report.conversation_id is not None
        else f"older than {report.cutoff.isoformat() if report.cutoff else '?'}"
    )
    click.echo(
        f"deleted {report.traces} trace(s), {report.turns} turn(s), "
        f"{report.feedback} feedback ({what})"
    )


@cli.command()
@click.option("--limit", "-n", type=click.IntRange(1, 10_000), default=20, show_default=True)
@click.option("--tenant", default=None, help="Only this tenant's traces.")
@json_option
@pass_state
def traces(state: Context, limit: int, tenant: str | None, as_json: bool) -> None:
    """List recent retrieval traces, newest first, with decision and feedback."""
    rows = state.sectio.ops.traces(limit, tenant=tenant)
    if as_json:
        emit_json([r.as_dict() for r in rows])
        return
    if not rows:
        click.echo("no traces")
    for r in rows:
        query = " ".join((r.query_text or "-").split())
        click.echo(
            f"{r.created_at:%Y-%m-%d %H:%M:%S}  {r.trace_id}  {r.kind:<6} "
            f"{(r.decision or '-'):<13} {(r.rating or '-'):<11} {r.route or '-'}  "
            f"{query[:60]}{'…' if len(query) > 60 else ''}"
        )
