"""Migrations, run through Alembic's API with a configuration built in code.

The scripts ship inside the package (``sectio/ops/migrations``); no
``alembic.ini`` is read. The applied revision is recorded in the table
``sectio_alembic_version``. Upgrading is idempotent: at head it does nothing.
On PostgreSQL a transaction-scoped advisory lock keeps two processes from
migrating at once; on SQLite ``BEGIN IMMEDIATE`` does the same.

Example:
    >>> head_revision()
    '0001_operational_store'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

if TYPE_CHECKING:  # alembic is imported when a migration check runs, not with sectio
    from alembic.config import Config
    from alembic.script import ScriptDirectory

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
VERSION_TABLE = "sectio_alembic_version"
#: The newest shipped revision, named here so that the schema check of every traced
#: command can skip importing Alembic (~0.2 s) when the database is at head; a test
#: (tests/test_ops_store.py) fails when a new script is added without updating it.
HEAD_REVISION = "0001_operational_store"
_PG_LOCK_KEY = 0x5EC710  # advisory lock id for "sectio migrate"


@dataclass(frozen=True)
class MigrationReport:
    """What ``migrate`` did: the revision before and after, and the steps applied."""

    url: str
    dialect: str
    from_revision: str | None
    to_revision: str | None
    applied: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return asdict(self)


def alembic_config(connection: sa.Connection | None = None) -> Config:
    """An Alembic ``Config`` pointing at the packaged scripts (and ``connection``)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("path_separator", "os")
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


@lru_cache(maxsize=1)
def _script() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config())


def head_revision() -> str:
    """The newest revision this sectio ships."""
    head = _script().get_current_head()
    assert head is not None
    return head


def known_revisions() -> list[str]:
    """Every shipped revision, oldest first."""
    return [s.revision for s in reversed(list(_script().walk_revisions()))]


def recorded_revision(connection: sa.Connection) -> str | None:
    """The one revision in the version table, read with plain SQL (no Alembic import).

    None when the table is absent or does not hold exactly one row (Alembic
    then decides: :func:`current_revision`).
    """
    if not sa.inspect(connection).has_table(VERSION_TABLE):
        return None
    rows = connection.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}")).all()
    return str(rows[0][0]) if len(rows) == 1 else None


def current_revision(connection: sa.Connection) -> str | None:
    """The revision recorded in ``connection``'s database (None when never migrated)."""
    from alembic.runtime.migration import MigrationContext

    ctx = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
    return ctx.get_current_revision()


def upgrade(engine: sa.Engine, *, url: str = "") -> MigrationReport:
    """Bring ``engine``'s database to the head revision, in one transaction.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: the database refused (the caller translates it).
    """
    from alembic import command

    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_KEY})
        before = current_revision(conn)
        command.upgrade(alembic_config(conn), "head")
        after = current_revision(conn)
    revisions = known_revisions()
    start = revisions.index(before) + 1 if before in revisions else 0
    stop = revisions.index(after) + 1 if after in revisions else 0
    applied = revisions[start:stop] if before != after else []
    return MigrationReport(
        url=url,
        dialect=engine.dialect.name,
        from_revision=before,
        to_revision=after,
        applied=applied,
    )
