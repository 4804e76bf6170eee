"""Collections on a Qdrant server: versions behind an alias, a sidecar manifest, snapshots.

Layout on the server, for a collection called ``name``::

    name                 an alias: the live version (switched atomically)
    name__v<stamp>       one version of the data (one point per chunk)
    name__manifest       the sidecar: manifests, never a point of the data collection

The sidecar holds the live manifest at the fixed point id
:data:`MANIFEST_POINT_ID` (``{"manifest": ..., "version": "name__v<stamp>",
"shard_keys": [...]}``) and, while a version is being built or switched, one
record per version at ``uuid5(POINT_NAMESPACE, "manifest:" + version)``. A
reader resolves the alias first and takes the record whose ``version`` is the
alias target, so it sees one consistent (manifest, data) pair at every step of
a switch.

A load of a new corpus builds ``name__v<stamp>`` beside the live one, and
switches the alias in one ``update_collection_aliases`` call only when it is
complete; then the old version is dropped. A plain collection called ``name``
(made by something other than sectio) is read as the live version; replacing
it deletes it before the alias is created (not atomic, said here once).

Every write (ingest, replace, restore, import) holds the collection's writer
lock on this machine (:meth:`ServerBackend.writing`, the edge store's kind of
lock): a second writer is refused, naming the first's pid and command.

An open collection reads through the alias, so a switch made by another process
(``sectio ingest --replace`` while API processes serve) is seen by every reader
at once; each reader's manifest is refreshed by its readiness check.
"""

from __future__ import annotations

import contextlib
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client import models as m

from sectio._files import file_sha256
from sectio.errors import CollectionNotFound, IndexError_, NotAvailable, SnapshotError
from sectio.index.copy import copy_collection
from sectio.index.edge.locks import WriterLocks
from sectio.index.edge.store import EdgeBackend
from sectio.index.ids import POINT_NAMESPACE
from sectio.index.manifest import Manifest
from sectio.index.port import IndexSpec, WriteSize
from sectio.index.qdrant.versions import check_name, version_stamp
from sectio.index.server.client import translated
from sectio.index.server.index import ServerIndex, Sharding
from sectio.index.server.snapshot import (
    SNAPSHOT_FORMAT,
    download_snapshot,
    read_snapshot_file,
    snapshot_format,
    write_snapshot_file,
)

#: The fixed id of the live manifest point in the sidecar (seed 003's value).
MANIFEST_POINT_ID = "00000000-0000-5000-8000-000000000001"
MANIFEST_SUFFIX = "__manifest"
VERSION_INFIX = "__v"


def _version_record_id(version: str) -> str:
    return str(uuid.uuid5(POINT_NAMESPACE, "manifest:" + version))


def _journal_id(version: str) -> str:
    return str(uuid.uuid5(POINT_NAMESPACE, "journal:" + version))


class _ServerLoadTarget:
    def __init__(
        self, backend: ServerBackend, name: str, version: str, index: ServerIndex, staged: bool
    ) -> None:
        self._backend = backend
        self._name = name
        self._version = version
        self.index = index
        self.staged = staged

    def write_manifest(self, manifest: Manifest) -> None:
        self._backend._write_record(
            self._name, self._version, manifest, self.index.sharding, live=not self.staged
        )

    def commit(self) -> None:
        self.index.close()
        if self.staged:
            self._backend._switch(self._name, self._version)

    def abort(self) -> None:
        self.index.close()
        if self.staged:
            self._backend._discard_version(self._name, self._version)


