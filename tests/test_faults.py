"""Faults a real machine has: kill -9 mid-write, two writers, a full disk, a second server.

Every test ends by checking what was lost: the live collection must answer as
before the fault (same manifest, same count, the same search), and what the
crash left behind is collected by the next write or ``sectio gc``. The README's
"Data safety" table lists these faults.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sectio import Sectio, Settings
from sectio.errors import InsufficientSpace
from sectio.index.edge import space
from sectio.index.edge.readonly import copy_tree
from sectio.index.edge.store import EdgeBackend
from sectio.index.port import WriteSize
from tests.helpers import chunk, write_jsonl


def run(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "SECTIO_HOME": str(home), "SECTIO_EMBEDDER": "fake", **env}
    return subprocess.run(
        [sys.executable, "-m", "sectio.cli", *args],
        capture_output=True,
        text=True,
        env=full,
        timeout=300,
    )


def one_line_error(proc: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def corpus(path: Path, word: str, n: int = 6) -> Path:
    rows = [
        chunk(f"{word}{i}", "indications", 0, f"{word} treats condition number {i}.")
        for i in range(n)
    ]
    return write_jsonl(path, rows)


def state(home: Path, name: str = "default") -> dict[str, object]:
    """What a reader sees: the manifest's corpus, the count, the top search hit's doc."""
    info = run(home, "info", "-c", name, "--json")
    assert info.returncode == 0, info.stderr
    coll = json.loads(info.stdout)["collections"][0]
    found = run(home, "search", "treats condition", "-c", name, "--json", "--mode", "lexical")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    return {
        "corpus": coll["manifest"]["corpus_sha256"],
        "count": coll["count"],
        "docs": sorted(h["doc_id"] for h in hits),
    }


def versions(home: Path, name: str = "default") -> list[str]:
    coll = home / "collections" / name
    return (
        sorted(p.name for p in coll.iterdir() if p.name.startswith("v-")) if coll.is_dir() else []
    )


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, object]]:
    """A home holding corpus A, ingested once for the module; corpus B; what a reader sees."""
    base = tmp_path_factory.mktemp("seeded")
    home = base / "home"
    a, b = corpus(base / "a.jsonl", "aspirin"), corpus(base / "b.jsonl", "bisoprolol", 9)
    assert run(home, "ingest", str(a)).returncode == 0
    return home, b, state(home)


@pytest.fixture
def loaded(
    seeded: tuple[Path, Path, dict[str, object]], tmp_path: Path
) -> tuple[Path, Path, dict[str, object]]:
    """A copy of the seeded home of this test's own (tmp_path/home): a home holds no
    absolute path, so the copy reads as the original did."""
    home = tmp_path / "home"
    copy_tree(seeded[0], home)
    return home, seeded[1], seeded[2]


# --- kill -9 at named points --------------------------------------------------------
@pytest.mark.parametrize(
    ("point", "live_after"),
    [
        ("edge.version.created", "old"),  # the new version's shard exists, empty
        ("edge.commit.closed", "old"),  # every point written and optimized, not switched
        ("edge.switch.before", "old"),  # CURRENT.tmp written, not renamed
        ("edge.switch.after", "new"),  # switched; the old version not yet removed
    ],
)
def test_kill_during_replace_loses_nothing(
    loaded: tuple[Path, Path, dict[str, object]], point: str, live_after: str
) -> None:
    home, b, before = loaded
    proc = run(home, "ingest", str(b), "--replace", SECTIO_FAULT_POINT=point)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    after = state(home)
    if live_after == "old":
        assert after == before
    else:
        assert after["count"] == 9 and after["corpus"] != before["corpus"]
    assert len(versions(home)) == 2  # the live one and the crash's leftover
    # the next write collects the leftover first, then converges
    again = run(home, "ingest", str(b), "--replace", "--json")
    assert again.returncode == 0, again.stderr
    assert len(versions(home)) == 1
    assert state(home)["count"] == 9


def test_kill_during_first_ingest_then_gc(tmp_path: Path) -> None:
    home = tmp_path / "home"
    a = corpus(tmp_path / "a.jsonl", "aspirin")
    proc = run(home, "ingest", str(a), SECTIO_FAULT_POINT="edge.commit.closed")
    assert proc.returncode == -signal.SIGKILL
    assert versions(home) and not (home / "collections" / "default" / "CURRENT").exists()
    one_line_error(run(home, "info", "-c", "default"), "no collection named 'default'")
    gc = run(home, "gc", "--json")
    assert gc.returncode == 0, gc.stderr
    report = json.loads(gc.stdout)
    assert len(report["removed"]) == 1 and report["bytes_freed"] > 0 and not report["skipped"]
    assert not (home / "collections" / "default").exists()
    assert run(home, "ingest", str(a)).returncode == 0


def test_kill_during_restore_loses_nothing(
    loaded: tuple[Path, Path, dict[str, object]], tmp_path: Path
) -> None:
    home, b, before = loaded
    other = tmp_path / "other"
    assert run(other, "ingest", str(b)).returncode == 0
    snap = tmp_path / "b.tgz"
    assert run(other, "snapshot", str(snap)).returncode == 0
    proc = run(home, "restore", str(snap), "--replace", SECTIO_FAULT_POINT="edge.restore.unpacked")
    assert proc.returncode == -signal.SIGKILL
    assert state(home) == before
    gc = json.loads(run(home, "gc", "--json").stdout)
    assert len(gc["removed"]) == 1 and versions(home) == versions(home)[:1]
    assert run(home, "restore", str(snap), "--replace").returncode == 0
    assert state(home)["count"] == 9


# --- one writer per collection, one server per home --------------------------------
HOLD = """
import sys, time
from pathlib import Path
from sectio.index.edge import space
from sectio.index.edge.store import EdgeBackend
backend = EdgeBackend(Path(sys.argv[1]) / "collections")
with backend.writing("default", "ingest"):
    print("held", flush=True)
    time.sleep(60)
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process writing collection 'default' of tmp_path/home (as ingest does)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path / "home")], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    yield proc
    proc.kill()
    proc.wait()


