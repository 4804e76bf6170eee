"""Document lifecycle (real Qdrant Edge, fake embedder): upsert, delete, sync one document.

Every test checks the points themselves: a changed document's chunks are all new,
its gone chunks removed, every other document's points untouched (same ids, same
payloads), and the manifest's per-document entries say what the points hold.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sectio import Sectio, Settings
from sectio.cli import main
from sectio.errors import ContractError, CorpusMismatch
from sectio.index.port import Journaled
from sectio.retrieve.reads import scroll_all
from tests.helpers import chunk, write_jsonl

A = [
    chunk("aspirin", "warnings", 0, "Aspirin may cause stomach bleeding."),
    chunk("aspirin", "warnings", 1, "Avoid aspirin in children with fever."),
    chunk("metformin", "warnings", 0, "Metformin can cause lactic acidosis."),
    chunk("warfarin", "warnings", 0, "Warfarin raises the risk of bleeding."),
]


@pytest.fixture
def s(tmp_path: Path) -> Iterator[Sectio]:
    with Sectio(Settings(home=tmp_path / "home", embedder="fake")) as sectio:
        yield sectio


def points(s: Sectio, tenant: str = "default", name: str = "default") -> dict[str, Any]:
    """chunk id -> (doc id, text) of every point of ``tenant``."""
    index = s.collection(name).index
    return {
        p.payload["chunk_id"]: (p.payload["doc_id"], p.payload["text"])
        for p in scroll_all(index, tenant, page=64)
    }


def docs_entry(s: Sectio, tenant: str = "default", name: str = "default") -> dict[str, Any]:
    manifest = s.backend.read_manifest(name)
    assert manifest is not None
    return dict(manifest.tenants[tenant]["documents"])


def test_upsert_replaces_changed_adds_new_and_leaves_the_rest(s: Sectio, tmp_path: Path) -> None:
    s.ingest(write_jsonl(tmp_path / "a.jsonl", A))
    before = points(s)
    edited = [
        chunk("aspirin", "warnings", 0, "Aspirin may cause severe stomach bleeding."),
        chunk("heparin", "warnings", 0, "Heparin is given by injection."),
    ]
    report = s.upsert(write_jsonl(tmp_path / "b.jsonl", edited))
    assert (report.added, report.changed, report.deleted) == (("heparin",), ("aspirin",), ())
    assert (report.upserted, report.removed) == (2, 1)  # aspirin's part 1 is gone
    assert report.embeddings_computed == 2
    after = points(s)
    assert after["aspirin#warnings#0"] == ("aspirin", edited[0]["text"])
    assert "aspirin#warnings#1" not in after
    assert after["heparin#warnings#0"][0] == "heparin"
    for cid in ("metformin#warnings#0", "warfarin#warnings#0"):  # untouched
        assert after[cid] == before[cid]
    assert report.collection_count == len(after) == 4
    entry = docs_entry(s)
    assert set(entry) == {"aspirin", "heparin", "metformin", "warfarin"}
    assert entry["aspirin"]["chunks"] == 1
    manifest = s.backend.read_manifest("default")
    assert manifest is not None and manifest.chunk_count == 4
    info = s.info("default")["collections"][0]
    assert info["matches_manifest"] is True
    hits = s.search("severe stomach bleeding", mode="lexical").hits
    assert hits[0].chunk_id == "aspirin#warnings#0" and "severe" in hits[0].text


def test_unchanged_documents_cost_nothing(s: Sectio, tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "a.jsonl", A)
    s.ingest(src)
    version = next((s.settings.collections_dir / "default").glob("v-*"))
    stamp = (version / "manifest.json").stat().st_mtime_ns
    for report in (s.upsert(src), s.sync(src)):
        assert (report.added, report.changed, report.deleted) == ((), (), ())
        assert report.unchanged == 3
        assert (report.upserted, report.removed, report.embeddings_computed) == (0, 0, 0)
    assert (version / "manifest.json").stat().st_mtime_ns == stamp  # nothing was written


def test_sync_adds_changes_and_deletes(s: Sectio, tmp_path: Path) -> None:
    s.ingest(write_jsonl(tmp_path / "a.jsonl", A))
    new = [A[0], A[1], chunk("metformin", "warnings", 0, "Metformin: lactic acidosis, rarely.")]
    new.append(chunk("insulin", "warnings", 0, "Insulin can cause low blood sugar."))
    report = s.sync(write_jsonl(tmp_path / "b.jsonl", new))
    assert report.as_dict()["counts"] == {"added": 1, "changed": 1, "deleted": 1, "unchanged": 1}
    assert report.deleted == ("warfarin",)
    got = points(s)
    assert {d for d, _ in got.values()} == {"aspirin", "metformin", "insulin"}
    assert len(got) == 4 and report.collection_count == 4
    # the collection is now what a fresh load of the new source gives: a plain ingest converges
    again = s.ingest(write_jsonl(tmp_path / "b.jsonl", new))
    assert (again.action, again.upserted) == ("converged", 0)


def test_delete_removes_documents_and_refuses_unknown_ones(s: Sectio, tmp_path: Path) -> None:
    s.ingest(write_jsonl(tmp_path / "a.jsonl", A))
    with pytest.raises(ContractError, match="holds no document 'nope'; nothing was deleted"):
        s.delete(["aspirin", "nope"])
    assert len(points(s)) == 4
    report = s.delete(["aspirin"])
    assert (report.deleted, report.removed, report.collection_count) == (("aspirin",), 2, 2)
    assert {d for d, _ in points(s).values()} == {"metformin", "warfarin"}
    assert "aspirin" not in docs_entry(s)
    assert not s.search("aspirin children fever", mode="lexical").hits or all(
        h.doc_id != "aspirin" for h in s.search("aspirin children fever", mode="lexical").hits
    )


def test_tenants_are_written_apart(s: Sectio, tmp_path: Path) -> None:
    acme = [{**r, "tenant": "acme", "chunk_id": "acme:" + r["chunk_id"]} for r in A]
    globex = [{**r, "tenant": "globex", "chunk_id": "globex:" + r["chunk_id"]} for r in A]
    s.ingest(write_jsonl(tmp_path / "acme.jsonl", acme), collection="shared")
    s.ingest(write_jsonl(tmp_path / "globex.jsonl", globex), collection="shared")
    theirs = points(s, "globex", "shared")
    edited = [{**acme[2], "text": "Metformin: new label text."}]
    report = s.upsert(write_jsonl(tmp_path / "e.jsonl", edited), collection="shared")
    assert (report.tenant, report.changed) == ("acme", ("metformin",))
    assert points(s, "globex", "shared") == theirs
    # a chunk id that is another tenant's point is refused, nothing written
    stolen = [{**globex[0], "tenant": "acme", "doc_id": "new-doc"}]
    with pytest.raises(ContractError, match="already a point of document 'aspirin'"):
        s.upsert(write_jsonl(tmp_path / "x.jsonl", stolen), collection="shared")
    with pytest.raises(ContractError, match="several tenants"):
        s.upsert(write_jsonl(tmp_path / "y.jsonl", [acme[0], globex[0]]), collection="shared")
    assert points(s, "globex", "shared") == theirs
    with pytest.raises(CorpusMismatch, match="no tenant 'initech'"):
        s.delete(["aspirin"], collection="shared", tenant="initech")


def test_upsert_into_a_new_collection_or_tenant_loads_it(s: Sectio, tmp_path: Path) -> None:
    report = s.upsert(write_jsonl(tmp_path / "a.jsonl", A))
    assert report.added == ("aspirin", "metformin", "warfarin") and report.collection_count == 4
    other = [{**r, "tenant": "acme", "chunk_id": "acme:" + r["chunk_id"]} for r in A[:2]]
    joined = s.upsert(write_jsonl(tmp_path / "b.jsonl", other))
    assert (joined.tenant, joined.added, joined.collection_count) == ("acme", ("aspirin",), 6)
    assert isinstance(s.backend, Journaled) and s.backend.read_journal("default") is None


def test_a_served_collection_sees_the_change_at_once(s: Sectio, tmp_path: Path) -> None:
    """The writing process's open collection: same index, new manifest, routes rebuilt."""
    s.ingest(write_jsonl(tmp_path / "a.jsonl", A))
    first = s.ask("What are the warnings of warfarin?")
    assert any(e.doc_id == "warfarin" for e in first.evidence)
    opened = s.collection("default")
    s.delete(["warfarin"])
    assert s.collection("default") is not opened  # a new object: calibration measured again
    assert s.collection("default").index is opened.index
    assert s.collection("default").manifest.chunk_count == 3
    later = s.ask("What are the warnings of warfarin?")
    assert all(e.doc_id != "warfarin" for e in later.evidence)


