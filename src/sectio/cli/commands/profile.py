"""``sectio profile draft SRC|-c NAME``: a TOML profile learned from a corpus."""

from __future__ import annotations

from pathlib import Path

import click

from sectio.cli.base import Context, cli, emit_json, json_option, pass_state
from sectio.errors import ConfigError


@cli.group()
def profile() -> None:
    """Corpus profiles: draft one from a corpus."""


@profile.command()
@click.argument("src", required=False, type=click.Path(path_type=Path))
@click.option("--collection", "-c", default=None, help="Draft from this collection instead.")
@click.option("--format", "fmt", default=None, help="Format of SRC (told by content if left out).")
@click.option("--tenant", default="default", show_default=True, help="The collection's tenant.")
@json_option
@pass_state
def draft(
    state: Context,
    src: Path | None,
    collection: str | None,
    fmt: str | None,
    tenant: str,
    as_json: bool,
) -> None:
    """Print a complete TOML profile drafted from SRC (any ingestable source) or a collection:
    sections in book order, titles, an intro guess, learned phrases, placeholder examples
    (``--json``: the profile as data, with its TOML text)."""
    if (src is None) == (collection is None):  # before the engine is built
        raise ConfigError("give a source path or --collection NAME (one of them)")
    text = state.sectio.draft_profile(src, collection=collection, fmt=fmt, tenant=tenant)
    if as_json:  # the drafted profile as data, with its TOML text
        import tomllib

        emit_json({"profile": tomllib.loads(text), "toml": text})
        return
    click.echo(text, nl=False)
