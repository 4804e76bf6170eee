"""One module per command group; importing this package registers them all."""

from sectio.cli.commands import ask, demo, eval, info, ingest, ops, search, snapshot  # noqa: F401
