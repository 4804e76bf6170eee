"""Engines for the operational store: one per store, pooled, with bounded waits.

* **SQLite** (the default, ``$SECTIO_HOME/sectio.sqlite3``): WAL journal,
  ``busy_timeout``, ``foreign_keys=ON`` on every connection (the feedback
  cascade needs it), and ``BEGIN IMMEDIATE`` for every transaction so that
  concurrent writers queue on the busy timeout instead of failing on a
  read-to-write upgrade.
* **PostgreSQL** (``postgresql+psycopg://…``; a bare ``postgresql://`` is read
  as psycopg 3): a ``QueuePool`` with ``pool_pre_ping``, libpq
  ``connect_timeout`` and server-side ``statement_timeout``/``lock_timeout``
  passed as ``options``, and a bounded wait for a pooled connection. libpq
  counts ``connect_timeout`` in whole seconds, at least 2.

Example:
    >>> from sectio.settings import Settings
    >>> database_url(Settings(home="/tmp/h")).endswith("/tmp/h/sectio.sqlite3")
    True
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, Engine, make_url

from sectio.errors import ConfigError
from sectio.extras import require_extra
from sectio.settings import Settings

SQLITE_FILE = "sectio.sqlite3"


def database_url(settings: Settings) -> str:
    """``SECTIO_DATABASE_URL``, or the SQLite file under ``SECTIO_HOME``."""
    if settings.database_url:
        return settings.database_url
    return f"sqlite:///{(Path(settings.home) / SQLITE_FILE).absolute()}"


def is_default_sqlite(settings: Settings) -> bool:
    """True when no URL is configured (the embedded SQLite default)."""
    return not settings.database_url


def parse_url(url: str) -> URL:
    """Parse and normalise ``url``; only SQLite and PostgreSQL (psycopg 3) are supported.

    Raises:
        ConfigError: an unparseable URL or another database.
        NotAvailable: a PostgreSQL URL without the ``postgres`` extra (psycopg).
    """
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise ConfigError(f"SECTIO_DATABASE_URL is not a database URL: {exc}") from exc
    backend, _, driver = parsed.drivername.partition("+")
    if backend in ("postgresql", "postgres"):
        if driver not in ("", "psycopg"):
            raise ConfigError(
                f"SECTIO_DATABASE_URL: driver {driver!r} is not supported; use postgresql+psycopg://"
            )
        require_extra("postgres", "psycopg")
        return parsed.set(drivername="postgresql+psycopg")
    if backend == "sqlite":
        if driver not in ("", "pysqlite"):
            raise ConfigError(f"SECTIO_DATABASE_URL: SQLite driver {driver!r} is not supported")
        return parsed
    raise ConfigError(
        f"SECTIO_DATABASE_URL: {backend!r} is not supported (use sqlite:/// or postgresql+psycopg://)"
    )


def redact(url: str | URL) -> str:
    """``url`` with its password hidden (for logs and messages)."""
    try:
        parsed = url if isinstance(url, URL) else make_url(url)
    except Exception:
        return "<unparseable database url>"
    return parsed.render_as_string(hide_password=True)


def build_engine(
    url: str,
    *,
    connect_timeout_s: float = 2.0,
    statement_timeout_s: float = 2.0,
    pool_size: int = 5,
    max_overflow: int = 5,
) -> Engine:
    """One pooled engine for ``url`` with bounded connect, statement and pool waits.

    Creating the engine connects to nothing; the first checkout does. A SQLite
    file's parent folder is created here.

    Raises:
        ConfigError: an unsupported URL.
    """
    parsed = parse_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed, statement_timeout_s, pool_size, max_overflow)
    return _postgres_engine(parsed, connect_timeout_s, statement_timeout_s, pool_size, max_overflow)


def _postgres_engine(
    url: URL, connect_timeout_s: float, statement_timeout_s: float, pool_size: int, overflow: int
) -> Engine:
    ms = max(1, int(statement_timeout_s * 1000))
    options = f"-c statement_timeout={ms} -c lock_timeout={ms}"
    query = dict(url.query)
    theirs = query.pop("options", None)
    if theirs:
        options = f"{options} {theirs if isinstance(theirs, str) else ' '.join(theirs)}"
    connect_args: dict[str, Any] = {"options": options, "application_name": "sectio"}
    if "connect_timeout" not in query:
        connect_args["connect_timeout"] = max(2, math.ceil(connect_timeout_s))
    return sa.create_engine(
        url.set(query=query),
        poolclass=sa.QueuePool,
        pool_size=pool_size,
        max_overflow=overflow,
        pool_timeout=max(connect_timeout_s, 0.1),
        pool_pre_ping=True,
        pool_recycle=1800,
        connect_args=connect_args,
    )


def _sqlite_engine(url: URL, busy_timeout_s: float, pool_size: int, overflow: int) -> Engine:
    database = url.database or ""
    memory = database in ("", ":memory:") or database.startswith("file::memory:")
    if not memory:
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    kwargs: dict[str, Any] = {
        "connect_args": {"timeout": busy_timeout_s, "check_same_thread": False},
    }
    if memory:
        kwargs["poolclass"] = sa.StaticPool
    else:
        kwargs.update(
            poolclass=sa.QueuePool,
            pool_size=pool_size,
            max_overflow=overflow,
            pool_timeout=max(busy_timeout_s, 0.1),
        )
    engine = sa.create_engine(url, **kwargs)
    busy_ms = max(1, int(busy_timeout_s * 1000))

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the sqlite3 module, decide where transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            if not memory:
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine
