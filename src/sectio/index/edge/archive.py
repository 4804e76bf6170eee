"""The edge snapshot file: a gzip tar that keeps sparse files, read back under bounds.

Members, in this order::

    CONTENTS.json   {"format": "sectio-edge-snapshot/2", "files": {path: {"size", "data"}}}
    SHA256SUMS      "<sha256>  <path>" per file (``sha256sum -c`` checks an unpacked copy)
    manifest.json
    shard/...       the flushed shard; sparse files as GNU sparse 1.0 members

``size`` is a file's length, ``data`` the bytes that are not holes (a Qdrant Edge
shard is mostly holes: 2.7 MB of data in 295 MB of files), so a snapshot
stores data only and GNU tar or Python unpack the holes back as holes.

Reading (:func:`extract`) is one streaming pass that trusts nothing: the
listing must name only ``manifest.json`` and ``shard/...`` paths, every member
must be listed with its size, free space is checked against the listed data
before anything is written (and before each file), a member stops at its
listed size and may write no more non-zero bytes than listed, zero blocks are
written as holes, and every sum is checked. Snapshots of format 1 (a plain tar
with ``SHA256SUMS`` first) are read too, bounded by their header sizes.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from sectio.errors import SnapshotError
from sectio.index.edge import space

FORMAT = "sectio-edge-snapshot/2"
CONTENTS = "CONTENTS.json"
SUMS = "SHA256SUMS"
MANIFEST = "manifest.json"
BLOCK = 1 << 20
#: Without a sparse map, zero runs of this size (aligned) are left as holes.
HOLE = 64 << 10
#: The listing members are read into memory: at most this many bytes each.
MAX_LISTING = 4 << 20
_SUM_LINE = re.compile(r"([0-9a-f]{64})  (\S.*)")
_ZERO = bytes(BLOCK)


# --- writing ------------------------------------------------------------------------
def data_extents(path: Path) -> list[tuple[int, int]]:
    """``(offset, length)`` of the data regions of ``path`` (one region if holes are unknown)."""
    size = path.stat().st_size
    out: list[tuple[int, int]] = []
    fd = os.open(path, os.O_RDONLY)
    try:
        pos = 0
        while pos < size:
            try:
                start = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError as exc:
                if exc.errno == 6:  # ENXIO: no data past pos
                    break
                return [(0, size)] if size else []
            end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
            out.append((start, end - start))
            pos = end
    finally:
        os.close(fd)
    return out


def _file_sum(path: Path, extents: list[tuple[int, int]], size: int) -> str:
    """sha256 of the whole file, holes hashed as zeros without reading them."""
    h = hashlib.sha256()
    pos = 0
    with path.open("rb") as fh:
        for start, length in extents:
            _hash_zeros(h, start - pos)
            fh.seek(start)
            left = length
            while left:
                block = fh.read(min(BLOCK, left))
                if not block:
                    raise SnapshotError(f"{path} shrank while it was being read")
                h.update(block)
                left -= len(block)
            pos = start + length
    _hash_zeros(h, size - pos)
    return h.hexdigest()


def _hash_zeros(h: Any, n: int) -> None:
    while n > 0:
        h.update(_ZERO[: min(n, BLOCK)])
        n -= BLOCK


class _SparseReader(io.RawIOBase):
    """The data of a GNU sparse 1.0 member: its map block, then each data region."""

    def __init__(self, path: Path, extents: list[tuple[int, int]]) -> None:
        lines = [str(len(extents))] + [f"{o}\n{n}" for o, n in extents]
        head = ("\n".join(lines) + "\n").encode()
        self.head = head + b"\0" * (-len(head) % tarfile.BLOCKSIZE)
        self._parts = self._iter(path, extents)
        self._buf = b""

    def _iter(self, path: Path, extents: list[tuple[int, int]]) -> Iterator[bytes]:
        yield self.head
        with path.open("rb") as fh:
            for start, length in extents:
                fh.seek(start)
                left = length
                while left:
                    block = fh.read(min(BLOCK, left))
                    if not block:
                        return
                    left -= len(block)
                    yield block

    def read(self, n: int = -1) -> bytes:
        while n < 0 or len(self._buf) < n:
            part = next(self._parts, None)
            if part is None:
                break
            self._buf += part
        take = len(self._buf) if n < 0 else n
        out, self._buf = self._buf[:take], self._buf[take:]
        return out


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))


def write(version_dir: Path, out_file: Path) -> None:
    """Write the snapshot of ``version_dir`` (``manifest.json`` + a closed ``shard/``)."""
    shard = sorted(
        p for p in (version_dir / "shard").rglob("*") if p.is_file() and not p.is_symlink()
    )
    files = [version_dir / MANIFEST, *shard]
    listing: dict[str, dict[str, int]] = {}
    sums: list[str] = []
    plans: list[tuple[str, Path, list[tuple[int, int]], int]] = []
    for p in files:
        rel = p.relative_to(version_dir).as_posix()
        size = p.stat().st_size
        extents = data_extents(p)
        listing[rel] = {"size": size, "data": sum(n for _, n in extents)}
        sums.append(f"{_file_sum(p, extents, size)}  {rel}")
        plans.append((rel, p, extents, size))
    with tarfile.open(out_file, "w:gz", format=tarfile.PAX_FORMAT, compresslevel=6) as tar:
        _add_bytes(tar, CONTENTS, json.dumps({"format": FORMAT, "files": listing}).encode())
        _add_bytes(tar, SUMS, ("\n".join(sums) + "\n").encode())
        for i, (rel, p, extents, size) in enumerate(plans):
            # GNU tar ends a file that ends in a hole with an empty region at its size
            ends = extents[-1][0] + extents[-1][1] if extents else 0
            reader = _SparseReader(p, extents + ([(size, 0)] if ends < size else []))
            info = tarfile.TarInfo(f"GNUSparseFile.0/{i:06d}")
            info.mode = 0o644
            info.mtime = int(p.stat().st_mtime)
            info.size = len(reader.head) + sum(n for _, n in extents)
            info.pax_headers = {
                "GNU.sparse.major": "1",
                "GNU.sparse.minor": "0",
                "GNU.sparse.name": rel,
                "GNU.sparse.realsize": str(size),
            }
            tar.addfile(info, reader)


# --- reading ------------------------------------------------------------------------
@dataclass
class _Listing:
    """What the archive says it holds: sizes and data bytes (format 2), and sums."""

    sizes: dict[str, int] | None = None
    data: dict[str, int] | None = None
    sums: dict[str, str] | None = None


def _safe_path(rel: str, label: str) -> str:
    """``rel`` if it can name a snapshot file: ``manifest.json`` or ``shard/...``, relative,
    without ``..`` or empty parts.

    Raises:
        SnapshotError: it cannot.
    """
    parts = PurePosixPath(rel).parts
    in_shard = (
        len(parts) >= 2
        and parts[0] == "shard"
        and not rel.startswith("/")
        and "\\" not in rel
        and "\0" not in rel
        and all(p not in ("", ".", "..") for p in rel.split("/"))
    )
    ok = rel == MANIFEST or in_shard
    if not ok:
        raise SnapshotError(f"{label} names {rel!r}, which is not a member a snapshot may hold")
    return rel


def _read_small(tar: tarfile.TarFile, member: tarfile.TarInfo, label: str) -> str:
    if not member.isfile() or member.size > MAX_LISTING:
        raise SnapshotError(f"{label}: {member.name} is not a text file of at most 4 MiB")
    fh = tar.extractfile(member)
    raw = fh.read(MAX_LISTING + 1) if fh else b""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SnapshotError(f"{label}: {member.name} is not UTF-8 text") from None


def _parse_sums(text: str, label: str) -> dict[str, str]:
    sums: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        found = _SUM_LINE.fullmatch(line)
        if not found:
            raise SnapshotError(f"{label}: SHA256SUMS line {n} is not '<sha256>  <path>'")
        rel = _safe_path(found.group(2), f"{label}: SHA256SUMS line {n}")
        if rel in sums:
            raise SnapshotError(f"{label}: SHA256SUMS lists {rel!r} twice")
        sums[rel] = found.group(1)
    if MANIFEST not in sums:
        raise SnapshotError(f"{label}: SHA256SUMS does not list {MANIFEST}")
    return sums


def _parse_contents(text: str, label: str) -> tuple[dict[str, int], dict[str, int]]:
    try:
        data = json.loads(text)
        if data.get("format") != FORMAT:
            raise ValueError(f"unknown format {str(data.get('format'))[:40]!r}")
        files = data["files"]
        sizes = {
            _safe_path(str(k), f"{label}: {CONTENTS}"): int(v["size"]) for k, v in files.items()
        }
        held = {str(k): int(v["data"]) for k, v in files.items()}
    except SnapshotError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SnapshotError(f"{label}: {CONTENTS} is malformed: {exc}") from None
    if any(v < 0 for v in (*sizes.values(), *held.values())):
        raise SnapshotError(f"{label}: {CONTENTS} lists a negative size")
    return sizes, held


def _copy_member(
    src: IO[bytes],
    out: Path,
    size: int,
    regions: Any,
    data_cap: int,
    where: str,
) -> str:
    """Copy a member of ``size`` bytes into ``out`` as a sparse file; return its sha256.

    ``regions`` (a GNU sparse member's data map, ``(offset, length)`` pairs) are
    written as they are and the rest left as holes; without one, 64 KiB blocks of
    zeros become holes.

    Raises:
        SnapshotError: the member ends early, or writes more than ``data_cap`` bytes of data.
    """
    h = hashlib.sha256()
    written = 0
    pos = 0
    with out.open("wb") as fh:
        for start, length in regions if regions is not None else [(0, size)]:
            if start < pos or start + length > size:
                raise SnapshotError(f"{where}: its sparse map is out of order or out of bounds")
            _hash_zeros(h, start - pos)
            src.seek(start)
            left = length
            while left:
                at = start + length - left
                block = src.read(min(BLOCK, left))
                if not block:
                    raise SnapshotError(f"{where} ends before its listed {size} bytes")
                h.update(block)
                left -= len(block)
                for i in range(0, len(block), HOLE):
                    piece = block[i : i + HOLE]
                    if regions is None and piece == _ZERO[: len(piece)]:
                        continue
                    written += len(piece)
                    if written > data_cap:
                        raise SnapshotError(f"{where} holds more than its listed data bytes")
                    fh.seek(at + i)
                    fh.write(piece)
            pos = start + length
        _hash_zeros(h, size - pos)
        fh.truncate(size)
    return h.hexdigest()


def extract(
    in_file: Path, into: Path, *, label: str | None = None, check_space: bool = True
) -> None:
    """Unpack the snapshot ``in_file`` into the empty folder ``into`` under the bounds above.

    Raises:
        SnapshotError: unreadable, not a snapshot, a member not listed or listed
            with another size, a path outside ``manifest.json`` / ``shard/``, a
            listing that is malformed or not text, a sum failing, no ``shard/``.
        InsufficientSpace: the listed data does not fit in the free space.
    """
    label = label or f"snapshot {in_file}"
    opened = False
    try:
        with tarfile.open(in_file, "r:*") as tar:
            opened = True
            _extract_stream(tar, into, label, check_space)
    except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
        if isinstance(exc, OSError) and exc.errno == 28:  # ENOSPC
            raise
        if not opened and isinstance(exc, tarfile.ReadError):  # tarfile's text: every method
            raise SnapshotError(
                f"{label} is unreadable: not a tar archive (plain, gzip, bzip2 or xz), "
                "as `sectio snapshot` writes"
            ) from exc
        why = " ".join(str(exc).split())
        raise SnapshotError(f"{label} is unreadable: {why[:200]}") from exc


def _extract_stream(tar: tarfile.TarFile, into: Path, label: str, check_space: bool) -> None:
    listing = _Listing()
    done: set[str] = set()
    for member in tar:
        name = member.name
        if listing.sums is None:
            if name == CONTENTS and listing.sizes is None:
                listing.sizes, listing.data = _parse_contents(
                    _read_small(tar, member, label), label
                )
                if check_space:
                    space.require(into, space.FIXED_BYTES + sum(listing.data.values()), label)
                continue
            if name != SUMS:
                raise SnapshotError(f"{label}: {name!r} comes before SHA256SUMS (not a snapshot?)")
            listing.sums = _parse_sums(_read_small(tar, member, label), label)
            if listing.sizes is not None and set(listing.sizes) != set(listing.sums):
                raise SnapshotError(f"{label}: SHA256SUMS and {CONTENTS} list different files")
            continue
        if member.isdir():
            if name.rstrip("/") != "shard":
                _safe_path(name.rstrip("/") + "/x", label)
            continue
        rel = name
        if rel not in listing.sums or rel in done or not member.isfile():
            raise SnapshotError(f"{label}: member {rel[:80]!r} is not listed in SHA256SUMS")
        size = member.size
        if listing.sizes is not None and listing.sizes[rel] != size:
            raise SnapshotError(
                f"{label}: {rel} is {size} bytes, SHA256SUMS' listing says {listing.sizes[rel]}"
            )
        cap = listing.data[rel] + BLOCK if listing.data is not None else size
        if check_space:
            space.require(into, min(cap, size), label)
        out = into / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        src = tar.extractfile(member)
        assert src is not None  # a regular file
        digest = _copy_member(src, out, size, member.sparse, cap, f"{label}: {rel}")
        if digest != listing.sums[rel]:
            raise SnapshotError(f"{label}: checksum failed for {rel}")
        done.add(rel)
    if listing.sums is None:
        raise SnapshotError(f"{label} lacks SHA256SUMS (not a sectio snapshot?)")
    missing = sorted(set(listing.sums) - done)
    if missing:
        raise SnapshotError(f"{label}: listed files are missing: {missing[:3]}")
    if not any(r.startswith("shard/") for r in done):
        raise SnapshotError(f"{label} holds no shard/ folder")


def check_config(version_dir: Path, manifest: Any, label: str) -> None:
    """The manifest must describe the shard it arrived with (``shard/edge_config.json``):
    dimensions, distance, quantization, windows, BM25 vector names, and a finite
    positive ``bm25.avg_len`` for each of them.

    Raises:
        SnapshotError: naming the first field that disagrees.
    """
    try:
        config = json.loads((version_dir / "shard" / "edge_config.json").read_text())
        dense = config["vectors"]["dense"]
        sparse = sorted(config.get("sparse_vectors") or {})
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SnapshotError(f"{label}: the shard's edge_config.json is unreadable: {exc}") from None
    quant = "int8" if (dense.get("quantization_config") or {}).get("scalar") else "none"
    names = sorted(manifest.bm25.get("vectors", ["bm25"]))
    avg = manifest.bm25.get("avg_len", {})
    checks = [
        ("dimensions", manifest.dimensions, dense.get("size")),
        ("distance", manifest.distance, dense.get("distance")),
        ("quantization", manifest.quantization, quant),
        (
            "dense_window_tokens",
            manifest.dense_window_tokens > 0,
            bool(dense.get("multivector_config")),
        ),
        ("bm25.vectors", names, sparse),
    ]
    for field, said, found in checks:
        if said != found:
            raise SnapshotError(
                f"{label}: manifest {field} {said!r} does not match the shard's {found!r}"
            )
    ok_avg = (
        isinstance(avg, dict)
        and sorted(avg) == names
        and all(
            isinstance(v, int | float) and math.isfinite(v) and 0 < v < 1e7 for v in avg.values()
        )
    )
    if not ok_avg:
        raise SnapshotError(
            f"{label}: manifest bm25.avg_len {str(avg)[:60]} does not fit the shard"
        )


__all__ = ["FORMAT", "check_config", "data_extents", "extract", "write"]
