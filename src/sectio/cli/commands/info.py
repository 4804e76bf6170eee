"""``sectio info``."""

from __future__ import annotations

import click

from sectio.cli.base import Context, cli, emit_json, json_option, pass_state


@cli.command()
@click.option("--collection", "-c", default=None, help="Only this collection.")
@json_option
@pass_state
def info(state: Context, collection: str | None, as_json: bool) -> None:
    """Show collections, their counts and manifests (and a count the manifest disagrees with)."""
    data = state.sectio.info(collection)
    if as_json:
        emit_json(data)
        return
    click.echo(f"home: {data['home']} ({data['backend']})")
    if not data["collections"]:
        click.echo("no collections; run `sectio ingest PATH`")
    for c in data["collections"]:
        m = c["manifest"] or {}
        window = m.get("dense_window_tokens") or 0
        click.echo(
            f"{c['name']}: {c['count']} points; model {m.get('model_id', '?')} "
            f"({m.get('dimensions', '?')}-d"
            f"{f', windows of {window} tokens' if window else ''}); "
            f"profile {m.get('profile_name', '?')}; "
            f"corpus {str(m.get('corpus_sha256', '?'))[:12]}; created {m.get('created_at', '?')}"
        )
        if c.get("matches_manifest") is False:
            click.echo(
                f"  warning: its manifest says {m.get('chunk_count')} points, its index holds "
                f"{c['count']}: ingest its source again (--replace rebuilds it)"
            )
        elif c["manifest"] is None:
            click.echo("  warning: no manifest: every query refuses it")
