"""Helpers shared by the benchmark scripts: subprocess phases, RSS, tables."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sectio import Sectio

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
#: Benchmark homes (SECTIO_HOME per set; ignored by git).
BENCH = ROOT / ".sectio-bench"


def peak_rss_mb() -> float:
    """Peak resident set size of this process, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def dir_size_mb(path: Path) -> float:
    """Bytes on disk under ``path``, in MiB."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / (1024.0 * 1024.0)


def run_phase(
    script: Path, phase: str, *args: str, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run ``script phase args`` in a fresh process (so peak RSS is per phase); parse its JSON."""
    proc = subprocess.run(
        [sys.executable, str(script), phase, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"phase {phase} failed:\n{proc.stderr[-3000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def print_table(title: str, headers: list[str], rows: list[list[Any]]) -> None:
    """A plain Markdown table on stdout."""
    print(f"\n### {title}\n")
    print("| " + " | ".join(headers) + " |")
    print("|" + "|".join("---" for _ in headers) + "|")
    for row in rows:
        print("| " + " | ".join(_fmt(v) for v in row) + " |")


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:,.2f}" if v < 100 else f"{v:,.0f}"
    return str(v)


def jsonl(path: Path) -> Iterable[dict[str, Any]]:
    """The records of a JSON Lines file, blank lines skipped."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def open_drugs() -> tuple[Sectio, str]:
    """The demo drug labels with MiniLM, collection ``labels`` (built on first use),
    in the home the answerability and seed-number benchmarks share."""
    from sectio import Sectio, Settings

    sx = Sectio(Settings(home=BENCH / "answerability-drugs", embedder="minilm", traces=False))
    if not sx.backend.exists("labels"):
        sx.ingest(
            ROOT / "src" / "sectio" / "demo" / "data" / "drug_labels.jsonl",
            profile="en_drug_label",
            collection="labels",
        )
    return sx, "labels"
