"""One module per command group; importing this package registers them all."""

from sectio.cli.commands import (  # noqa: F401
    ask,
    demo,
    documents,
    eval,
    gc,
    info,
    ingest,
    mcp,
    ops,
    plan,
    profile,
    search,
    serve,
    snapshot,
    transfer,
)