def test_second_writer_is_refused_naming_the_first(
    loaded: tuple[Path, Path, dict[str, object]], holder: subprocess.Popen[str], tmp_path: Path
) -> None:
    home, b, before = loaded
    for args in (("ingest", str(b), "--replace"), ("gc",)):
        proc = run(home, *args)
        if args == ("gc",):  # gc skips a collection a writer holds, and says so
            assert proc.returncode == 0 and f"pid {holder.pid}" in proc.stderr
            continue
        one_line_error(proc, "collection 'default' is busy", f"pid {holder.pid}", "ingest")
    snap = tmp_path / "s.tgz"
    assert run(home, "snapshot", str(snap)).returncode == 0  # reads are not writes
    one_line_error(run(home, "restore", str(snap)), f"pid {holder.pid}")
    assert state(home) == before
    holder.kill()
    holder.wait()
    assert run(home, "ingest", str(b), "--replace").returncode == 0  # the kernel freed it


def test_concurrent_replaces_one_wins(tmp_path: Path) -> None:
    """Two processes replace one collection at once: either one is refused naming the
    other, or they ran one after the other; never a silent lost update."""
    home = tmp_path / "home"
    a = corpus(tmp_path / "a.jsonl", "aspirin")
    assert run(home, "ingest", str(a)).returncode == 0
    big = [chunk(f"d{i}", "s", 0, f"bisoprolol treats condition {i}.") for i in range(10000)]
    b, c = write_jsonl(tmp_path / "b.jsonl", big), corpus(tmp_path / "c.jsonl", "cetirizine", 7)
    env = {**os.environ, "SECTIO_HOME": str(home), "SECTIO_EMBEDDER": "fake"}
    cmd = [sys.executable, "-m", "sectio.cli", "ingest", "--replace", "--json"]
    first = subprocess.Popen([*cmd, str(b)], env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(versions(home)) < 2:  # its staged version exists: it holds the lock
        assert time.monotonic() < deadline and first.poll() is None, "the first ended early"
        time.sleep(0.02)
    second = run(home, "ingest", str(c), "--replace")
    first.wait(timeout=120)
    assert first.returncode == 0
    if second.returncode == 0:  # the first had finished already: one after the other
        assert state(home)["count"] == 7  # the later write is what the collection holds
        return
    one_line_error(second, "collection 'default' is busy", f"pid {first.pid}")
    assert state(home)["count"] == 10000


SERVE = """
import sys, time
from pathlib import Path
from sectio.index.edge import space
from sectio.index.edge.store import EdgeBackend
backend = EdgeBackend(Path(sys.argv[1]) / "collections")
claim = backend.hold_serving()
index = backend.open("default")
print("serving", flush=True)
time.sleep(60)
"""


def test_second_serve_and_cli_reads_name_the_server(
    loaded: tuple[Path, Path, dict[str, object]],
) -> None:
    home, _, _ = loaded
    server = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(home)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "serving"
        one_line_error(run(home, "serve", "--port", "1"), "is busy", f"pid {server.pid}", "serve")
        line = one_line_error(run(home, "info"), "open in another process", f"pid {server.pid}")
        assert "WouldBlock" not in line and "query it over HTTP" in line
    finally:
        server.kill()
        server.wait()
    assert run(home, "info").returncode == 0


# --- full disk ---------------------------------------------------------------------
def test_space_check_names_needed_and_free(sectio: Sectio, small_corpus: Path) -> None:
    backend = sectio.backend
    assert isinstance(backend, EdgeBackend)
    with pytest.raises(InsufficientSpace, match=r"needs about .* bytes\), .* bytes\) free"):
        with backend.writing("default", "ingest", WriteSize(points=10**12, dimensions=384)):
            pass
    sectio.ingest(small_corpus)  # the refusal held and left nothing: the lock was released
    assert sectio.backend.exists("default")


class FullDiskBackend(EdgeBackend):
    """The filesystem double: every upsert fails as a full disk fails a write (ENOSPC)."""

    def load_target(self, name: str, spec: object, *, staged: bool) -> object:  # type: ignore[override]
        target = super().load_target(name, spec, staged=staged)  # type: ignore[arg-type]

        def full(points: object) -> None:
            raise OSError(28, "No space left on device")

        target.index.upsert = full  # type: ignore[method-assign]
        return target


def test_enospc_double_fails_cleanly(tmp_path: Path, small_corpus: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder="fake")
    with Sectio(settings) as s:
        s.ingest(small_corpus)
        before = s.count(tenant="default")
    b = corpus(tmp_path / "b.jsonl", "bisoprolol")
    with Sectio(settings, backend=FullDiskBackend(settings.collections_dir)) as s:
        with pytest.raises(InsufficientSpace, match="ran out of disk space.*unchanged"):
            s.ingest(b, replace=True)
        assert s.count(tenant="default") == before
    assert versions(settings.home) == versions(settings.home)[:1]


def _tmpfs(path: Path, size: str) -> bool:
    """Mount a tmpfs of ``size`` at ``path`` where this machine allows it (root, mount)."""
    if os.geteuid() != 0:
        return False
    path.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True
    )
    return proc.returncode == 0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    if not _tmpfs(mount, "400m"):
        pytest.skip("cannot mount a tmpfs here (not root); test_enospc_double_fails_cleanly ran")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk: Path, leave: int) -> Path:
    filler = disk / "filler"
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    with filler.open("wb") as fh:
        left = free - leave
        while left > 0:
            fh.write(b"\1" * min(left, 1 << 20))
            left -= 1 << 20
    return filler


