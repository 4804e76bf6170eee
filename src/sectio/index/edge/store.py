"""Qdrant Edge collections on disk: versions, manifests, atomic switch, snapshots.

Layout under ``SECTIO_HOME/collections/<name>/``::

    CURRENT              the live version's folder name (switched atomically)
    v-<stamp>/shard/     the EdgeShard
    v-<stamp>/manifest.json

A load of a new corpus builds a new version beside the live one and switches
``CURRENT`` only when it is complete, so a query during or after a failed load
sees the old corpus whole.
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

from sectio._files import file_sha256, write_json_atomic
from sectio.errors import CollectionNotFound, IndexError_, SnapshotError
from sectio.index.edge.index import EdgeIndex
from sectio.index.manifest import Manifest
from sectio.index.port import IndexSpec
from sectio.index.qdrant.versions import check_name, version_stamp

MANIFEST_FILE = "manifest.json"
CURRENT_FILE = "CURRENT"


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
        self.index.close()
        if self.staged:
            self._backend._switch(self._name, self._dir)

    def abort(self) -> None:
        self.index.close()
        if self.staged:
            shutil.rmtree(self._dir, ignore_errors=True)
            coll = self._backend.root / self._name
            if coll.is_dir() and not any(p for p in coll.iterdir() if p.name != CURRENT_FILE):
                shutil.rmtree(coll, ignore_errors=True)


class EdgeBackend:
    """Collections stored as Qdrant Edge shards under one folder."""

    kind = "edge"

    def __init__(self, root: Path) -> None:
        self.root = root

    def _coll(self, name: str) -> Path:
        return self.root / check_name(name)

    def _live_dir(self, name: str) -> Path | None:
        current = self._coll(name) / CURRENT_FILE
        if not current.is_file():
            return None
        version = current.read_text().strip()
        path = self._coll(name) / version
        return path if path.is_dir() else None

    def _switch(self, name: str, version_dir: Path) -> None:
        coll = self._coll(name)
        old = self._live_dir(name)
        tmp = coll / (CURRENT_FILE + ".tmp")
        tmp.write_text(version_dir.name)
        os.replace(tmp, coll / CURRENT_FILE)
        for child in coll.iterdir():
            if child.is_dir() and child != version_dir and (old is None or child == old):
                shutil.rmtree(child, ignore_errors=True)

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
        live = self._live_dir(name)
        if live is None or not (live / "shard").is_dir():
            return 0
        manifest = _read_manifest(live)
        spec = IndexSpec.from_manifest(manifest) if manifest else IndexSpec(dimensions=1)
        index = EdgeIndex.load(live / "shard", spec)
        try:
            return index.count()
        finally:
            index.close()

    def open(self, name: str) -> EdgeIndex:
        live = self._live_dir(name)
        if live is None:
            raise CollectionNotFound(f"no collection named {name!r} in {self.root}")
        manifest = _read_manifest(live)
        spec = IndexSpec.from_manifest(manifest) if manifest else IndexSpec(dimensions=1)
        return EdgeIndex.load(live / "shard", spec)

    def load_target(self, name: str, spec: IndexSpec, *, staged: bool) -> _EdgeLoadTarget:
        live = self._live_dir(name)
        if not staged and live is not None:
            return _EdgeLoadTarget(self, name, live, EdgeIndex.load(live / "shard", spec), False)
        version_dir = self._coll(name) / f"v-{version_stamp()}"
        version_dir.mkdir(parents=True)
        try:
            index = EdgeIndex.create(version_dir / "shard", spec)
        except Exception as exc:
            shutil.rmtree(version_dir, ignore_errors=True)
            raise IndexError_(f"cannot create collection {name!r}: {exc}") from exc
        return _EdgeLoadTarget(self, name, version_dir, index, True)

    def drop(self, name: str) -> None:
        coll = self._coll(name)
        if not coll.exists():
            raise CollectionNotFound(f"no collection named {name!r}")
        shutil.rmtree(coll)

    # --- snapshots ------------------------------------------------------------------
    def snapshot(self, name: str, out_file: Path) -> Manifest:
        """One tar file: ``manifest.json``, ``shard/...`` and ``SHA256SUMS`` over both.

        The shard is opened, flushed and closed first, so the copy is consistent.
        """
        live = self._live_dir(name)
        if live is None:
            raise CollectionNotFound(f"no collection named {name!r}")
        manifest = _read_manifest(live)
        if manifest is None:
            raise SnapshotError(f"collection {name!r} has no manifest; refusing to snapshot it")
        EdgeIndex.load(live / "shard", IndexSpec.from_manifest(manifest)).close()
        files = sorted(p for p in (live / "shard").rglob("*") if p.is_file())
        sums = [f"{file_sha256(live / MANIFEST_FILE)}  {MANIFEST_FILE}"]
        sums += [f"{file_sha256(p)}  {p.relative_to(live).as_posix()}" for p in files]
        out_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = out_file.with_name(out_file.name + ".partial")
        with tarfile.open(tmp, "w") as tar:
            data = ("\n".join(sums) + "\n").encode()
            info = tarfile.TarInfo("SHA256SUMS")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
            tar.add(live / MANIFEST_FILE, arcname=MANIFEST_FILE)
            for p in files:
                tar.add(p, arcname=p.relative_to(live).as_posix())
        os.replace(tmp, out_file)
        return manifest

    def restore(
        self, in_file: Path, name: str, verify: Callable[[Manifest], None] | None = None
    ) -> Manifest:
        """Verify every checksum, then install the shard as a new version and switch to it.

        Raises:
            SnapshotError: unreadable file, missing or failing checksum, bad manifest.
        """
        if not in_file.is_file():
            raise SnapshotError(f"snapshot {in_file} does not exist")
        with tempfile.TemporaryDirectory(dir=self._ensure_root()) as tmpdir:
            tmp = Path(tmpdir)
            manifest = _extract_checked(in_file, tmp).model_copy(update={"collection": name})
            if verify is not None:
                verify(manifest)
            version_dir = self._coll(name) / f"v-{version_stamp()}"
            version_dir.mkdir(parents=True)
            shutil.move(str(tmp / "shard"), str(version_dir / "shard"))
            write_json_atomic(version_dir / MANIFEST_FILE, manifest.model_dump(mode="json"))
        index = EdgeIndex.load(version_dir / "shard", IndexSpec.from_manifest(manifest))
        try:
            count = index.count()
        finally:
            index.close()
        if count != manifest.chunk_count:
            shutil.rmtree(version_dir, ignore_errors=True)
            raise SnapshotError(
                f"snapshot {in_file}: {count} points but the manifest says {manifest.chunk_count}"
            )
        self._switch(name, version_dir)
        return manifest

    def _ensure_root(self) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        return self.root


def _extract_checked(in_file: Path, into: Path) -> Manifest:
    """Extract an edge snapshot into ``into`` and check it; returns its manifest.

    Raises:
        SnapshotError: unreadable, no SHA256SUMS or manifest, a checksum failing, a
            file not listed, or a manifest that does not parse.
    """
    try:
        with tarfile.open(in_file, "r") as tar:
            tar.extractall(into, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise SnapshotError(f"snapshot {in_file} is unreadable: {exc}") from exc
    sums_file = into / "SHA256SUMS"
    if not sums_file.is_file() or not (into / MANIFEST_FILE).is_file():
        raise SnapshotError(f"snapshot {in_file} lacks SHA256SUMS or manifest.json")
    listed = set()
    for line in sums_file.read_text().splitlines():
        if not line.strip():
            continue
        digest, rel = line.split("  ", 1)
        listed.add(rel)
        target = into / rel
        if not target.is_file() or file_sha256(target) != digest:
            raise SnapshotError(f"snapshot {in_file}: checksum failed for {rel}")
    present = {p.relative_to(into).as_posix() for p in into.rglob("*") if p.is_file()}
    unlisted = present - {"SHA256SUMS"} - listed
    if unlisted:
        raise SnapshotError(f"snapshot {in_file}: unlisted files {sorted(unlisted)[:3]}")
    manifest = _read_manifest(into)
    assert manifest is not None  # checked above that the file exists
    return manifest
