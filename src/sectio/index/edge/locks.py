"""Advisory locks of a Qdrant Edge store: one writer per collection, one server per home.

The lock files live under ``<collections>/.locks/`` (a collection name never
starts with a dot, so the folder is never taken for a collection)::

    .locks/collections/<name>   ingest, replace, restore, import and gc of <name>
    .locks/serve                ``sectio serve``, for its whole life

A lock is ``fcntl.flock`` (exclusive, non-blocking) on its file. The holder
writes its pid, purpose, command line and start time into the file, so a
refused caller can name it. The kernel drops a lock when its process dies
(``kill -9`` included): a file left by a dead process is free, never an
obstacle, and its stale text is never shown (a holder whose pid is gone is
reported as "another process").

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "lock"
    >>> held = acquire(path, "ingest", "collection 'c'")
    >>> holder(path) is not None
    True
    >>> held.release()
    >>> holder(path) is None
    True
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sectio.errors import CollectionBusy, IndexError_

LOCKS_DIR = ".locks"
#: A refused lock is retried for this long: a :func:`holder` probe holds it for microseconds.
RETRY_S = 0.5


@dataclass(frozen=True)
class Holder:
    """Who holds a lock: its pid, what it does (``purpose``), its command line, since when."""

    pid: int
    purpose: str
    command: str
    since: str

    def describe(self) -> str:
        """``pid 123 (ingest: sectio ingest x.jsonl, since 2026-...)``."""
        return f"pid {self.pid} ({self.purpose}: {self.command}, since {self.since})"


class HeldLock:
    """A lock this process holds; :meth:`release` (idempotent) lets it go.

    ``fd`` None: nothing is held (a read-only store, where no writer can run).
    """

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)  # an unheld lock file is empty
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None


def collection_lock(root: Path, name: str) -> Path:
    """The lock file of collection ``name`` of the store at ``root``."""
    return root / LOCKS_DIR / "collections" / name


def serve_lock(root: Path) -> Path:
    """The lock file ``sectio serve`` holds on the store at ``root``."""
    return root / LOCKS_DIR / "serve"


def _command() -> str:
    argv = [Path(sys.argv[0]).name, *sys.argv[1:]] if sys.argv and sys.argv[0] else ["python"]
    text = " ".join(argv)
    return text if len(text) <= 200 else text[:199] + "…"


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one owned by another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_holder(fd: int) -> Holder | None:
    """The holder text in the file, if it names a live process."""
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode() or "{}")
        found = Holder(int(data["pid"]), str(data["purpose"]), str(data["command"]), data["since"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return found if pid_alive(found.pid) else None


def acquire(path: Path, purpose: str, what: str) -> HeldLock:
    """Take the lock at ``path`` for ``purpose`` (retried for :data:`RETRY_S`).

    ``what`` names the locked thing in the error (``collection 'docs'``).

    Raises:
        CollectionBusy: another process holds it; the message names its pid and command.
        IndexError_: the lock cannot be taken because the folder is read-only (a
            read-only home: nothing can be written there).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        if exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise
        raise IndexError_(
            f"{what} cannot be written: {path.parent} is read-only ({exc.strerror})"
        ) from exc
    deadline = time.monotonic() + RETRY_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            found = _read_holder(fd)
            os.close(fd)
            who = found.describe() if found else "another process"
            raise CollectionBusy(f"{what} is busy: held by {who}") from None
    record = {
        "pid": os.getpid(),
        "purpose": purpose,
        "command": _command(),
        "since": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(record).encode(), 0)
    return HeldLock(path, fd)


class WriterLocks:
    """The per-collection writer locks of one backend object (``root``: their folder;
    None: no lock, for a store no other process can see, like ``:memory:``).

    Re-entrant within the object: a restore inside an ingest's hold holds it once.

    Example:
        >>> import tempfile, pathlib
        >>> locks = WriterLocks(pathlib.Path(tempfile.mkdtemp()))
        >>> with locks.hold("c", "ingest", "collection 'c'") as first:
        ...     with locks.hold("c", "restore", "collection 'c'") as again:
        ...         (first, again)
        (True, False)
    """

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self._held: dict[str, tuple[HeldLock, int]] = {}

    @contextlib.contextmanager
    def hold(self, name: str, purpose: str, what: str) -> Iterator[bool]:
        """Hold ``name``'s lock while the block runs; yields True on the outermost entry.

        Raises:
            CollectionBusy: another process holds it (names its pid and command).
            IndexError_: the lock folder is read-only.
        """
        held = self._held.get(name)
        if held is not None:
            self._held[name] = (held[0], held[1] + 1)
        elif self.root is not None:
            self._held[name] = (acquire(collection_lock(self.root, name), purpose, what), 1)
        else:
            self._held[name] = (HeldLock(Path(name), None), 1)
        try:
            yield held is None
        finally:
            lock, depth = self._held[name]
            if depth > 1:
                self._held[name] = (lock, depth - 1)
            else:
                del self._held[name]
                lock.release()


def holder(path: Path) -> Holder | None:
    """Who holds the lock at ``path`` now (None if nobody does).

    A held lock whose holder text is unreadable is reported with pid 0.
    """
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_holder(fd) or Holder(0, "unknown", "another process", "?")
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def server_record(root: Path) -> Path:
    """The file where the ``sectio serve`` holding the store at ``root`` says where it listens."""
    return root / LOCKS_DIR / "serve.json"


def register_server(root: Path, url: str) -> None:
    """Record that this process (holding the serve lock) answers HTTP at ``url``."""
    path = server_record(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"pid": os.getpid(), "url": url}))
    os.replace(tmp, path)


def registered_server(root: Path) -> str | None:
    """The URL of the ``sectio serve`` holding the store at ``root`` now, if it registered
    one (a record left by a server that is gone, or by another pid, is ignored)."""
    try:
        data = json.loads(server_record(root).read_text())
        pid, url = int(data["pid"]), str(data["url"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    who = holder(serve_lock(root))
    return url if who is not None and who.pid == pid else None


__all__ = [
    "HeldLock",
    "Holder",
    "WriterLocks",
    "acquire",
    "collection_lock",
    "holder",
    "register_server",
    "registered_server",
    "serve_lock",
    "server_record",
]