def test_full_tmpfs_home(small_disk: Path, tmp_path: Path) -> None:
    """A real small disk: refusals name bytes; a write that dies leaves the live version."""
    home = small_disk / "home"
    a, b = corpus(tmp_path / "a.jsonl", "aspirin"), corpus(tmp_path / "b.jsonl", "bisoprolol", 9)
    assert run(home, "ingest", str(a)).returncode == 0
    before = state(home)  # the first read of a tmpfs shard fills its holes: checked, room here
    filler = _fill(small_disk, leave=8 << 20)
    one_line_error(run(home, "ingest", str(b), "--replace"), "not enough free space", "free")
    assert state(home) == before
    # the check off: the write dies (SIGBUS) or fails; the live version still answers
    proc = run(home, "ingest", str(b), "--replace", SECTIO_SPACE_CHECK="false")
    assert proc.returncode != 0
    # its leftover may hold the last bytes an open needs: a read then says so in one line
    read = run(home, "info")
    if read.returncode:
        one_line_error(read, "the disk is full", "sectio gc")
    assert run(home, "gc").returncode == 0
    assert state(home) == before
    filler.unlink()
    assert run(home, "ingest", str(b), "--replace").returncode == 0
    assert versions(home) == versions(home)[:1] and state(home)["count"] == 9