def test_cli_upsert_delete_and_sync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECTIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    src = write_jsonl(tmp_path / "a.jsonl", A)
    assert main(["ingest", str(src)]) == 0
    edited = write_jsonl(tmp_path / "b.jsonl", [{**A[2], "text": "Metformin, edited."}])
    runs = [
        (["upsert", str(edited)], (0, 1, 0, 0)),
        (["delete", "--doc", "warfarin"], (0, 0, 1, 0)),
        (["ingest", str(src), "--sync"], (1, 1, 0, 1)),
    ]
    for args, want in runs:
        code, out = _run_cli([*args, "--json"])
        assert code == 0, out
        got = json.loads(out)["counts"]
        assert (got["added"], got["changed"], got["deleted"], got["unchanged"]) == want


def _run_cli(args: list[str]) -> tuple[int, str]:
    from click.testing import CliRunner

    from sectio.cli import cli

    result = CliRunner().invoke(cli, args)
    return result.exit_code, result.stdout


def test_cli_upsert_of_a_page_from_inside_its_tree_warns_of_the_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`sectio upsert docs/guides/a.md` gives the page doc_id `a.md`, not `guides/a.md`:
    it is added beside the page it was meant to replace, and the CLI says so."""
    monkeypatch.setenv("SECTIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    tree = tmp_path / "docs"
    (tree / "guides").mkdir(parents=True)
    (tree / "index.md").write_text("# Home\n\nWelcome.\n")
    page = tree / "guides" / "configuration.md"
    page.write_text("# Configuration\n\n## Timeouts\n\nThe default is 300 s.\n")
    assert main(["ingest", str(tree), "-c", "docs"]) == 0
    page.write_text("# Configuration\n\n## Timeouts\n\nThe default is 600 s.\n")
    capsys.readouterr()
    assert main(["upsert", str(page), "-c", "docs"]) == 0
    err = capsys.readouterr().err
    assert "warning: configuration.md was added beside guides/configuration.md" in err
    assert "sectio delete --doc configuration.md -c docs" in err
    assert main(["upsert", str(tree), "-c", "docs"]) == 0
    assert "warning" not in capsys.readouterr().err
