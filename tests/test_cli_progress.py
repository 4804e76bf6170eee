"""Progress on stderr: a sane rate and ETA, periodic lines in a pipe, quiet with --json."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from sectio.cli.progress import PhaseReporter, progress_line, progress_reporter
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


def test_ingest_in_a_pipe_reports_each_phase_on_stderr(tmp_path: Path) -> None:
    rows = [chunk(f"d{i}", "s", 0, f"text number {i}") for i in range(7)]
    corpus = write_jsonl(tmp_path / "c.jsonl", rows)
    env = {
        **os.environ,
        "SECTIO_HOME": str(tmp_path / "h"),
        "SECTIO_EMBEDDER": "fake",
        "SECTIO_UPSERT_BATCH_SIZE": "2",
    }
    base = [sys.executable, "-m", "sectio.cli", "ingest", str(corpus)]
    proc = subprocess.run(
        [*base, "--profile-time"], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr.splitlines()
    upsert = re.compile(r"^ingest default \[upsert\]: 7/7 chunks \(100%\), .*done")
    assert [x for x in err if upsert.match(x)], proc.stderr
    ended = [m.group(1) for x in err if (m := re.match(r"^ingest default \[(\w+)\]", x))]
    assert ended == ["tokenize", "embed_d0", "upsert"]  # short phases without units: quiet
    # --profile-time: the phase table, every phase and the total
    table = [x.split()[0] for x in err[err.index(next(x for x in err if x.startswith("phase "))) :]]
    phases = ["model", "read", "plan", "tokenize", "embed_d0", "upsert", "optimize", "total"]
    assert table[1:9] == phases, proc.stderr
    assert proc.stdout == ""
    quiet = subprocess.run(
        [*base, "--json", "-c", "other"], capture_output=True, text=True, env=env, timeout=120
    )
    assert quiet.returncode == 0 and "ingest other [" not in quiet.stderr
    report = json.loads(quiet.stdout)  # stdout is the report alone
    assert set(report["phases"]) >= {"read", "tokenize", "embed_d0", "upsert", "optimize"}
    assert all(isinstance(v, float) and v >= 0 for v in report["phases"].values())


def test_no_rate_before_half_a_second() -> None:
    assert progress_line("x", "chunks", 256, 1000, 0.001) == "x: 256/1,000 chunks (25%)"
    assert progress_line("x", "chunks", 256, 1000, 0.49) == "x: 256/1,000 chunks (25%)"
    assert progress_line("x", "chunks", 256, 1000, 0.5).endswith("512.0 chunks/s, ETA 1s")
    assert progress_line("x", "chunks", 7, 7, 0.01) == "x: 7/7 chunks (100%), done in 0.0s"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_gets_one_status_line_rewritten_in_place() -> None:
    ticks = iter([0.0, 0.1, 2.0, 2.0, 3.0])
    out = _Terminal()
    rep = PhaseReporter("ingest c", stream=out, clock=lambda: next(ticks))
    rep("embed_d0", 0, 1000)  # 0.0 s
    rep("embed_d0", 256, 1000)  # 0.1 s: too early for a rate
    rep("embed_d0", 512, 1000)  # 2.0 s
    rep.close()
    frames = out.getvalue().split("\r\x1b[K")
    assert frames[2] == "ingest c [embed_d0]: 256/1,000 chunks (25%)"
    assert frames[3] == "ingest c [embed_d0]: 512/1,000 chunks (51%), 256.0 chunks/s, ETA 2s"
    assert frames[-1] == ""  # cleared at the end: nothing left on the terminal line
    assert "\n" not in out.getvalue()


def test_pipe_heartbeat_names_a_phase_without_units() -> None:
    now = [0.0]
    out = io.StringIO()
    rep = PhaseReporter("ingest c", stream=out, interval_s=10, clock=lambda: now[0])
    rep("optimize", 0, 0)
    for t in (4.0, 11.0, 15.0, 22.0):
        now[0] = t
        rep.beat()
    now[0] = 25.0
    rep.close()
    assert out.getvalue().splitlines() == [
        "ingest c [optimize]: 11s",
        "ingest c [optimize]: 22s",
        "ingest c [optimize]: done in 25s",
    ]
