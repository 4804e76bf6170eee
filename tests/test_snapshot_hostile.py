"""Hostile and odd snapshot files: each is refused in one line and changes nothing.

Also: snapshots are compressed and keep sparse files; restore refuses another
corpus without ``--replace``.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sectio import Sectio, Settings
from sectio._files import file_sha256
from sectio.errors import CorpusMismatch, ManifestMismatch, SnapshotError
from sectio.index.edge import archive
from sectio.index.edge.readonly import copy_tree
from sectio.index.edge.space import used_bytes
from tests.helpers import chunk, write_jsonl


@pytest.fixture
def version(sectio: Sectio, small_corpus: Path, tmp_path: Path) -> Path:
    """A copy of a closed, live version folder (manifest.json + shard/)."""
    sectio.ingest(small_corpus)
    sectio.close()
    coll = sectio.settings.collections_dir / "default"
    live = coll / (coll / "CURRENT").read_text().strip()
    copy = tmp_path / "version"
    copy_tree(live, copy)
    return copy


@pytest.fixture
def target(tmp_path: Path) -> Iterator[Sectio]:
    s = Sectio(Settings(home=tmp_path / "target", embedder="fake"))
    yield s
    s.close()


Member = tuple[str, "Path | bytes"]


def _members(version: Path, *, shard: bool = True) -> list[Member]:
    """The version's files as archive members (paths: streamed, never read whole)."""
    files = [version / "manifest.json"]
    if shard:
        files += sorted(p for p in (version / "shard").rglob("*") if p.is_file())
    return [(p.relative_to(version).as_posix(), p) for p in files]


def _sums(members: list[Member]) -> bytes:
    lines = []
    for name, data in members:
        digest = hashlib.sha256(data).hexdigest() if isinstance(data, bytes) else file_sha256(data)
        lines.append(f"{digest}  {name}\n")
    return "".join(lines).encode()


def _tar(
    out: Path, members: list[Member], sums: bytes | None = None, head: list[Member] | None = None
) -> Path:
    """A plain gzip tar: ``head``, ``SHA256SUMS`` (given, or the true sums), ``members``."""
    if sums is None:
        sums = _sums(members)
    with tarfile.open(out, "w:gz", compresslevel=1) as tar:
        for name, data in [*(head or []), ("SHA256SUMS", sums), *members]:
            if isinstance(data, bytes):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.add(data, arcname=name)
    return out


def _refused(target: Sectio, snap: Path, match: str) -> None:
    with pytest.raises(SnapshotError, match=match) as info:
        target.restore(snap, collection="x")
    assert "\n" not in str(info.value)
    assert not target.backend.exists("x")
    assert not (target.settings.collections_dir / "x").exists()  # nothing left behind


def test_snapshot_is_small_and_restore_keeps_sparse_files(
    sectio: Sectio, small_corpus: Path, tmp_path: Path, target: Sectio
) -> None:
    sectio.ingest(small_corpus)
    snap = tmp_path / "s.tgz"
    sectio.snapshot(snap)
    coll = sectio.settings.collections_dir / "default"
    live = coll / (coll / "CURRENT").read_text().strip()
    apparent = sum(p.stat().st_size for p in live.rglob("*") if p.is_file())
    assert snap.stat().st_size < apparent / 50  # holes are not stored
    target.restore(snap, collection="x")
    restored = target.settings.collections_dir / "x"
    assert used_bytes(restored) < 2 * used_bytes(live) + (1 << 20)
    assert target.count(collection="x", tenant="default") == 5


def test_a_plain_tar_of_format_1_still_restores(
    version: Path, tmp_path: Path, target: Sectio
) -> None:
    snap = _tar(tmp_path / "v1.tgz", _members(version))
    target.restore(snap, collection="x")
    assert target.count(collection="x", tenant="default") == 5


def test_restore_refuses_another_corpus_without_replace(
    sectio: Sectio, small_corpus: Path, tmp_path: Path
) -> None:
    sectio.ingest(small_corpus)
    snap = tmp_path / "s.tgz"
    sectio.snapshot(snap)
    other = write_jsonl(tmp_path / "o.jsonl", [chunk("zyrtec", "uses", 0, "Allergies.")])
    sectio.ingest(other, collection="o")
    with pytest.raises(CorpusMismatch, match="use --replace"):
        sectio.restore(snap, collection="o")
    assert sectio.count(collection="o", tenant="default") == 1
    sectio.restore(snap, collection="o", replace=True)
    assert sectio.count(collection="o", tenant="default") == 5


Tamper = Callable[[dict[str, object]], None]


def _scale_avg_len(manifest: dict[str, object], factor: float) -> None:
    avg = manifest["bm25"]["avg_len"]  # type: ignore[index]
    avg["bm25"] = round(avg["bm25"] * factor, 4)


def test_a_live_manifest_with_another_avg_len_is_refused_on_open(
    sectio: Sectio, small_corpus: Path
) -> None:
    sectio.ingest(small_corpus)
    sectio.close()
    coll = sectio.settings.collections_dir / "default"
    path = coll / (coll / "CURRENT").read_text().strip() / "manifest.json"
    manifest = json.loads(path.read_text())
    true_avg = manifest["bm25"]["avg_len"]["bm25"]
    _scale_avg_len(manifest, 3.0)
    path.write_text(json.dumps(manifest))
    with Sectio(sectio.settings) as s, pytest.raises(ManifestMismatch) as info:
        s.search("aspirin", tenant="default")
    message = str(info.value)
    assert "bm25.avg_len.bm25 is" in message and "\n" not in message
    implied = float(message.split("weighted with about ")[1].split(";")[0])
    assert abs(implied - true_avg) < 0.01 * true_avg  # the points' own, solved back


