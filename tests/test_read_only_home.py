"""A read-only ``SECTIO_HOME`` (issue 17 item 7) serves reads: the embedding cache
degrades to read-only (or off) with one warning, shards are read from a private
temporary copy (Qdrant Edge 0.9 opens them for writing), writes fail in one line.

How the folder is made read-only is in :mod:`tests.helpers.readonly` (write bits
cleared, or a read-only bind mount as root).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from sectio import Sectio, Settings
from sectio.cli import main
from sectio.embed.cache import CachedEmbedder
from sectio.embed.fake import FakeEmbedder
from sectio.errors import IndexError_
from sectio.index.edge import readonly
from sectio.index.edge.store import EdgeBackend
from tests.helpers import chunk, write_jsonl
from tests.helpers.readonly import read_only

TEXTS = ["aspirin relieves pain", "metformin treats diabetes"]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home with one collection, its embedding cache holding both texts."""
    settings = Settings(home=tmp_path / "home", embedder="fake")
    corpus = write_jsonl(
        tmp_path / "c.jsonl", [chunk("d", "s", i, text) for i, text in enumerate(TEXTS)]
    )
    with Sectio(settings) as s:
        s.ingest(corpus)
    return settings.home


def test_cache_on_a_read_only_home_serves_what_it_holds(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    inner = FakeEmbedder(dimensions=384)
    with read_only(home) as view, caplog.at_level(logging.WARNING, "sectio.embed.cache"):
        cache = CachedEmbedder(inner, view / "cache" / "embeddings.sqlite")
        assert not cache.writable
        [warning] = [r.getMessage() for r in caplog.records]
        assert warning.startswith("embedding cache read-only: ")
        known = cache.embed_documents(TEXTS)
        assert (cache.stats.computed, cache.stats.cached) == (0, 2)
        fresh = cache.embed_documents(["a text the cache never saw"])
        again = cache.embed_documents(["a text the cache never saw"])
        assert cache.stats.computed == 2  # computed each time: nothing could be stored
        assert np.allclose(fresh, again) and known.shape == (2, 384)
        assert cache.embed_query("aspirin").shape == (384,)
        cache.close()


def test_cache_without_a_file_on_a_read_only_home_is_off(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with read_only(empty) as view, caplog.at_level(logging.WARNING, "sectio.embed.cache"):
        cache = CachedEmbedder(FakeEmbedder(dimensions=8), view / "cache" / "e.sqlite")
        assert "embedding cache off: " in caplog.text
        assert cache.embed_documents(TEXTS).shape == (2, 8)
        cache.close()
        assert not (view / "cache").exists()


def test_cli_search_on_a_read_only_home_answers(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with read_only(home) as view:
        monkeypatch.setenv("SECTIO_HOME", str(view))
        monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
        capsys.readouterr()
        rc = main(["search", "aspirin", "--json"])
        out = capsys.readouterr()
    assert rc == 0, out.err
    assert json.loads(out.out)["hits"][0]["text"] == "aspirin relieves pain"


def test_cli_writes_on_a_read_only_home_are_one_line_errors(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    more = write_jsonl(tmp_path / "more.jsonl", [chunk("e", "s", 0, "ibuprofen")])
    with read_only(home) as view:
        monkeypatch.setenv("SECTIO_HOME", str(view))
        monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
        for args in (["ingest", str(more)], ["gc"]):
            capsys.readouterr()
            rc = main(args)
            [line] = capsys.readouterr().err.strip().splitlines()[-1:]
            assert rc == 1, (args, line)
            assert line.startswith("error: ") and "is read-only" in line, line
            assert "internal error" not in line


def _tmp_copies() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob(readonly.COPY_PREFIX + "*"))


def test_search_on_a_read_only_home(home: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Qdrant Edge 0.9 opens a shard for writing: a read-only one is read from a private
    sparse copy in the temp folder, removed when the collection is closed."""
    before = _tmp_copies()
    with (
        read_only(home) as view,
        caplog.at_level(logging.WARNING, "sectio.index.edge.readonly"),
        Sectio(Settings(home=view, embedder="fake")) as s,
    ):
        hits = s.search("aspirin", tenant="default").hits
        assert hits[0].text == "aspirin relieves pain"
        assert s.count(tenant="default") == 2
        assert len(_tmp_copies() - before) == 1
        assert "reading it from a temporary copy" in caplog.text
    assert _tmp_copies() == before


def test_a_dead_process_copy_is_swept(home: Path) -> None:
    proc = subprocess.Popen(["true"])  # a pid that has exited
    proc.wait()
    stale = Path(tempfile.mkdtemp(prefix=f"{readonly.COPY_PREFIX}{proc.pid}-"))
    (stale / "shard").mkdir()
    mine = Path(tempfile.mkdtemp(prefix=f"{readonly.COPY_PREFIX}{os.getpid()}-"))
    try:
        assert stale in readonly.sweep(Path(tempfile.gettempdir()))
        assert not stale.exists() and mine.exists()
    finally:
        shutil.rmtree(mine, ignore_errors=True)


def test_serve_lock_on_a_read_only_store_is_not_needed(home: Path) -> None:
    with read_only(home) as view:
        backend = EdgeBackend(view / "collections")
        held = backend.hold_serving()  # no lock file can be made; no writer can run either
        held.release()
        with pytest.raises(IndexError_, match="cannot be written: .* is read-only"):
            with backend.writing("default", "ingest"):
                pass


def test_a_home_copied_keeps_its_holes_bytes_and_times(home: Path, tmp_path: Path) -> None:
    """``copy_tree`` writes only data: a home's preallocated shard files stay sparse (a
    plain ``shutil.copytree`` writes some 300 MB for these two chunks), every byte and
    mtime the same, and the copy serves."""
    copy = tmp_path / "copy"
    readonly.copy_tree(home, copy)
    files = [p for p in home.rglob("*") if p.is_file()]
    for src in files:
        dst = copy / src.relative_to(home)
        assert dst.read_bytes() == src.read_bytes(), src
        assert dst.stat().st_mtime == src.stat().st_mtime, src
    allocated = sum(p.stat().st_blocks * 512 for p in copy.rglob("*") if p.is_file())
    apparent = sum(p.stat().st_size for p in files)
    assert allocated < apparent / 10  # holes stayed holes
    with Sectio(Settings(home=copy, embedder="fake")) as s:
        assert s.search("aspirin", tenant="default").hits[0].text == "aspirin relieves pain"
