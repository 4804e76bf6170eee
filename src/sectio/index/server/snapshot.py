"""The server snapshot file: the server's own collection snapshot, with its manifest.

One tar file: ``FORMAT`` (:data:`SNAPSHOT_FORMAT`, which tells it from an edge
snapshot), ``SHA256SUMS``, ``manifest.json``, ``sidecar.json`` and
``collection.snapshot``. Written atomically (``.partial``, then a rename); every
member is checked against its sum before anything is restored.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tarfile
from pathlib import Path
from typing import Any

import httpx
from qdrant_client import QdrantClient

from sectio._files import file_sha256
from sectio.errors import SnapshotError
from sectio.index.manifest import Manifest

#: First member of a server snapshot file; tells it from an edge snapshot.
SNAPSHOT_FORMAT = "sectio-qdrant-server-snapshot/1"
_SNAPSHOT_MEMBERS = ("manifest.json", "sidecar.json", "collection.snapshot")


def download_snapshot(
    client: QdrantClient,
    base_url: str,
    collection: str,
    into: Path,
    *,
    label: str,
    headers: dict[str, str],
    timeout_s: float,
) -> Path:
    """Have the server snapshot ``collection`` (``label`` in messages), download it to
    ``into/collection.snapshot``, and delete it on the server (a leftover is not reported).

    Raises:
        SnapshotError: the server refused or made none, or the download failed.
    """
    try:
        desc = client.create_snapshot(collection, wait=True)
    except Exception as exc:
        raise SnapshotError(f"the server refused a snapshot of {label!r}: {exc}") from exc
    if desc is None:
        raise SnapshotError(f"the server made no snapshot of {label!r}")
    out = into / "collection.snapshot"
    try:
        url = f"{base_url}/collections/{collection}/snapshots/{desc.name}"
        with (
            httpx.stream("GET", url, headers=headers, timeout=timeout_s) as r,
            out.open("wb") as fh,
        ):
            r.raise_for_status()
            for block in r.iter_bytes(1 << 20):
                fh.write(block)
    except httpx.HTTPError as exc:
        raise SnapshotError(f"cannot download snapshot {desc.name}: {exc}") from exc
    finally:
        with contextlib.suppress(Exception):  # a leftover snapshot is not our failure
            client.delete_snapshot(collection, desc.name, wait=True)
    return out


def snapshot_format(path: Path) -> str | None:
    """The ``FORMAT`` line of a server snapshot file; None for anything else (edge)."""
    try:
        with tarfile.open(path, "r") as tar:
            member = tar.getmember("FORMAT")
            fh = tar.extractfile(member)
            return fh.read().decode().strip() if fh else None
    except (KeyError, tarfile.TarError, OSError):
        return None


def write_snapshot_file(
    out_file: Path, collection_snapshot: Path, manifest: Manifest, record: dict[str, Any]
) -> None:
    """Write the server snapshot tar (atomically: ``.partial`` then rename)."""
    folder = collection_snapshot.parent
    (folder / "manifest.json").write_text(
        json.dumps(manifest.model_dump(mode="json"), indent=2, sort_keys=True)
    )
    sidecar = {k: v for k, v in record.items() if k != "manifest"}
    (folder / "sidecar.json").write_text(json.dumps(sidecar, indent=2, sort_keys=True))
    if collection_snapshot.name != "collection.snapshot":
        shutil.copyfile(collection_snapshot, folder / "collection.snapshot")
    (folder / "FORMAT").write_text(SNAPSHOT_FORMAT + "\n")
    sums = "".join(f"{file_sha256(folder / n)}  {n}\n" for n in _SNAPSHOT_MEMBERS)
    (folder / "SHA256SUMS").write_text(sums)
    tmp = out_file.with_name(out_file.name + ".partial")
    with tarfile.open(tmp, "w") as tar:
        for member in ("FORMAT", "SHA256SUMS", *_SNAPSHOT_MEMBERS):
            tar.add(folder / member, arcname=member)
    os.replace(tmp, out_file)


def read_snapshot_file(in_file: Path, into: Path) -> tuple[Manifest, dict[str, Any]]:
    """Extract and check a server snapshot tar; returns its manifest and sidecar record.

    Raises:
        SnapshotError: unreadable, a member missing or unlisted, or a checksum failing.
    """
    try:
        with tarfile.open(in_file, "r") as tar:
            names = set(tar.getnames())
            tar.extractall(into, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise SnapshotError(f"snapshot {in_file} is unreadable: {exc}") from exc
    expected = {"FORMAT", "SHA256SUMS", *_SNAPSHOT_MEMBERS}
    if names != expected:
        raise SnapshotError(
            f"snapshot {in_file}: members {sorted(names)} differ from {sorted(expected)}"
        )
    listed: dict[str, str] = {}
    for line in (into / "SHA256SUMS").read_text().splitlines():
        if line.strip():
            digest, rel = line.split("  ", 1)
            listed[rel] = digest
    for member in _SNAPSHOT_MEMBERS:
        if listed.get(member) != file_sha256(into / member):
            raise SnapshotError(f"snapshot {in_file}: checksum failed for {member}")
    try:
        manifest = Manifest.model_validate_json((into / "manifest.json").read_text())
        record = json.loads((into / "sidecar.json").read_text())
    except Exception as exc:
        raise SnapshotError(f"snapshot {in_file}: bad manifest: {exc}") from exc
    return manifest, record