class ServerBackend:
    """Collections on a Qdrant server, or in qdrant-client local mode (tests only).

    ``lock_root``: the folder of the writer locks (:meth:`writing`); None takes none
    (``:memory:``, which no other process sees).

    Example:
        >>> from qdrant_client import QdrantClient
        >>> backend = ServerBackend(QdrantClient(":memory:"), local=True)
        >>> backend.list_collections()
        []
    """

    kind = "qdrant"

    def __init__(
        self,
        client: QdrantClient,
        *,
        local: bool,
        url: str | None = None,
        api_key: str | None = None,
        tenant_shards: tuple[str, ...] = (),
        shard_number: int | None = None,
        replication_factor: int | None = None,
        timeout_s: float = 300.0,
        lock_root: Path | None = None,
    ) -> None:
        self.client = client
        self._locks = WriterLocks(lock_root)
        self.local = local
        self.kind = "qdrant-local" if local else "qdrant"
        self.url = url.rstrip("/") if url else None
        self._api_key = api_key
        self.sharding = Sharding(tenant_shards) if tenant_shards else None
        self.shard_number = shard_number
        self.replication_factor = replication_factor
        self.timeout_s = timeout_s

    # --- names --------------------------------------------------------------------
    @staticmethod
    def _check_name(name: str) -> str:
        return check_name(name, forbid=("/", "__"), hint=" (no '/', no '__')")

    @translated
    def _aliases(self) -> dict[str, str]:
        return {a.alias_name: a.collection_name for a in self.client.get_aliases().aliases}

    @translated
    def _collections(self) -> set[str]:
        return {c.name for c in self.client.get_collections().collections}

    def _resolve(self, name: str) -> str | None:
        """The live data collection behind ``name`` (alias target, or a plain collection)."""
        self._check_name(name)
        target = self._aliases().get(name)
        if target is not None and self.client.collection_exists(target):
            return target
        return name if name in self._collections() else None

    def _sidecar(self, name: str) -> str:
        return name + MANIFEST_SUFFIX

    # --- sidecar records ----------------------------------------------------------
    @translated
    def _record(self, name: str, version: str) -> dict[str, Any] | None:
        sidecar = self._sidecar(name)
        if not self.client.collection_exists(sidecar):
            return None
        for pid in (MANIFEST_POINT_ID, _version_record_id(version)):
            found = self.client.retrieve(sidecar, [pid], with_payload=True, with_vectors=False)
            if found and (found[0].payload or {}).get("version") == version:
                return dict(found[0].payload or {})
        return None

    @translated
    def _write_record(
        self,
        name: str,
        version: str,
        manifest: Manifest,
        sharding: Sharding | None,
        *,
        live: bool,
    ) -> None:
        sidecar = self._sidecar(name)
        if not self.client.collection_exists(sidecar):
            self.client.create_collection(
                sidecar,
                vectors_config=m.VectorParams(size=1, distance=m.Distance.DOT),
                replication_factor=self.replication_factor,
            )
        payload = {
            "manifest": manifest.model_dump(mode="json"),
            "version": version,
            "shard_keys": list(sharding.tenant_keys) if sharding else None,
        }
        ids = [_version_record_id(version)] + ([MANIFEST_POINT_ID] if live else [])
        self.client.upsert(
            sidecar,
            [m.PointStruct(id=pid, vector=[1.0], payload=payload) for pid in ids],
            wait=True,
        )

    @translated
    def _switch(self, name: str, version: str) -> None:
        """Point alias ``name`` at ``version`` (one atomic call), then drop the old version."""
        old = self._resolve(name)
        ops: list[Any] = []
        if name in self._aliases():
            ops.append(m.DeleteAliasOperation(delete_alias=m.DeleteAlias(alias_name=name)))
        elif old == name:  # a plain collection of that name: it must go before the alias
            self.client.delete_collection(name)
        ops.append(
            m.CreateAliasOperation(
                create_alias=m.CreateAlias(collection_name=version, alias_name=name)
            )
        )
        self.client.update_collection_aliases(change_aliases_operations=ops)
        record = self._record(name, version)
        if record is not None:
            self.client.upsert(
                self._sidecar(name),
                [m.PointStruct(id=MANIFEST_POINT_ID, vector=[1.0], payload=record)],
                wait=True,
            )
        if old is not None and old != version:
            self._discard_version(name, old)

    @translated
    def _discard_version(self, name: str, version: str) -> None:
        if version != name:
            self.client.delete_collection(version)
        sidecar = self._sidecar(name)
        if not self.client.collection_exists(sidecar):
            return
        self.client.delete(
            sidecar,
            points_selector=m.PointIdsList(points=[_version_record_id(version)]),
            wait=True,
        )
        if self._resolve(name) is None:
            self.client.delete_collection(sidecar)

    # --- IndexBackend ---------------------------------------------------------------
    @translated
    def list_collections(self) -> list[str]:
        names = {
            alias
            for alias, target in self._aliases().items()
            if target.startswith(alias + VERSION_INFIX)
        }
        names |= {c for c in self._collections() if "__" not in c}
        return sorted(names)

    @translated
    def exists(self, name: str) -> bool:
        return self._resolve(name) is not None

    @translated
    def read_manifest(self, name: str) -> Manifest | None:
        target = self._resolve(name)
        if target is None:
            return None
        record = self._record(name, target)
        if record is None:
            return None
        try:
            return Manifest.model_validate(record["manifest"])
        except Exception as exc:
            raise IndexError_(f"manifest of {name!r} is unreadable: {exc}") from exc

    @translated
    def point_count(self, name: str) -> int:
        target = self._resolve(name)
        return 0 if target is None else int(self.client.count(target, exact=True).count)

    @translated
    def open(self, name: str) -> ServerIndex:
        target = self._resolve(name)
        if target is None:
            raise CollectionNotFound(f"no collection named {name!r} on {self._where()}")
        record = self._record(name, target)
        spec = IndexSpec(dimensions=1)
        sharding = None
        if record is not None:
            spec = IndexSpec.from_manifest(Manifest.model_validate(record["manifest"]))
            if record.get("shard_keys"):
                sharding = Sharding(tuple(record["shard_keys"]))
        # reads go through the alias (``name``), not the version it points at: after a
        # switch by another process, an open index answers from the new version at once
        # instead of failing on the dropped one (its manifest is refreshed by the
        # readiness check, see docs/deploy.md).
        return ServerIndex(
            self.client, name, spec, sharding=sharding, optimize_timeout_s=self.timeout_s
        )

    # --- document writes (sectio.index.port.Journaled) -------------------------------
    def _live(self, name: str) -> str:
        target = self._resolve(name)
        if target is None:
            raise CollectionNotFound(f"no collection named {name!r} on {self._where()}")
        return target

    @translated
    def read_journal(self, name: str) -> dict[str, Any] | None:
        """The live version's journal entry: a sidecar point beside its manifest record."""
        target = self._resolve(name)
        sidecar = self._sidecar(name)
        if target is None or not self.client.collection_exists(sidecar):
            return None
        found = self.client.retrieve(sidecar, [_journal_id(target)], with_payload=True)
        if not found or (found[0].payload or {}).get("version") != target:
            return None
        entry = (found[0].payload or {}).get("journal")
        return dict(entry) if isinstance(entry, dict) else None

    @translated
    def write_journal(self, name: str, entry: dict[str, Any] | None) -> None:
        target = self._live(name)
        sidecar = self._sidecar(name)
        if entry is None:
            if self.client.collection_exists(sidecar):
                self.client.delete(
                    sidecar, points_selector=m.PointIdsList(points=[_journal_id(target)]), wait=True
                )
            return
        payload = {"version": target, "journal": entry}
        point = m.PointStruct(id=_journal_id(target), vector=[1.0], payload=payload)
        self.client.upsert(sidecar, [point], wait=True)

    def write_live_manifest(self, name: str, manifest: Manifest) -> None:
        target = self._live(name)
        record = self._record(name, target) or {}
        keys = record.get("shard_keys")
        self._write_record(
            name, target, manifest, Sharding(tuple(keys)) if keys else None, live=True
        )

    @contextmanager
    def writing(self, name: str, purpose: str, size: WriteSize | None = None) -> Iterator[None]:
        """Hold ``name``'s writer lock (a ``flock`` under ``lock_root``, as an edge store's:
        a second writer is refused naming the first's pid and command) while the block
        runs. The server owns its disk, so ``size`` is not checked here. The lock is
        seen by writers on this machine only (another machine's writer is not; its
        switch is atomic, and the later switch wins).

        Raises:
            CollectionBusy: another process on this machine writes ``name``.
        """
        self._check_name(name)
        with self._locks.hold(name, purpose, f"collection {name!r} on {self._where()}"):
            yield

    def load_target(self, name: str, spec: IndexSpec, *, staged: bool) -> _ServerLoadTarget:
        live = self._resolve(name)
        if not staged and live is not None:
            return _ServerLoadTarget(self, name, live, self.open(name), False)
        version = f"{self._check_name(name)}{VERSION_INFIX}{version_stamp()}"
        try:
            index = ServerIndex.create(
                self.client,
                version,
                spec,
                sharding=self.sharding,
                shard_number=self.shard_number,
                replication_factor=self.replication_factor,
            )
        except NotImplementedError as exc:
            self._drop_quietly(version)
            raise NotAvailable(f"cannot create collection {name!r}: {exc}") from exc
        except Exception as exc:
            self._drop_quietly(version)
            raise IndexError_(f"cannot create collection {name!r}: {exc}") from exc
        index.optimize_timeout_s = self.timeout_s
        return _ServerLoadTarget(self, name, version, index, True)

    def _drop_quietly(self, collection: str) -> None:
        with contextlib.suppress(Exception):  # the original error is the one to report
            self.client.delete_collection(collection)

    @translated
    def drop(self, name: str) -> None:
        if self._resolve(name) is None:
            raise CollectionNotFound(f"no collection named {name!r}")
        if name in self._aliases():
            self.client.update_collection_aliases(
                change_aliases_operations=[
                    m.DeleteAliasOperation(delete_alias=m.DeleteAlias(alias_name=name))
                ]
            )
        for coll in self._collections():
            if coll == name or coll == self._sidecar(name) or coll.startswith(name + VERSION_INFIX):
                self.client.delete_collection(coll)

    def close(self) -> None:
        """Close the client (local mode releases its storage lock)."""
        self.client.close()

    def _where(self) -> str:
        return "qdrant-client local mode" if self.local else (self.url or "the Qdrant server")

    @property
    def endpoint(self) -> str:
        """What error messages name: the server URL (or local mode)."""
        return self._where()

    # --- snapshots ------------------------------------------------------------------
    def snapshot(self, name: str, out_file: Path) -> Manifest:
        """One tar file: ``FORMAT``, ``SHA256SUMS``, ``manifest.json``, ``sidecar.json`` and
        ``collection.snapshot`` (the server's own snapshot of the live version).

        In a cluster a collection snapshot holds the shards of the node that made it
        only; use ``sectio export`` for a whole-cluster copy (docs/deploy.md).

        Raises:
            NotAvailable: in qdrant-client local mode (it has no snapshot API).
            SnapshotError: no manifest, or the server refused.
        """
        target = self._resolve(name)
        if target is None:
            raise CollectionNotFound(f"no collection named {name!r}")
        record = self._record(name, target)
        if record is None:
            raise SnapshotError(f"collection {name!r} has no manifest; refusing to snapshot it")
        manifest = Manifest.model_validate(record["manifest"])
        if self.local or not self.url:
            raise NotAvailable(
                "qdrant-client local mode has no snapshot API; copy the collection with "
                "`sectio export --to PATH` instead"
            )
        out_file.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmpdir:
            downloaded = download_snapshot(
                self.client,
                self.url,
                target,
                Path(tmpdir),
                label=name,
                headers=self._headers(),
                timeout_s=self.timeout_s,
            )
            write_snapshot_file(out_file, downloaded, manifest, {**record, "version": None})
        return manifest

    def restore(
        self, in_file: Path, name: str, verify: Callable[[Manifest], None] | None = None
    ) -> Manifest:
        """Restore a server snapshot (upload), or an edge snapshot (copied point by point).

        Raises:
            SnapshotError: unreadable file, failing checksum, count differing from the manifest.
            NotAvailable: a server snapshot in qdrant-client local mode.
        """
        self._check_name(name)
        if not in_file.is_file():
            raise SnapshotError(f"snapshot {in_file} does not exist")
        with tempfile.TemporaryDirectory() as tmpdir:
            tmp = Path(tmpdir)
            if snapshot_format(in_file) != SNAPSHOT_FORMAT:
                return self._restore_edge_snapshot(in_file, name, verify, tmp)
            manifest, record = read_snapshot_file(in_file, tmp)
            manifest = manifest.model_copy(update={"collection": name})
            if verify is not None:
                verify(manifest)
            if self.local or not self.url:
                raise NotAvailable(
                    "qdrant-client local mode cannot recover a server snapshot; "
                    "restore it on a Qdrant server"
                )
            version = f"{name}{VERSION_INFIX}{version_stamp()}"
            snap = tmp / "collection.snapshot"
            try:
                with snap.open("rb") as fh:
                    self.client.http.snapshots_api.recover_from_uploaded_snapshot(
                        collection_name=version,
                        wait=True,
                        priority=m.SnapshotPriority.SNAPSHOT,
                        checksum=file_sha256(snap),
                        snapshot=fh,
                    )
                count = int(self.client.count(version, exact=True).count)
                if count != manifest.chunk_count:
                    raise SnapshotError(
                        f"snapshot {in_file}: {count} points but the manifest says "
                        f"{manifest.chunk_count}"
                    )
                keys = record.get("shard_keys")
                sharding = Sharding(tuple(keys)) if keys else None
                self._write_record(name, version, manifest, sharding, live=False)
                self._switch(name, version)
            except SnapshotError:
                self._drop_quietly(version)
                raise
            except Exception as exc:
                self._drop_quietly(version)
                raise SnapshotError(f"cannot recover snapshot {in_file}: {exc}") from exc
        return manifest

    def _restore_edge_snapshot(
        self,
        in_file: Path,
        name: str,
        verify: Callable[[Manifest], None] | None,
        tmp: Path,
    ) -> Manifest:
        edge = EdgeBackend(tmp / "edge")
        edge.restore(in_file, "snapshot", verify=verify)
        report = copy_collection(edge, "snapshot", self, name, replace=True)
        return report.manifest

    def _headers(self) -> dict[str, str]:
        return {"api-key": self._api_key} if self._api_key else {}
