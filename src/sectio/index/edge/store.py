"""Qdrant Edge collections on disk: versions, manifests, atomic switch, locks, snapshots.

Layout under ``SECTIO_HOME/collections/``::

    <name>/CURRENT            the live version's folder name (switched atomically)
    <name>/v-<stamp>/shard/   the EdgeShard
    <name>/v-<stamp>/manifest.json
    .locks/collections/<name> the writer's lock (:mod:`sectio.index.edge.locks`)
    .locks/serve              ``sectio serve``'s lock

A load of a new corpus (and a restore, and an import) builds a new version beside
the live one and switches ``CURRENT`` only when it is complete, so a query during
or after a failed load sees the old corpus whole. Every write runs inside
:meth:`EdgeBackend.writing`: one writer per collection (a second is refused,
naming the first's pid and command), the leftovers of crashed writers collected
first (any version but the live one: no other writer can be running), and the
free space checked (:mod:`sectio.index.edge.space`). A crash (``kill -9``, a
SIGBUS on a full disk) leaves at most a stale version, never a changed live one.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sectio._faults import fault_point
from sectio._files import write_json_atomic
from sectio.errors import (
    CollectionBusy,
    CollectionNotFound,
    IndexError_,
    InsufficientSpace,
    SnapshotError,
)
from sectio.index.edge import readonly, space, tally
from sectio.index.edge.locks import (
    LOCKS_DIR,
    HeldLock,
    WriterLocks,
    acquire,
    collection_lock,
    holder,
    serve_lock,
)
from sectio.index.manifest import Manifest
from sectio.index.port import IndexSpec, WriteSize
from sectio.index.qdrant.versions import check_name, version_stamp

# Qdrant Edge (and numpy) load when a shard is opened, not with the store: ``sectio
# info`` reads manifests and recorded counts (:mod:`.tally`) and opens no shard.
if TYPE_CHECKING:
    from sectio.index.edge.index import EdgeIndex

log = logging.getLogger(__name__)

MANIFEST_FILE = "manifest.json"
#: In the live version folder while a document write is pending (:mod:`sectio.ingest.lifecycle`).
JOURNAL_FILE = "JOURNAL.json"
CURRENT_FILE = "CURRENT"
#: In a version folder: its writer has opened it once (see :meth:`EdgeBackend._warm`).
WARMED_FILE = "WARMED"
VERSION_PREFIX = "v-"
#: A restore temp folder of sectio <= 0.1 (``tmp*`` in the store's root) older than this
#: is a crash leftover (those versions held no lock; a younger one may still be running).
LEGACY_TEMP_AGE_S = 3600
#: How long a read waits for a shard another short-lived process (a `sectio ask`, a
#: `sectio search`) has open: edge lets one process open it at a time. A holder that
#: registered itself (`sectio serve`, a writer) is named at once instead.
BUSY_WAIT_S = 10.0


def _read_manifest(version_dir: Path) -> Manifest | None:
    path = version_dir / MANIFEST_FILE
    if not path.is_file():
        return None
    try:
        return Manifest.model_validate_json(path.read_text())
    except Exception as exc:
        raise IndexError_(f"manifest {path} is unreadable: {exc}") from exc


class _EdgeLoadTarget:
    def __init__(
        self, backend: EdgeBackend, name: str, version_dir: Path, index: EdgeIndex, staged: bool
    ) -> None:
        self._backend = backend
        self._name = name
        self._dir = version_dir
        self.index = index
        self.staged = staged

    def write_manifest(self, manifest: Manifest) -> None:
        write_json_atomic(self._dir / MANIFEST_FILE, manifest.model_dump(mode="json"))

    def commit(self) -> None:
        self.index.close()  # records its count (the version's old record no longer holds)
        fault_point("edge.commit.closed")
        if self.staged:
            self._backend._warm(self._name, self._dir)
            self._backend._switch(self._name, self._dir)

    def abort(self) -> None:
        self.index.close()
        if self.staged:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._backend._drop_if_empty(self._name)


class EdgeBackend:
    """Collections stored as Qdrant Edge shards under one folder.

    ``check_space=False`` skips the free-space checks (a write may then die of
    SIGBUS on a full disk; the live version stays whole either way).
    """

    kind = "edge"

    def __init__(self, root: Path, *, check_space: bool = True) -> None:
        self.root = root
        self.check_space = check_space
        self._locks = WriterLocks(root)
        #: What the last :meth:`writing` removed on entry: ``(path, bytes)``.
        self.last_collected: list[tuple[Path, int]] = []

    def _coll(self, name: str) -> Path:
        return self.root / check_name(name)

    def _live_dir(self, name: str) -> Path | None:
        current = self._coll(name) / CURRENT_FILE
        if not current.is_file():
            return None
        version = current.read_text().strip()
        path = self._coll(name) / version
        return path if version and path.is_dir() else None

    def _switch(self, name: str, version_dir: Path) -> None:
        """Point ``CURRENT`` at ``version_dir`` (an atomic rename), then remove the old live one."""
        coll = self._coll(name)
        old = self._live_dir(name)
        tmp = coll / (CURRENT_FILE + ".tmp")
        tmp.write_text(version_dir.name)
        fault_point("edge.switch.before")
        os.replace(tmp, coll / CURRENT_FILE)
        fault_point("edge.switch.after")
        if old is not None and old != version_dir:
            shutil.rmtree(old, ignore_errors=True)

    def _drop_if_empty(self, name: str) -> None:
        coll = self._coll(name)
        if coll.is_dir() and not any(p for p in coll.iterdir() if p.name != CURRENT_FILE):
            shutil.rmtree(coll, ignore_errors=True)

    # --- one writer, leftovers, free space -------------------------------------------
    @contextmanager
    def writing(self, name: str, purpose: str, size: WriteSize | None = None) -> Iterator[None]:
        """See :meth:`sectio.index.port.IndexBackend.writing`."""
        check_name(name)
        with self._locks.hold(name, purpose, f"collection {name!r}") as first:
            if first:
                self.last_collected = self._collect(name)
                if size is not None:
                    self.require_space(self._need(name, size), f"{purpose} of {name!r}")
            try:
                yield
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                raise InsufficientSpace(
                    f"{purpose} of {name!r} ran out of disk space ({exc}); the live version "
                    "is unchanged"
                ) from exc

    def require_space(self, need: int, what: str) -> None:
        """Refuse ``what`` unless ``need`` bytes are free here (a no-op with ``check_space`` off).

        Raises:
            InsufficientSpace: naming the bytes needed and free.
        """
        if self.check_space:
            space.require(self._ensure_root(), need, what)

    def _need(self, name: str, size: WriteSize) -> int:
        """:func:`space.load_need` of the write's points and the ``kept`` ones it copies;
        the kept payloads sized as the live version's payload storage per point."""
        payload = size.payload_bytes
        live = self._live_dir(name) if size.kept else None
        if live is not None:
            manifest = _read_manifest(live)
            stored = sum(space.used_bytes(p) for p in live.glob("shard/segments/*/payload_storage"))
            total = manifest.chunk_count if manifest else 0
            payload += stored * size.kept // max(total, size.kept, 1)
        points = size.points + size.kept
        return space.load_need(points, payload, size.dimensions, size.vectors)

    def _check_readable(self, version_dir: Path, what: str) -> None:
        """On tmpfs the first open of a shard fills holes (34 -> 136 MB for the demo
        corpus): a version no write has opened yet needs them free (its payload indexes').

        Raises:
            InsufficientSpace: they are not.
        """
        if (version_dir / WARMED_FILE).exists() or not self.check_space:
            return
        if space.fills_holes_on_read(version_dir):
            holes = space.hole_bytes(version_dir, space.FILLED_ON_OPEN)
            space.require(version_dir, holes, f"{what} (tmpfs fills its sparse files when read)")

    def _warm(self, name: str, version_dir: Path) -> int:
        """The first open of a new version, done by its writer (checked like a write), so
        no read grows the disk afterwards; returns its count, records it (:mod:`.tally`)
        and marks the version ``WARMED``."""
        self._check_readable(version_dir, f"the first open of collection {name!r}")
        manifest = _read_manifest(version_dir)
        spec = IndexSpec.from_manifest(manifest) if manifest else IndexSpec(dimensions=1)
        from sectio.index.edge.index import EdgeIndex

        index = EdgeIndex.load(version_dir / "shard", spec)
        index.count_record = version_dir
        try:
            count = index.count()
        finally:
            index.close()
        (version_dir / WARMED_FILE).touch()
        return count

    def _collect(self, name: str) -> list[tuple[Path, int]]:
        """Remove ``name``'s stale versions and temp files (the caller holds its lock)."""
        coll = self._coll(name)
        if not coll.is_dir():
            return []
        live = self._live_dir(name)
        removed = []
        for child in sorted(coll.iterdir()):
            stale_dir = child.is_dir() and child.name.startswith(VERSION_PREFIX) and child != live
            stale_tmp = child.is_file() and child.name.endswith(".tmp")
            if stale_dir or stale_tmp:
                size = space.used_bytes(child)
                if child.is_dir():
                    shutil.rmtree(child, ignore_errors=True)
                else:
                    child.unlink(missing_ok=True)
                removed.append((child, size))
        if live is None:
            self._drop_if_empty(name)
        return removed

    def collect_garbage(self, names: Sequence[str] | None = None) -> dict[str, Any]:
        """See :class:`sectio.index.port.Collectable`. A collection a writer holds is
        skipped (``skipped`` names the holder); sectio <= 0.1's restore temp folders
        (``tmp*`` in the root) are removed once older than :data:`LEGACY_TEMP_AGE_S`."""
        removed: list[dict[str, Any]] = []
        skipped: list[dict[str, str]] = []
        root = self.root
        candidates = list(names) if names is not None else self._collection_dirs()
        for name in candidates:
            try:
                with self.writing(name, "gc"):  # collects on entry
                    removed += [{"path": str(p), "bytes": n} for p, n in self.last_collected]
            except CollectionBusy as exc:
                skipped.append({"collection": name, "reason": str(exc)})
        if names is None and root.is_dir():
            cutoff = time.time() - LEGACY_TEMP_AGE_S
            for child in sorted(root.glob("tmp*")):
                old = child.is_dir() and child.stat().st_mtime < cutoff
                if old and _legacy_restore_temp(child):
                    size = space.used_bytes(child)
                    shutil.rmtree(child, ignore_errors=True)
                    removed.append({"path": str(child), "bytes": size})
        return {
            "removed": removed,
            "skipped": skipped,
            "bytes_freed": sum(r["bytes"] for r in removed),
        }

    def _collection_dirs(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(
            p.name
            for p in self.root.iterdir()
            if p.is_dir() and not p.name.startswith(".") and not _legacy_restore_temp(p)
        )

    def hold_serving(self) -> HeldLock:
        """Take the store's serve lock for this process's life (``sectio serve``).

        A read-only store (a read-only mount: no writer can run there, and no lock
        file can be made) is served without it, saying so once.

        Raises:
            CollectionBusy: another ``sectio serve`` holds it (the message names its pid).
        """
        if self.root.is_dir() and not readonly.writable(self.root):
            log.warning("store %s is read-only: serving it without the serve lock", self.root)
            return HeldLock(serve_lock(self.root), None)
        return acquire(serve_lock(self.root), "serve", f"the store {self.root}")

    # --- reads -----------------------------------------------------------------------
    def list_collections(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / CURRENT_FILE).is_file())

    def exists(self, name: str) -> bool:
        return self._live_dir(name) is not None

    def read_manifest(self, name: str) -> Manifest | None:
        live = self._live_dir(name)
        return _read_manifest(live) if live else None

    def point_count(self, name: str) -> int:
        """The live version's points, as its shard counts them: the count recorded when
        sectio last closed the shard if no file of it changed since (:mod:`.tally`; no
        open), else the shard opened and counted (and the count recorded).

        Raises:
            CollectionBusy: another process has the shard open (names ``sectio serve``).
        """
        live = self._live_dir(name)
        if live is None or not (live / "shard").is_dir():
            return 0
        known = tally.recall(live)
        if known is not None:
            return known
        index = self._load(name, live)
        try:
            return index.count()
        finally:
            index.close()  # records the count (a private copy's is not recorded)

    def open(self, name: str) -> EdgeIndex:
        live = self._live_dir(name)
        if live is None:
            raise CollectionNotFound(f"no collection named {name!r} in {self.root}")
        return self._load(name, live)

    def _load(self, name: str, version_dir: Path) -> EdgeIndex:
        """Open a version's shard, or say in one line why not (held, or no room to read).

        Raises:
            CollectionBusy: another process has it open (names ``sectio serve``'s pid).
            InsufficientSpace: on tmpfs, its holes do not fit in the free space.
        """
        manifest = _read_manifest(version_dir)
        spec = IndexSpec.from_manifest(manifest) if manifest else IndexSpec(dimensions=1)
        shard = version_dir / "shard"
        if shard.is_dir() and not readonly.writable(shard):
            return _load_copy(shard, spec, f"reading collection {name!r}")
        self._check_readable(version_dir, f"reading collection {name!r}")
        index = self._load_waiting(name, shard, spec)
        index.count_record = version_dir  # its close records its count (see tally)
        return index

    def _load_waiting(self, name: str, shard: Path, spec: IndexSpec) -> EdgeIndex:
        """Open ``shard``; while another process that named no lock holds it (a short
        read), wait up to :data:`BUSY_WAIT_S` for it to end.

        Raises:
            CollectionBusy: a named holder (``sectio serve``, a writer), or the wait ran out.
        """
        from sectio.index.edge.index import EdgeIndex

        deadline = time.monotonic() + BUSY_WAIT_S
        while True:
            try:
                return EdgeIndex.load(shard, spec)
            except CollectionBusy as exc:
                who = holder(serve_lock(self.root)) or holder(collection_lock(self.root, name))
                if who is not None:
                    hint = "; query it over HTTP or stop it" if who.purpose == "serve" else ""
                    raise CollectionBusy(
                        f"collection {name!r} is open in another process: {who.describe()}{hint}"
                    ) from exc
                if time.monotonic() >= deadline:
                    raise CollectionBusy(
                        f"collection {name!r} is open in another process (edge opens a "
                        f"collection in one process at a time); waited {BUSY_WAIT_S:g} s; "
                        "to query it from many at once, `sectio serve` it"
                    ) from exc
                time.sleep(0.05)

    # --- document writes (sectio.index.port.Journaled) -------------------------------
    def _live_or_raise(self, name: str) -> Path:
        live = self._live_dir(name)
        if live is None:
            raise CollectionNotFound(f"no collection named {name!r} in {self.root}")
        return live

    def read_journal(self, name: str) -> dict[str, Any] | None:
        """The live version's ``JOURNAL.json``, None when there is none.

        Raises:
            IndexError_: it is not readable JSON (it is written by an atomic rename).
        """
        live = self._live_dir(name)
        path = live / JOURNAL_FILE if live is not None else None
        if path is None or not path.is_file():
            return None
        try:
            entry = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise IndexError_(f"journal {path} is unreadable: {exc}") from exc
        return entry if isinstance(entry, dict) else None

    def write_journal(self, name: str, entry: dict[str, Any] | None) -> None:
        path = self._live_or_raise(name) / JOURNAL_FILE
        if entry is None:
            path.unlink(missing_ok=True)
            return
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("w") as fh:
            fault_point("edge.journal.writing")  # a full disk here: no entry, nothing changed
            json.dump(entry, fh, separators=(",", ":"), ensure_ascii=False)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)

    def write_live_manifest(self, name: str, manifest: Manifest) -> None:
        path = self._live_or_raise(name) / MANIFEST_FILE
        write_json_atomic(path, manifest.model_dump(mode="json"))

    # --- writes ------------------------------------------------------------------------
    def load_target(self, name: str, spec: IndexSpec, *, staged: bool) -> _EdgeLoadTarget:
        live = self._live_dir(name)
        if not staged and live is not None:
            return _EdgeLoadTarget(self, name, live, self._load(name, live), False)
        version_dir = self._coll(name) / f"{VERSION_PREFIX}{version_stamp()}"
        version_dir.mkdir(parents=True)
        from sectio.index.edge.index import EdgeIndex

        try:
            index = EdgeIndex.create(version_dir / "shard", spec)
        except Exception as exc:
            shutil.rmtree(version_dir, ignore_errors=True)
            self._drop_if_empty(name)
            raise IndexError_(f"cannot create collection {name!r}: {exc}") from exc
        fault_point("edge.version.created")
        return _EdgeLoadTarget(self, name, version_dir, index, True)

    def drop(self, name: str) -> None:
        coll = self._coll(name)
        if not coll.exists():
            raise CollectionNotFound(f"no collection named {name!r}")
        with self.writing(name, "drop"):
            shutil.rmtree(coll)

    # --- snapshots ------------------------------------------------------------------
    def snapshot(self, name: str, out_file: Path) -> Manifest:
        """One gzip tar: the shard (sparse files kept), its manifest and the sums of both
        (:mod:`sectio.index.edge.archive`), written to ``OUT.partial`` then renamed.

        The shard is opened, flushed and closed first, so the copy is consistent.
        """
        live = self._live_dir(name)
        if live is None:
            raise CollectionNotFound(f"no collection named {name!r}")
        manifest = _read_manifest(live)
        if manifest is None:
            raise SnapshotError(f"collection {name!r} has no manifest; refusing to snapshot it")
        self._load(name, live).close()
        from sectio.index.edge import archive  # tarfile: for snapshots only

        out_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = out_file.with_name(out_file.name + ".partial")
        try:
            archive.write(live, tmp)
            os.replace(tmp, out_file)
        finally:
            tmp.unlink(missing_ok=True)
        return manifest

    def restore(
        self, in_file: Path, name: str, verify: Callable[[Manifest], None] | None = None
    ) -> Manifest:
        """Unpack a snapshot as a new version of ``name`` under the archive's bounds, check
        it (sums, the manifest against the shard's configuration, ``verify``, the count),
        then switch to it. Holds ``name``'s writer lock throughout.

        Raises:
            SnapshotError: unreadable file, a bound or checksum failing, a bad manifest.
            CollectionBusy: another process writes ``name``.
            InsufficientSpace: the snapshot's data does not fit.
        """
        if not in_file.is_file():
            raise SnapshotError(f"snapshot {in_file} does not exist")
        label = f"snapshot {in_file}"
        with self.writing(name, "restore"):
            version_dir = self._coll(name) / f"{VERSION_PREFIX}{version_stamp()}"
            version_dir.mkdir(parents=True)
            try:
                manifest = self._unpack(in_file, version_dir, name, label, verify)
                fault_point("edge.restore.unpacked")
                self._switch(name, version_dir)
            except BaseException:
                shutil.rmtree(version_dir, ignore_errors=True)
                self._drop_if_empty(name)
                raise
        return manifest

    def _unpack(
        self,
        in_file: Path,
        version_dir: Path,
        name: str,
        label: str,
        verify: Callable[[Manifest], None] | None,
    ) -> Manifest:
        from sectio.index.edge import archive  # tarfile: for snapshots only

        archive.extract(in_file, version_dir, label=label, check_space=self.check_space)
        found = _read_snapshot_manifest(version_dir, label)
        archive.check_config(version_dir, found, label)
        manifest = found.model_copy(update={"collection": name})
        if verify is not None:
            verify(manifest)
        write_json_atomic(version_dir / MANIFEST_FILE, manifest.model_dump(mode="json"))
        count = self._warm(name, version_dir)
        if count != manifest.chunk_count:
            raise SnapshotError(
                f"{label}: {count} points but the manifest says {manifest.chunk_count}"
            )
        from sectio.index.edge.index import EdgeIndex
        from sectio.index.fit_check import avg_len_mismatch

        index = EdgeIndex.load(version_dir / "shard", IndexSpec.from_manifest(manifest))
        index.count_record = version_dir
        try:
            why = avg_len_mismatch(index, manifest)
        finally:
            index.close()
        if why is not None:
            raise SnapshotError(f"{label}: its manifest does not fit its points: {why}")
        return manifest

    def _ensure_root(self) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        return self.root


def _load_copy(shard: Path, spec: IndexSpec, what: str) -> EdgeIndex:
    """Open a read-only shard from a private copy (:mod:`sectio.index.edge.readonly`),
    removed when the index closes (or here, if the open fails)."""
    from sectio.index.edge.index import EdgeIndex

    copy = readonly.private_copy(shard, what)
    try:
        index = EdgeIndex.load(copy, spec)
    except BaseException:
        shutil.rmtree(copy.parent, ignore_errors=True)
        raise
    index.owned_copy = copy.parent
    return index


def _read_snapshot_manifest(version_dir: Path, label: str) -> Manifest:
    try:
        found = _read_manifest(version_dir)
    except IndexError_ as exc:
        raise SnapshotError(f"{label}: its manifest.json is invalid") from exc
    if found is None:
        raise SnapshotError(f"{label} lacks manifest.json")
    return found


def _legacy_restore_temp(path: Path) -> bool:
    """A restore temp folder of sectio <= 0.1: ``tmp*`` holding a snapshot's members."""
    return (
        path.name.startswith("tmp")
        and path.name != LOCKS_DIR
        and not (path / CURRENT_FILE).exists()
        and any((path / m).exists() for m in ("SHA256SUMS", "shard", MANIFEST_FILE))
    )
