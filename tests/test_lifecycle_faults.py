"""kill -9 at every write point of a document write and of a tenant addition (real edge store).

After each crash every document is old or new (never a mix), ``info`` names the
tenants not ready, and the next ``sectio gc`` finishes the write (or undoes an
unfinished addition); then every tenant's count matches its manifest.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from sectio.index.edge.readonly import copy_tree
from tests.helpers import chunk, write_jsonl
from tests.test_faults import one_line_error, run

OLD = [
    chunk(f"d{i}", "s", p, f"old text of document {i} part {p}.") for i in range(4) for p in (0, 1)
]
NEW = [chunk("d0", "s", 0, "new text of document 0."), chunk("d9", "s", 0, "new document 9.")]


def docs(home: Path, name: str = "default") -> dict[str, set[str]]:
    """doc id -> its chunks' texts, as a reader sees them."""
    got = run(
        home, "search", "text document", "-c", name, "--json", "--mode", "lexical", "--top-k", "50"
    )
    assert got.returncode == 0, got.stderr
    out: dict[str, set[str]] = {}
    for hit in json.loads(got.stdout)["hits"]:
        out.setdefault(hit["doc_id"], set()).add(hit["text"])
    return out


def info(home: Path, name: str = "default") -> dict[str, object]:
    got = run(home, "info", "-c", name, "--json")
    assert got.returncode == 0, got.stderr
    return json.loads(got.stdout)["collections"][0]


# a home holding OLD, and what a reader sees in it
Loaded = tuple[Path, dict[str, set[str]]]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    """A home that holds OLD, ingested once for the module, and what a reader sees in it."""
    base = tmp_path_factory.mktemp("old-home")
    home = base / "home"
    assert run(home, "ingest", str(write_jsonl(base / "old.jsonl", OLD))).returncode == 0
    return home, docs(home)


