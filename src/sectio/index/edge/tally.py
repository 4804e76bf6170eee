"""A closed shard's point count, kept beside it, believed only while the shard is unchanged.

Opening a Qdrant Edge shard to count its points costs its whole load (segments,
payload indexes, the int8 copy of the vectors): 0.17 s for 10k chunks, the biggest
part of ``sectio info``. So whenever the store closes a shard it opened (a load's
commit, a search's or a server's exit, an ``info`` that had to open it), the shard's
count, read just before the close, is kept in the version folder
(``<version>/COUNTED``) together with a fingerprint of the shard's files taken just
after it: the path, type, size, mtime, ctime and inode of every file and folder
under ``shard/``. (Every open rewrites some of them, flags and trackers, so a record
is written at close, never before.)

A later read (:func:`recall`) believes the record only under the shard's WAL lock
and only if the fingerprint is still the same. The WAL lock is the one Qdrant Edge
itself takes to open a shard (``flock`` on ``shard/wal``): while this process
holds it, no process has the shard open, so none can write, flush or optimize it
mid-read. Any write since the count (an upsert, a repair, a crash's replayed
WAL, a flush), a copy (new inodes), a restore (a new version, its own record) or
a ``touch`` changes the fingerprint, and the caller then opens the shard and
counts it, as it always did. A shard held by another process (``sectio serve``, a
writer) is never read from the record: the caller's open reports who holds it.

What the record cannot see is a file whose bytes change while its size, times and
inode stay (bit rot under a fixed mtime); a count read by opening the shard reads
the id tracker, not the vectors, and would not see most of that either.

Example:
    >>> import tempfile, pathlib
    >>> v = pathlib.Path(tempfile.mkdtemp())
    >>> (v / "shard" / "wal").mkdir(parents=True)
    >>> remember(v, 3)
    True
    >>> recall(v)
    3
    >>> (v / "shard" / "wal" / "open-1").write_bytes(b"x")
    1
    >>> recall(v) is None
    True
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from sectio._files import write_json_atomic

log = logging.getLogger(__name__)

#: In a version folder: the shard's point count when sectio last closed it, and the
#: fingerprint of the files it was counted from.
COUNT_FILE = "COUNTED"
#: The record's format (a record of another format is ignored).
FORMAT = 1


@contextlib.contextmanager
def wal_lock(shard: Path) -> Iterator[bool]:
    """Hold ``shard``'s WAL lock for the ``with`` block; yields False (holding nothing)
    when another open file holds it (another process, or this one's open shard) or the
    shard has no WAL folder."""
    try:
        fd = os.open(shard / "wal", os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            held = False
        else:
            held = True
        yield held
    finally:
        os.close(fd)  # drops the flock


def fingerprint(shard: Path) -> str:
    """sha256 of (path, type, size, mtime, ctime, inode, device) of everything under ``shard``.

    Raises:
        OSError: the folder cannot be listed.
    """
    rows: list[tuple[str, int, int, int, int, int, int]] = []
    _stat_tree(str(shard), "", rows)
    rows.sort()
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def _stat_tree(
    folder: str, prefix: str, rows: list[tuple[str, int, int, int, int, int, int]]
) -> None:
    with os.scandir(folder) as entries:
        for entry in entries:
            st = entry.stat(follow_symlinks=False)
            rel = prefix + entry.name
            rows.append(
                (rel, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
            )
            if entry.is_dir(follow_symlinks=False):
                _stat_tree(entry.path, rel + "/", rows)


def remember(version_dir: Path, count: int) -> bool:
    """Record ``count`` for ``version_dir``'s closed shard; False when it could not be
    (the shard is open somewhere, the folder is read-only): the next read then opens
    the shard, as without a record."""
    shard = version_dir / "shard"
    try:
        with wal_lock(shard) as held:
            if not held:
                return False
            record = {"format": FORMAT, "points": count, "fingerprint": fingerprint(shard)}
            write_json_atomic(version_dir / COUNT_FILE, record)
            return True
    except OSError as exc:
        log.debug("no point count recorded for %s: %s", shard, exc)
        return False


def recall(version_dir: Path) -> int | None:
    """The recorded point count of ``version_dir``'s shard if its files are the ones it
    was counted from; None when there is no usable record, the shard changed since, or
    another process holds the shard (then the caller opens it, and is told by whom)."""
    shard = version_dir / "shard"
    try:
        record = json.loads((version_dir / COUNT_FILE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return None
    points = record.get("points")
    if type(points) is not int or points < 0:  # a bool is an int too
        return None
    try:
        with wal_lock(shard) as held:
            if not held or fingerprint(shard) != record.get("fingerprint"):
                return None
    except OSError:
        return None
    return points


__all__ = ["COUNT_FILE", "fingerprint", "recall", "remember", "wal_lock"]
