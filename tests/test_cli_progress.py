"""Progress on stderr: a sane rate and ETA, periodic lines in a pipe, quiet with --json."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

from sectio.cli.progress import progress_reporter
from tests.helpers import chunk, write_jsonl


def test_pipe_gets_periodic_lines_with_rate_and_eta() -> None:
    ticks = iter([0.0, 2.0, 4.0, 12.0, 13.0, 20.0])  # start, then one reading per call
    out = io.StringIO()  # not a terminal
    update, close = progress_reporter(
        "ingest c", stream=out, interval_s=10, clock=lambda: next(ticks)
    )
    assert update is not None
    for done in (256, 512, 768, 1000):
        update(done, 2000)
    close()
    lines = out.getvalue().splitlines()
    assert lines == [
        "ingest c: 768/2,000 chunks (38%), 64.0 chunks/s, ETA 19s",  # 12 s in: the first line
        "ingest c: 1,000/2,000 chunks (50%), 76.9 chunks/s, ETA 13s",  # the last state, at close
    ]


def test_ingest_in_a_pipe_reports_progress_on_stderr(tmp_path: Path) -> None:
    rows = [chunk(f"d{i}", "s", 0, f"text number {i}") for i in range(7)]
    corpus = write_jsonl(tmp_path / "c.jsonl", rows)
    env = {
        **os.environ,
        "SECTIO_HOME": str(tmp_path / "h"),
        "SECTIO_EMBEDDER": "fake",
        "SECTIO_UPSERT_BATCH_SIZE": "2",
    }
    base = [sys.executable, "-m", "sectio.cli", "ingest", str(corpus)]
    proc = subprocess.run(base, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    line = re.compile(r"^ingest default: 7/7 chunks \(100%\), [\d,.]+ chunks/s, done$")
    assert [x for x in proc.stderr.splitlines() if line.match(x)], proc.stderr
    quiet = subprocess.run(
        [*base, "--json", "--replace"], capture_output=True, text=True, env=env, timeout=120
    )
    assert quiet.returncode == 0 and "chunks/s" not in quiet.stderr
