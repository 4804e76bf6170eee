"""Releases named by their version: does ``ask`` read the release a question names, whole?

Set ``benchmarks/data/changelogs/`` (five projects' real changelogs as one docs tree:
Requests, Poetry, Jest, HTTPX, Flask; see its README): questions naming one release
("What changed in Requests 2.31.0?", "v2.31.0 release notes") and releases no changelog
has. Per split (``dev``, ``holdout``), with the real MiniLM embedder and the default
``docs`` profile:

* ``ask h@1``: ``ask`` resolved the gold release's section (``section_resolution``), or
  its first section row is the release's or under it;
* ``search h@1``: plain ``sectio search``'s first row (a section's, derived rows passed
  over) is the release's or under it;
* ``release first``: ``ask``'s rows of the release come before any other section's row
  (the release read whole, then the hybrid rows beside it);
* ``absent, none read``: questions naming a release no changelog has that resolve no
  section (a guess would be wrong); ``bare, none read``: a release asked without its
  project ("What's new in v2.29.0?"), which in a tree of several projects names no
  release (never a guess).

Usage::

    .venv/bin/python benchmarks/versions.py [--reingest] [--show-misses]

The collection is built once under ``.sectio-bench/changelogs-minilm`` and reused.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "benchmarks" / "data"))
sys.path.insert(0, str(ROOT / "benchmarks" / "data" / "changelogs"))

from _common import BENCH, jsonl, print_table  # noqa: E402
from build import TREE, write_tree  # noqa: E402

from sectio import Sectio, Settings  # noqa: E402

HOME = BENCH / "changelogs-minilm"
QUESTIONS = ROOT / "benchmarks" / "data" / "changelogs" / "questions.jsonl"


def under(key: str, gold: str) -> bool:
    """Whether section ``key`` is the gold release's or a section below it."""
    return key == gold or key.startswith(f"{gold}/")


def open_collection(reingest: bool) -> tuple[Sectio, float | None]:
    """The changelogs collection (built when missing; ``reingest``: from scratch, timed)."""
    if reingest and HOME.exists():
        shutil.rmtree(HOME)
    if not TREE.exists():
        write_tree()
    sx = Sectio(Settings(home=HOME, embedder="minilm", traces=False))
    took = None
    if not sx.backend.exists("changelogs"):
        t0 = time.perf_counter()
        sx.ingest(TREE, fmt="markdown", collection="changelogs")
        took = time.perf_counter() - t0
    return sx, took


def sections(rows: list[Any]) -> list[Any]:
    """The rows of sections (derived rows, ``_d1``.., passed over)."""
    return [e for e in rows if not str(e.section_key).startswith("_")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reingest", action="store_true")
    ap.add_argument("--show-misses", action="store_true")
    args = ap.parse_args()
    sx, took = open_collection(args.reingest)
    stats: dict[str, dict[str, list[float]]] = {}
    misses: list[str] = []
    times: list[float] = []
    try:
        for q in jsonl(QUESTIONS):
            m = q["metadata"]
            split = stats.setdefault(m["split"], {})
            t0 = time.perf_counter()
            result = sx.ask(q["text"], collection="changelogs", tenant="default", record=False)
            times.append((time.perf_counter() - t0) * 1000)
            facts = result.details.get("section_resolution") or {}
            if m["kind"] != "release":
                split.setdefault(m["kind"], []).append(float(not facts))
                if facts:
                    misses.append(f"- [{m['split']}/{m['kind']}] {q['text']!r} -> {facts}")
                continue
            doc, gold = m["gold"].split("#", 1)
            rows = sections(result.evidence)
            first = rows[0] if rows else None
            hit = (facts.get("section_key") == gold) or (
                first is not None and first.doc_id == doc and under(first.section_key, gold)
            )
            top = sections(sx.search(q["text"], collection="changelogs", tenant="default").hits)
            s_hit = bool(top) and top[0].doc_id == doc and under(top[0].section_key, gold)
            own = [i for i, e in enumerate(rows) if e.doc_id == doc and under(e.section_key, gold)]
            split.setdefault("ask", []).append(float(hit))
            split.setdefault("search", []).append(float(s_hit))
            split.setdefault("first", []).append(float(bool(own) and own == list(range(len(own)))))
            if not hit:
                got = f"{first.doc_id}#{first.section_key}" if first else None
                misses.append(f"- [{m['split']}] {q['text']!r} -> {got} (want {m['gold']})")
    finally:
        sx.close()

    def share(values: list[float]) -> str:
        return (
            f"{statistics.fmean(values):.3f} ({int(sum(values))}/{len(values)})" if values else "-"
        )

    print_table(
        "Releases named by version (changelogs, MiniLM, docs profile)",
        ["split", "ask h@1", "search h@1", "release first", "absent, none read", "bare, none read"],
        [
            [
                s,
                *(share(v[k]) for k in ("ask", "search", "first", "absent", "bare")),
            ]
            for s, v in sorted(stats.items())
        ],
    )
    print(f"\nask p50 {statistics.median(times):.1f} ms over {len(times)} questions", end="")
    print(f"; ingest {took:.1f} s" if took is not None else "")
    if args.show_misses and misses:
        print("\nMisses:")
        print("\n".join(misses))


if __name__ == "__main__":
    main()
