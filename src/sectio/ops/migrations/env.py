"""Alembic environment for sectio's operational store.

Run programmatically by :func:`sectio.ops.migrate.upgrade` with a connection
already inside a transaction (``config.attributes["connection"]``); there is
no ``alembic.ini`` at run time. Offline (``--sql``) mode is not supported.
"""

from __future__ import annotations

from alembic import context

from sectio.ops.schema import metadata

VERSION_TABLE = "sectio_alembic_version"

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - only reachable by running alembic by hand
    raise RuntimeError("run sectio's migrations with `sectio migrate`, not the alembic CLI")

context.configure(
    connection=connection,
    target_metadata=metadata,
    version_table=VERSION_TABLE,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