@pytest.fixture(scope="module")
def shared_loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home whose collection ``shared`` holds tenant acme (OLD), ingested once."""
    base = tmp_path_factory.mktemp("shared-home")
    acme = [{**r, "tenant": "acme"} for r in OLD]
    src = str(write_jsonl(base / "a.jsonl", acme))
    assert run(base / "home", "ingest", src, "-c", "shared").returncode == 0
    return base / "home"


def old_home(loaded: Loaded, tmp_path: Path) -> Path:
    """A copy of the loaded home of its own (a home holds no absolute path)."""
    home = tmp_path / "home"
    copy_tree(loaded[0], home)
    return home


@pytest.mark.parametrize(
    "point",
    [
        "lifecycle.journal.written",
        "lifecycle.points.upserted",
        "lifecycle.points.deleted",
        "lifecycle.manifest.written",
    ],
)
@pytest.mark.parametrize("command", ["upsert", "sync"])
def test_kill_during_a_document_write(
    loaded: Loaded, tmp_path: Path, point: str, command: str
) -> None:
    home, before = old_home(loaded, tmp_path), loaded[1]
    src = str(write_jsonl(tmp_path / "new.jsonl", NEW))
    args = ["upsert", src] if command == "upsert" else ["ingest", src, "--sync"]
    proc = run(home, *args, SECTIO_FAULT_POINT=point)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    seen = info(home)
    assert seen["tenants_not_ready"] == {"default": seen["tenants_not_ready"]["default"]}
    assert "interrupted" in seen["tenants_not_ready"]["default"]
    gc = run(home, "gc", "--json")
    assert gc.returncode == 0, gc.stderr
    assert json.loads(gc.stdout)["settled"] == {"default": "finished"}
    after = docs(home)
    assert after["d0"] == {"new text of document 0."} and after["d9"] == {"new document 9."}
    for doc in ("d1", "d2", "d3"):
        if command == "upsert":
            assert after[doc] == before[doc]
        else:
            assert doc not in after
    final = info(home)
    assert final["matches_manifest"] is True and final["tenants_not_ready"] == {}


@pytest.mark.parametrize(
    ("point", "outcome"),
    [
        ("lifecycle.addition.begun", "undone"),
        ("loader.batch.written", "undone"),
        ("loader.added.manifest", "completed"),
    ],
)
def test_killed_tenant_addition_is_never_served_half_loaded(
    shared_loaded: Path, tmp_path: Path, point: str, outcome: str
) -> None:
    home = tmp_path / "home"
    copy_tree(shared_loaded, home)
    globex = [
        {**chunk(f"g{i}", "s", 0, f"globex text document {i}."), "tenant": "globex"}
        for i in range(40)
    ]
    proc = run(
        home, "ingest", str(write_jsonl(tmp_path / "g.jsonl", globex)), "-c", "shared",
        SECTIO_FAULT_POINT=point, SECTIO_UPSERT_BATCH_SIZE="8",
    )  # fmt: skip
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    seen = info(home, "shared")
    assert set(seen["tenants_not_ready"]) == {"globex"}  # named; acme is not
    gc = json.loads(run(home, "gc", "--json").stdout)
    assert gc["settled"] == {"shared": outcome}
    final = info(home, "shared")
    assert final["tenants_not_ready"] == {} and final["matches_manifest"] is True
    tenants = final["manifest"]["tenants"]
    assert ("globex" in tenants) == (outcome == "completed")
    assert final["count"] == 8 + (40 if outcome == "completed" else 0)


WRITE_POINTS = [
    "lifecycle.journal.written",
    "lifecycle.points.upserted",
    "lifecycle.points.deleted",
    "lifecycle.manifest.written",
]


@pytest.mark.parametrize("point", WRITE_POINTS)
def test_kill_during_a_delete(loaded: Loaded, tmp_path: Path, point: str) -> None:
    home, before = old_home(loaded, tmp_path), loaded[1]
    proc = run(home, "delete", "--doc", "d0", "--doc", "d1", SECTIO_FAULT_POINT=point)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert set(info(home)["tenants_not_ready"]) == {"default"}
    gc = run(home, "gc", "--json")
    assert json.loads(gc.stdout)["settled"] == {"default": "finished"}
    after = docs(home)
    assert set(after) == {"d2", "d3"} and all(after[d] == before[d] for d in after)
    final = info(home)
    assert final["matches_manifest"] is True and final["tenants_not_ready"] == {}
    assert final["count"] == 4


@pytest.mark.parametrize("point", ["edge.journal.writing", *WRITE_POINTS])
@pytest.mark.parametrize("command", ["upsert", "delete"])
def test_full_disk_during_a_document_write(
    loaded: Loaded, tmp_path: Path, point: str, command: str
) -> None:
    """ENOSPC at a write point: one line; every document old (nothing recorded) or, once
    the journal holds the write, made new by the next ``gc``; counts match after."""
    home, before = old_home(loaded, tmp_path), loaded[1]
    src = str(write_jsonl(tmp_path / "new.jsonl", NEW))
    args = ["upsert", src] if command == "upsert" else ["delete", "--doc", "d0"]
    proc = run(home, *args, SECTIO_FAULT_ENOSPC=point)
    recorded = point != "edge.journal.writing"
    line = one_line_error(proc, "no space left")
    assert ("journal" in line) == recorded
    seen = info(home)
    assert bool(seen["tenants_not_ready"]) == recorded
    if not recorded:
        assert docs(home) == before and seen["matches_manifest"] is True
    settled = json.loads(run(home, "gc", "--json").stdout)["settled"]
    assert settled == ({"default": "finished"} if recorded else {})
    after = docs(home)
    if recorded and command == "upsert":
        assert after["d0"] == {"new text of document 0."} and after["d9"] == {"new document 9."}
    elif recorded:
        assert "d0" not in after
    for doc in ("d1", "d2", "d3"):
        assert after[doc] == before[doc]
    final = info(home)
    assert final["matches_manifest"] is True and final["tenants_not_ready"] == {}


@pytest.mark.parametrize("command", ["upsert", "delete"])
def test_kill_right_after_a_document_write_loses_nothing(
    loaded: Loaded, tmp_path: Path, command: str
) -> None:
    """The write returned (journal cleared, shard not flushed): killed there, the next
    reader finds every point of it (the shard's write-ahead log), counts as the manifest."""
    home = old_home(loaded, tmp_path)
    src = str(write_jsonl(tmp_path / "new.jsonl", NEW))
    args = ["upsert", src] if command == "upsert" else ["delete", "--doc", "d0"]
    proc = run(home, *args, SECTIO_FAULT_POINT="lifecycle.journal.cleared")
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    seen = info(home)
    assert seen["tenants_not_ready"] == {} and seen["matches_manifest"] is True
    after = docs(home)
    if command == "upsert":
        assert after["d0"] == {"new text of document 0."} and after["d9"] == {"new document 9."}
    else:
        assert "d0" not in after and set(after) == {"d1", "d2", "d3"}
