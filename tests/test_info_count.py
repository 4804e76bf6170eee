"""``sectio info`` counts a Qdrant Edge collection without opening its shard while the
shard is the one sectio last counted (:mod:`sectio.index.edge.tally`), opens and counts
it again whenever anything under it changed, and says when the count and the manifest
disagree."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from sectio import Sectio, Settings
from sectio.cli import main
from sectio.index.edge import tally
from sectio.index.edge.readonly import copy_tree
from sectio.index.edge.store import EdgeBackend
from sectio.index.ids import point_id_for
from sectio.index.port import PointData
from tests.test_cli_startup import probe


@pytest.fixture
def loaded(settings: Settings, small_corpus: Path) -> Path:
    """``settings``' home with the five-chunk corpus loaded; returns the live version."""
    with Sectio(settings) as s:
        s.ingest(small_corpus)
    live = EdgeBackend(settings.collections_dir)._live_dir("default")
    assert live is not None
    return live


def info(settings: Settings) -> dict[str, object]:
    with Sectio(settings) as s:
        [coll] = s.info()["collections"]
    return dict(coll)


def test_a_load_records_its_count_and_info_opens_no_shard(
    loaded: Path, settings: Settings, tmp_path: Path
) -> None:
    assert tally.recall(loaded) == 5
    rc, modules, out = probe(tmp_path, settings.home, "info")
    assert rc == 0 and "default: 5 points" in out and "warning" not in out
    assert "qdrant_edge" not in modules and "numpy" not in modules, modules
    assert info(settings)["matches_manifest"] is True


def test_every_close_through_the_store_records_the_count(loaded: Path, settings: Settings) -> None:
    before = tally.fingerprint(loaded / "shard")
    with Sectio(settings) as s:
        assert s.search("aspirin", tenant="default").hits
    assert tally.fingerprint(loaded / "shard") != before  # an open rewrites some files
    assert tally.recall(loaded) == 5  # recorded at the close, after them


def test_a_changed_shard_is_opened_and_counted_again(loaded: Path, settings: Settings) -> None:
    index = EdgeBackend(settings.collections_dir).open("default")
    index.count_record = None  # a writer that is not sectio's store: it records nothing
    try:
        assert tally.recall(loaded) is None  # open (here): never read from the record
        extra = PointData(point_id_for("extra"), [0.5] * 384, {}, {"chunk_id": "extra"})
        index.upsert([extra])
    finally:
        index.close()
    assert tally.recall(loaded) is None  # the shard's files changed
    coll = info(settings)
    assert coll["count"] == 6 and coll["matches_manifest"] is False
    assert tally.recall(loaded) == 6  # the open recorded what it counted


def test_a_count_the_manifest_disagrees_with_is_reported(
    loaded: Path,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    manifest = json.loads((loaded / "manifest.json").read_text())
    manifest["chunk_count"] = 7
    (loaded / "manifest.json").write_text(json.dumps(manifest))
    assert tally.recall(loaded) == 5  # the shard did not change: its record holds
    for key in ("SECTIO_QDRANT_URL", "SECTIO_QDRANT_LOCATION"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SECTIO_HOME", str(settings.home))
    capsys.readouterr()
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "default: 5 points" in out
    assert "warning: its manifest says 7 points, its index holds 5" in out
    assert main(["info", "--json"]) == 0
    [coll] = json.loads(capsys.readouterr().out)["collections"]
    assert coll["count"] == 5 and coll["matches_manifest"] is False


def test_a_copied_home_counts_its_own_shard(
    loaded: Path, settings: Settings, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    copy_tree(settings.home, copy)  # same bytes and mtimes, new inodes
    copied = copy / loaded.relative_to(settings.home)
    assert tally.recall(copied) is None
    assert info(Settings(home=copy, embedder="fake"))["count"] == 5
    assert tally.recall(copied) == 5


@pytest.mark.parametrize(
    "change",
    [
        lambda r: "not json",
        lambda r: "[]",
        lambda r: json.dumps({**r, "points": True}),
        lambda r: json.dumps({**r, "points": -1}),
        lambda r: json.dumps({**r, "format": 2}),
        lambda r: json.dumps({**r, "fingerprint": "0" * 64}),
    ],
    ids=["garbage", "list", "bool", "negative", "format", "fingerprint"],
)
def test_an_unusable_record_is_ignored(
    loaded: Path, settings: Settings, change: Callable[[dict[str, object]], str]
) -> None:
    path = loaded / tally.COUNT_FILE
    path.write_text(change(json.loads(path.read_text())))
    assert tally.recall(loaded) is None
    assert info(settings)["count"] == 5  # opened and counted, and recorded again
    assert tally.recall(loaded) == 5
