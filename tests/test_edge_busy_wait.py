"""Two short-lived readers of one edge collection at once (two `sectio ask`): the second
waits for the first instead of failing (edge opens a shard in one process at a time)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from sectio import Sectio, Settings
from sectio.errors import CollectionBusy
from sectio.index.edge import store as edge_store

HOLD = """
import sys, time
from sectio import Sectio, Settings
with Sectio(Settings(home=sys.argv[1], embedder="fake")) as s:
    s.collection("default")
    print("open", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _holder(home: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(home), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "open"
    return proc


def test_a_reader_waits_for_another_short_lived_reader(
    small_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    with Sectio(Settings(home=home, embedder="fake")) as s:
        s.ingest(small_corpus)
    proc = _holder(home, 1.0)
    try:
        t0 = time.monotonic()
        with Sectio(Settings(home=home, embedder="fake")) as s:
            assert s.collection("default").index.count() > 0
        assert time.monotonic() - t0 < edge_store.BUSY_WAIT_S
    finally:
        proc.wait(timeout=30)
    proc = _holder(home, 5.0)
    monkeypatch.setattr(edge_store, "BUSY_WAIT_S", 0.3)
    try:
        with Sectio(Settings(home=home, embedder="fake")) as s:
            with pytest.raises(
                CollectionBusy,
                match=r"'default' is open in another process .*"
                r"waited 0.3 s",
            ):
                s.collection("default")
    finally:
        proc.kill()
        proc.wait(timeout=30)
