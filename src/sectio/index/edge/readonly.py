"""Serving a shard that lives on a read-only medium (a read-only mount, a snapshot served
as is): Qdrant Edge opens it from a private writable copy.

Qdrant Edge 0.9's Python ``EdgeShard.load`` opens every segment file for writing
(``O_RDWR``: the WAL, the payload and vector storages, every payload index's
flags; traced with ``strace``), so a shard on a read-only filesystem fails with
``Read-only file system (os error 30)``. The Rust crate has a read-only follower
(``ReadOnlyEdgeShard``, 0.8+) that writes nothing, but ``qdrant-edge-py`` 0.9
does not expose it, and no file can be left out of the writable set. So a
version whose shard folder is not writable is copied, sparse (holes stay
holes: a few MB for the demo collection), into a temporary folder
(``$TMPDIR/sectio-ro-<pid>-*``) after a free-space check, opened there, and
removed when the index is closed; the copies of processes that died without
closing (``kill -9``) are removed by the next copy. The live files are never
written.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> writable(d)
    True
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

from sectio.index.edge import space
from sectio.index.edge.locks import pid_alive

log = logging.getLogger(__name__)

#: The prefix of the private copies under the temp folder.
COPY_PREFIX = "sectio-ro-"


def writable(folder: Path) -> bool:
    """Whether this process may write into ``folder`` (False on a read-only mount)."""
    return os.access(folder, os.W_OK)


def sweep(tmp: Path) -> list[Path]:
    """Remove the copies under ``tmp`` whose process is gone; returns what was removed."""
    removed = []
    for folder in sorted(tmp.glob(COPY_PREFIX + "*-*")):
        pid = folder.name[len(COPY_PREFIX) :].split("-", 1)[0]
        if folder.is_dir() and pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _copy_sparse(src: Path, dst: Path) -> None:
    """Copy one file, writing only its data regions (its holes stay holes), its mode and
    times kept (as :func:`shutil.copy2`, which writes every hole out: a shard's
    preallocated files make a home of a few MB some 300 MB)."""
    from sectio.index.edge.archive import data_extents  # with tarfile: not for a writable home

    size = src.stat().st_size
    with src.open("rb") as fin, dst.open("wb") as fout:
        for start, length in data_extents(src):
            fin.seek(start)
            fout.seek(start)
            left = length
            while left:
                block = fin.read(min(1 << 20, left))
                if not block:
                    break
                fout.write(block)
                left -= len(block)
        fout.truncate(size)
    shutil.copystat(src, dst)


def copy_tree(src: Path, dst: Path) -> None:
    """Copy the folder ``src`` to ``dst`` (which must not exist) as :func:`shutil.copytree`
    does, each file sparse (:func:`_copy_sparse`).

    Raises:
        OSError: a file could not be read or written (what was copied stays).
    """
    shutil.copytree(src, dst, copy_function=lambda s, d: _copy_sparse(Path(s), Path(d)))


def private_copy(shard: Path, what: str) -> Path:
    """A writable copy of ``shard`` in a new temp folder; the caller removes it.

    Raises:
        InsufficientSpace: the temp folder lacks the shard's bytes (its holes too,
            on tmpfs, where the first open fills them).
        OSError: the copy failed (the partial copy is removed).
    """
    tmp = Path(tempfile.gettempdir())
    sweep(tmp)
    need = space.used_bytes(shard) + space.FIXED_BYTES
    if space.fills_holes_on_read(tmp):
        need += space.hole_bytes(shard, space.FILLED_ON_OPEN)
    space.require(tmp, need, f"{what} (a read-only home is read from a temporary copy)")
    root = Path(tempfile.mkdtemp(prefix=f"{COPY_PREFIX}{os.getpid()}-"))
    dst = root / "shard"
    try:
        copy_tree(shard, dst)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    log.warning("%s: its folder is read-only; reading it from a temporary copy %s", what, root)
    return dst


__all__ = ["COPY_PREFIX", "copy_tree", "private_copy", "sweep", "writable"]
