"""Writes through the Qdrant server adapter hold the same per-collection writer lock as
a Qdrant Edge home (issue 17: one writer, explicitly): a second writer on this machine
is refused in one line naming the first's pid and command.

The holder is a second process (a lock held by another process is what matters); the
server side is qdrant-client local mode, or a URL nothing listens on where only the
lock is exercised (building the client does not connect).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sectio import Sectio, Settings
from sectio.errors import CollectionBusy
from sectio.index.factory import server_backend, server_lock_root
from tests.helpers import chunk, write_jsonl

URL = "http://127.0.0.1:9"

#: Holds collection 'docs' as a server-adapter ingest does, for argv[1] = home, argv[2] = URL.
HOLD_WRITING = """
import sys, time
from pathlib import Path
from sectio import Settings
from sectio.index.factory import server_backend
backend = server_backend(Settings(home=Path(sys.argv[1]), qdrant_url=sys.argv[2]))
with backend.writing("docs", "ingest"):
    print("held", flush=True)
    time.sleep(60)
"""

#: Holds the lock of collection 'docs' of local-mode storage argv[2] (home argv[1]):
#: qdrant-client local mode lets one process open its folder, so the holder takes
#: only the lock.
HOLD_LOCK = """
import sys, time
from pathlib import Path
from sectio import Settings
from sectio.index.edge.locks import WriterLocks
from sectio.index.factory import server_lock_root
root = server_lock_root(Settings(home=Path(sys.argv[1]), qdrant_location=sys.argv[2]))
with WriterLocks(root).hold("docs", "ingest", "collection 'docs'"):
    print("held", flush=True)
    time.sleep(60)
"""


def _start(script: str, *args: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", script, *args], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


@pytest.fixture
def stop() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        proc.kill()
        proc.wait()


def test_a_second_server_writer_is_refused_naming_the_first(
    tmp_path: Path, stop: list[subprocess.Popen[str]]
) -> None:
    home = tmp_path / "home"
    first = _start(HOLD_WRITING, str(home), URL)
    stop.append(first)
    backend = server_backend(Settings(home=home, qdrant_url=URL))
    with pytest.raises(CollectionBusy) as refused:
        with backend.writing("docs", "ingest"):
            pass
    message = str(refused.value)
    assert message.startswith(f"collection 'docs' on {URL} is busy: held by pid {first.pid}")
    assert "(ingest: " in message and "\n" not in message
    with backend.writing("other", "ingest"):  # another collection is free
        pass
    first.kill()
    first.wait()
    with backend.writing("docs", "ingest"):  # the kernel dropped the dead holder's lock
        pass


def test_ingest_through_the_server_adapter_takes_the_lock(
    tmp_path: Path, stop: list[subprocess.Popen[str]]
) -> None:
    home, location = tmp_path / "home", str(tmp_path / "q")
    settings = Settings(home=home, embedder="fake", qdrant_location=location)
    corpus = write_jsonl(tmp_path / "c.jsonl", [chunk("d", "s", i, f"text {i}") for i in range(3)])
    holder = _start(HOLD_LOCK, str(home), location)
    stop.append(holder)
    with Sectio(settings) as s:
        assert s.backend.kind == "qdrant-local"
        with pytest.raises(CollectionBusy, match=f"held by pid {holder.pid} \\(ingest: "):
            s.ingest(corpus, collection="docs")
        assert not s.backend.exists("docs")
        holder.kill()
        holder.wait()
        assert s.ingest(corpus, collection="docs").collection_count == 3


def test_lock_folders_are_per_endpoint(tmp_path: Path) -> None:
    home = tmp_path / "home"
    a = server_lock_root(Settings(home=home, qdrant_url="http://a:6333"))
    assert a == server_lock_root(Settings(home=home, qdrant_url="http://a:6333"))
    assert a != server_lock_root(Settings(home=home, qdrant_url="http://b:6333"))
    assert a is not None and a.parent == home / "locks" / "qdrant"
    assert server_lock_root(Settings(home=home, qdrant_location=":memory:")) is None
