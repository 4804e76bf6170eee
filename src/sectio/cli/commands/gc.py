"""``sectio gc``: remove crash leftovers (stale staged versions, restore temp folders)."""

from __future__ import annotations

import click

from sectio.cli.base import Context, cli, emit_json, json_option, note, pass_state


@cli.command()
@click.option("--collection", "-c", default=None, help="Only this collection (default: every one).")
@json_option
@pass_state
def gc(state: Context, collection: str | None, as_json: bool) -> None:
    """Remove what crashed writes left behind; never a live version or a running write's.

    A collection another process is writing is skipped and named with its pid.
    Every write also does this for its own collection first.
    """
    from sectio.engine import human_bytes as human

    report = state.sectio.gc(collection)
    if as_json:
        emit_json(report)
        return
    for item in report["removed"]:
        note(f"removed {item['path']} ({human(item['bytes'])})")
    for item in report["skipped"]:
        note(f"skipped {item['collection']!r}: {item['reason']}")
    note(f"freed {human(report['bytes_freed'])} in {len(report['removed'])} leftovers")
