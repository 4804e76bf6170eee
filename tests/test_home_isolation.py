"""Nothing is written outside SECTIO_HOME: a fresh HOME and TMPDIR stay empty.

The real model runs (onnxruntime and fastembed are what used to write there:
``~/.cache/Microsoft/DeveloperTools/.onnxruntime/*``, ``$TMPDIR/.ses`` and
``$TMPDIR/fastembed_cache``), in subprocesses so that onnxruntime is imported
fresh, as a user's first command imports it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import chunk, write_jsonl


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.slow
def test_ingest_search_ask_eval_write_nothing_outside_sectio_home(tmp_path: Path) -> None:
    home, tmpdir, sectio_home = tmp_path / "home", tmp_path / "tmp", tmp_path / "sectio"
    home.mkdir()
    tmpdir.mkdir()
    data = tmp_path / "data"
    data.mkdir()
    corpus = write_jsonl(
        data / "c.jsonl",
        [
            chunk("aspirin", "warnings", 0, "Aspirin may cause stomach bleeding.", doc_title="A"),
            chunk("metformin", "warnings", 0, "Lactic acidosis is rare.", doc_title="Metformin"),
        ],
    )
    (data / "q.jsonl").write_text('{"_id": "q1", "text": "stomach bleeding"}\n')
    (data / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\taspirin\t1\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SECTIO_", "ORT_", "HF_"))}
    env.update(HOME=str(home), TMPDIR=str(tmpdir), SECTIO_HOME=str(sectio_home))
    commands = [
        ["ingest", str(corpus)],
        ["search", "stomach bleeding"],
        ["ask", "metformin warnings"],
        ["eval", str(data / "q.jsonl"), str(data / "qrels.tsv"), "--mode", "routed"],
        ["traces"],
    ]
    for args in commands:
        proc = subprocess.run(
            [sys.executable, "-m", "sectio.cli", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=data,
            timeout=300,
        )
        assert proc.returncode == 0, (args, proc.stderr)
    assert (sectio_home / "cache" / "embeddings.sqlite").exists()  # the model did run
    assert _tree(home) == []
    assert _tree(tmpdir) == []
    assert sorted(p.name for p in data.iterdir()) == ["c.jsonl", "q.jsonl", "qrels.tsv"]