def test_first_read_on_full_tmpfs_is_refused_not_sigbus(small_disk: Path, tmp_path: Path) -> None:
    """A home built elsewhere and copied (sparse) onto a nearly full tmpfs: its first read
    would fill holes; it is refused in one line instead of dying of SIGBUS."""
    built = tmp_path / "home"
    assert run(built, "ingest", str(corpus(tmp_path / "a.jsonl", "aspirin"))).returncode == 0
    for marker in (built / "collections" / "default").glob("v-*/WARMED"):
        marker.unlink()  # as a home written by sectio <= 0.1
    home = small_disk / "home"
    subprocess.run(["cp", "-a", "--sparse=always", str(built), str(home)], check=True)
    _fill(small_disk, leave=4 << 20)
    one_line_error(run(home, "info"), "tmpfs fills its sparse files", "free")
    unchecked = run(home, "info", SECTIO_SPACE_CHECK="false")
    assert unchecked.returncode != 0  # what the check prevents (SIGBUS here)


def test_one_tenant_replace_counts_the_tenants_it_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-tenant ``--replace`` builds a staged version holding every other tenant's
    points too: the free-space check counts them (a filesystem double reports the free
    space: enough for the incoming points alone, not for the copy)."""
    settings = Settings(home=tmp_path / "home", embedder="fake")
    big = write_jsonl(
        tmp_path / "big.jsonl",
        [
            {**chunk(f"g{i}", "s", 0, f"globex text number {i} " * 8), "tenant": "globex"}
            for i in range(1500)
        ],
    )
    small = corpus(tmp_path / "a.jsonl", "aspirin", 3)
    changed = corpus(tmp_path / "b.jsonl", "bisoprolol", 3)
    with Sectio(settings) as s:
        s.ingest(big, collection="shared")
        s.ingest(small, collection="shared")
        before = s.collection("shared").manifest
        alone = space.load_need(3, 3 * 400, 384)  # what the incoming points alone need
        monkeypatch.setattr(space, "free_bytes", lambda path: alone + (4 << 20))
        with pytest.raises(InsufficientSpace, match=r"needs about .* bytes\), .* bytes\) free"):
            s.ingest(changed, collection="shared", replace=True)
        assert s.collection("shared").manifest == before
        assert s.count(collection="shared", tenant="globex") == 1500
        monkeypatch.undo()
        report = s.ingest(changed, collection="shared", replace=True)
        assert report.action == "replaced"
        assert s.count(collection="shared", tenant="globex") == 1500
    assert versions(settings.home, "shared") == versions(settings.home, "shared")[:1]
