"""Test helpers for the operational store (part of :mod:`sectio.testing`).

* :func:`throwaway_database`: a fresh PostgreSQL database, dropped afterwards;
* :func:`silent_server`: a TCP port that accepts connections and never answers
  (what a hung database or a black-holed proxy looks like to a client);
* :func:`closed_port`: a loopback port nothing listens on;
* :class:`FakeClock`: a settable clock for retention tests.

Example:
    >>> clock = FakeClock(datetime(2026, 1, 1, tzinfo=UTC))
    >>> clock.advance(days=2).isoformat()
    '2026-01-03T00:00:00+00:00'
"""

from __future__ import annotations

import os
import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

#: The admin connection the tests use (env ``SECTIO_TEST_POSTGRES_URL`` overrides it).
DEFAULT_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def admin_url() -> str:
    """The PostgreSQL URL used to create and drop throwaway databases."""
    return os.environ.get("SECTIO_TEST_POSTGRES_URL", DEFAULT_ADMIN_URL)


class FakeClock:
    """A clock that stands still until told to move."""

    def __init__(self, now: datetime | None = None) -> None:
        self.now = now or datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        """Move forward by ``timedelta(**delta)`` and return the new time."""
        self.now = self.now + timedelta(**delta)
        return self.now


@contextmanager
def throwaway_database(admin: str | None = None, prefix: str = "sectio_test") -> Iterator[str]:
    """Create ``<prefix>_<random>`` on the server of ``admin``; yield its URL; drop it."""
    base = sa.make_url(admin or admin_url())
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(base, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        try:
            yield base.set(database=name).render_as_string(hide_password=False)
        finally:
            with engine.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        engine.dispose()


@contextmanager
def silent_server() -> Iterator[int]:
    """A loopback port that accepts connections, reads, and never replies. Yields the port."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.1)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            held.append(conn)  # keep it open, say nothing

    thread = threading.Thread(target=serve, name="silent-server", daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(timeout=2)
        for conn in held:
            conn.close()
        listener.close()


def closed_port() -> int:
    """A loopback port that was free a moment ago (connections to it are refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
