"""Free space: checked before every write to a Qdrant Edge store, and before a first read
on a filesystem that fills sparse files when they are read.

Qdrant Edge keeps its segments in memory-mapped files created sparse (a 271-chunk
collection: 295 MB of file sizes, 2.7 MB on an ext4 disk). A write through a
mapping into a hole that the disk cannot back is not an error but a SIGBUS that
kills the process, so every write is checked first against an estimate
(:func:`load_need`). On tmpfs a *read* of a hole allocates it too (a shared
mapping of shmem has no zero page): the first open of the demo collection grew
it from 34 to 136 MB (later opens and searches: +0.06 MB), and died of SIGBUS
on a full tmpfs: the open maps every payload index file whole (the holes of
``payload_index/``: 100 of the shard's 262 MiB of holes, every byte of them
filled). So the writer of a new version opens it once before switching it
live, checked like a write against those holes (:data:`FILLED_ON_OPEN`), and
reads of a version no writer opened are checked the same way.

Example:
    >>> human(3 * 1024 * 1024)
    '3.0 MiB'
    >>> load_need(0, 0, 384) == FIXED_BYTES
    True
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from sectio.errors import InsufficientSpace

#: Filesystems where reading a hole of a shared mapping allocates it.
FILLS_ON_READ = frozenset({"tmpfs", "ramfs", "shmfs", "hugetlbfs"})
#: The shard folder whose files' holes the first open fills (on tmpfs).
FILLED_ON_OPEN = "payload_index"
#: Bytes any write needs besides its points: two 32 MiB WAL segments, index pages.
FIXED_BYTES = 64 * 1024 * 1024


def human(n: int) -> str:
    """``n`` bytes as ``12.3 MiB``."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"  # pragma: no cover


def _existing(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def free_bytes(path: Path) -> int:
    """Bytes free for this user on the filesystem of ``path`` (or its nearest existing parent)."""
    return shutil.disk_usage(_existing(path)).free


def filesystem_type(path: Path) -> str:
    """The type of the filesystem ``path`` is on (``ext4``, ``tmpfs``...); ``""`` if unknown."""
    target = str(os.path.realpath(_existing(path)))
    best, kind = "", ""
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return ""
    for line in lines:
        parts = line.split()
        if len(parts) < 3:
            continue
        mount = parts[1].replace("\\040", " ").replace("\\011", "\t").replace("\\134", "\\")
        inside = target == mount or target.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, kind = mount, parts[2]
    return kind


def fills_holes_on_read(path: Path) -> bool:
    """Whether reading a sparse file's hole on ``path``'s filesystem allocates it (tmpfs)."""
    return filesystem_type(path) in FILLS_ON_READ


def hole_bytes(folder: Path, part: str | None = None) -> int:
    """Bytes of the files under ``folder`` that are holes (file size minus allocated);
    only of files with a folder named ``part`` in their path, if given."""
    total = 0
    for p in folder.rglob("*"):
        if part is not None and part not in p.relative_to(folder).parts[:-1]:
            continue
        if p.is_file() and not p.is_symlink():
            st = p.stat()
            total += max(0, st.st_size - st.st_blocks * 512)
    return total


def used_bytes(folder: Path) -> int:
    """Bytes allocated on disk to the files under ``folder`` (what ``du`` counts)."""
    if not folder.exists():
        return 0
    paths = [folder, *folder.rglob("*")] if folder.is_dir() else [folder]
    return sum(p.lstat().st_blocks * 512 for p in paths)


def load_need(points: int, payload_bytes: int, dimensions: int, vectors: int = 1) -> int:
    """Bytes a load of ``points`` may take at its peak (an upper estimate).

    Per point: four copies of its float32 vectors (storage, WAL, the optimizer's
    new segment, the int8 copy rounded up), six of its payload (storage, WAL,
    payload indexes, the optimizer's copy) and 2 KiB of index; plus
    :data:`FIXED_BYTES`. Measured: 20,000 points of 384-d and ~450 payload bytes
    peaked at 164 MB during optimize; this estimate says 282 MB.
    """
    per_point = 4 * dimensions * 4 * max(1, vectors) + 2048
    return FIXED_BYTES + points * per_point + 6 * payload_bytes


def require(path: Path, need: int, what: str) -> None:
    """Refuse ``what`` unless ``need`` bytes are free on ``path``'s filesystem.

    Raises:
        InsufficientSpace: naming the bytes needed and free, in one line.
    """
    free = free_bytes(path)
    if need > free:
        raise InsufficientSpace(
            f"not enough free space for {what} on {_existing(path)}: needs about "
            f"{human(need)} ({need} bytes), {human(free)} ({free} bytes) free"
        )


__all__ = [
    "FIXED_BYTES",
    "filesystem_type",
    "fills_holes_on_read",
    "free_bytes",
    "hole_bytes",
    "human",
    "load_need",
    "require",
    "used_bytes",
]