@pytest.mark.parametrize(
    ("tamper", "field"),
    [
        (lambda m: m.update(quantization="none"), "quantization"),
        (lambda m: m["bm25"].update(vectors=["bm25", "bm25_folded"]), "bm25.vectors"),  # type: ignore[attr-defined]
        (lambda m: m["bm25"].update(avg_len={"bm25": -3.0}), "avg_len"),  # type: ignore[attr-defined]
        (lambda m: m["bm25"].update(avg_len={"bm25": "NaN"}), "avg_len"),  # type: ignore[attr-defined]
        (lambda m: m.update(dimensions=385), "dimensions"),
        # plausible-looking but not the points' own: the stored weights say otherwise
        (lambda m: _scale_avg_len(m, 10.0), r"bm25\.avg_len\.bm25 is .* weighted with about"),
        (lambda m: _scale_avg_len(m, 0.7), r"bm25\.avg_len\.bm25 is .* weighted with about"),
    ],
)
def test_tampered_manifest_with_recomputed_sums_is_refused(
    version: Path, tmp_path: Path, target: Sectio, tamper: Tamper, field: str
) -> None:
    path = version / "manifest.json"
    manifest = json.loads(path.read_text())
    tamper(manifest)
    path.write_text(json.dumps(manifest))
    snap = tmp_path / "t.tgz"
    archive.write(version, snap)  # honest sums over the tampered manifest
    if field == "dimensions":  # the embedder gate sees it first
        with pytest.raises(Exception, match="dimensions"):
            target.restore(snap, collection="x")
        return
    _refused(target, snap, field)


def test_sums_naming_host_files_are_refused(version: Path, tmp_path: Path, target: Sectio) -> None:
    members = _members(version, shard=False)
    sums = "".join(f"{'0' * 64}  {n}\n" for n, _ in members) + f"{'0' * 64}  ../../etc/hostname\n"
    _refused(target, _tar(tmp_path / "h.tgz", members, sums.encode()), "not a member")
    for bad in ("/etc/passwd", "shard/../../x", "shard//x", "other/x"):
        sums = f"{'0' * 64}  manifest.json\n{'0' * 64}  {bad}\n".encode()
        _refused(target, _tar(tmp_path / "b.tgz", members[:1], sums), "not a member")


@pytest.mark.parametrize(
    ("sums", "match"),
    [
        (b"\xff\xfe\x00binary\x00", "not UTF-8"),
        (b"deadbeef manifest.json\n", "line 1 is not"),
        (b"", "does not list manifest.json"),
    ],
)
def test_malformed_sums_are_refused(
    version: Path, tmp_path: Path, target: Sectio, sums: bytes, match: str
) -> None:
    _refused(target, _tar(tmp_path / "m.tgz", _members(version, shard=False), sums), match)


def test_archive_without_shard_or_sums_or_not_a_tar(
    version: Path, tmp_path: Path, target: Sectio
) -> None:
    manifest_only = _members(version, shard=False)
    _refused(target, _tar(tmp_path / "n.tgz", manifest_only), "no shard/ folder")
    with tarfile.open(tmp_path / "nosums.tar", "w") as tar:
        tar.add(version / "manifest.json", arcname="manifest.json")
    _refused(target, tmp_path / "nosums.tar", "before SHA256SUMS")
    (tmp_path / "junk.tgz").write_bytes(gzip.compress(b"not a tar at all" * 100))
    _refused(target, tmp_path / "junk.tgz", "unreadable")
    (tmp_path / "junk.tar").write_text("junk\n")  # tarfile's text of every method tried: not shown
    _refused(target, tmp_path / "junk.tar", r"unreadable: not a tar archive \(plain, gzip")
    members = _members(version, shard=False)
    extra = _tar(tmp_path / "extra.tgz", [("shard/extra", b"x"), *members], _sums(members))
    _refused(target, extra, "not listed")


def test_member_past_its_listed_data_stops_at_the_bound(
    version: Path, tmp_path: Path, target: Sectio
) -> None:
    """A listing that says 1 KiB of data, a member of 64 MiB of non-zero bytes (~0.3 MiB
    compressed): the restore stops at the bound, long before the member's end."""
    members = _members(version)
    bomb = b"\x01" * (64 << 20)
    sizes = {n: p.stat().st_size for n, p in members if isinstance(p, Path)}
    listed = {n: {"size": size, "data": size} for n, size in sizes.items()}
    listed["shard/bomb"] = {"size": len(bomb), "data": 1024}
    sums = _sums([*members, ("shard/bomb", bomb)])

    def contents() -> list[Member]:
        return [("CONTENTS.json", json.dumps({"format": archive.FORMAT, "files": listed}).encode())]

    out = _tar(tmp_path / "bomb.tgz", [("shard/bomb", bomb), *members], sums, head=contents())
    assert out.stat().st_size < 4 << 20
    _refused(target, out, "holds more than its listed data")
    # a member whose size is not its listed size is refused before a byte is written
    listed["shard/bomb"] = {"size": 10, "data": 10}
    out = _tar(tmp_path / "bomb.tgz", [("shard/bomb", bomb), *members], sums, head=contents())
    _refused(target, out, "listing says 10")
