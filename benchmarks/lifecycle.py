"""Document lifecycle: change one document of a large collection, beside a whole ``--replace``;
and a docs tree synced from one git commit to the next.

``large``: a collection of N synthetic chunks (120 words from a 5,000-word Zipf
vocabulary, 4 chunks a document), built once under ``.sectio-bench/`` and kept.
The process holds it open as ``sectio serve`` does (one engine lock; a write is
planned and applied under it, embedded outside it, as the HTTP admin endpoints
run it). Measured: one document changed with ``upsert`` (time until a search
returns the new text, the embedding's share, bytes written: ``write()`` bytes
of the process and the growth of the collection's folder), search p50 / p99
idle and during a stream of upserts (each search's time includes its wait for
the lock, as a request's does), and a whole ``--replace`` of the same
collection (vectors cached: what a replace costs beyond embedding).

``git``: a repository's docs tree at two commits (``git archive``), the old one
ingested, then ``sync`` to the new one and back: the documents added, changed,
deleted and unchanged beside what ``git diff`` says, and the embeddings computed.

    python benchmarks/lifecycle.py large --chunks 100000 --embedder fake
    python benchmarks/lifecycle.py large --chunks 3000 --embedder minilm
    python benchmarks/lifecycle.py git --repo /work/.mirror/python-poetry+poetry/repo \\
        --old b7cd0b041~1 --new 5e1fd5e6c
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sectio import Sectio, Settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import BENCH, dir_size_mb, print_table

DOC_CHUNKS = 4


def _words(vocab: int, rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    out: set[str] = set()
    while len(out) < vocab:
        out.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 9))))
    return sorted(out)


def _row(i: int, text: str, doc: str | None = None) -> dict[str, Any]:
    return {
        "chunk_id": f"c{i}",
        "doc_id": doc or f"d{i // DOC_CHUNKS}",
        "section_key": "s",
        "part_index": i % DOC_CHUNKS,
        "text": text,
    }


def _corpus(path: Path, chunks: int, words: list[str], rng: random.Random) -> None:
    weights = [1.0 / (i + 1) for i in range(len(words))]
    with path.open("w", encoding="utf-8") as f:
        for i in range(chunks):
            f.write(json.dumps(_row(i, " ".join(rng.choices(words, weights, k=120)))) + "\n")


def _wchar() -> int:
    """Bytes this process passed to write() so far (``/proc/self/io``)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    return 0


def _pct(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return statistics.median(times), times[int(0.99 * (len(times) - 1))]


def _edit(root: Path, doc: int, version: int, rng: random.Random, words: list[str]) -> Path:
    """Document ``d<doc>`` in a new version holding a token no other text has."""
    marker = f"zzmark{doc}v{version}"
    rows = [
        _row(doc * DOC_CHUNKS + p, f"{marker} " + " ".join(rng.choices(words, k=119)))
        for p in range(DOC_CHUNKS)
    ]
    path = root / f"edit-{doc}-{version}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


class Served:
    """One open engine behind one lock: the serving model of ``sectio serve``."""

    def __init__(self, s: Sectio, name: str) -> None:
        self.s, self.name, self.lock = s, name, threading.Lock()

    def search(self, query: str, mode: str = "hybrid") -> Any:
        with self.lock:
            return self.s.search(query, collection=self.name, mode=mode, top_k=10)

    def upsert(self, path: Path) -> Any:
        from sectio.ingest.phases import PhaseClock

        s, clock = self.s, PhaseClock()
        records = s.read_records(path)
        with self.lock:
            plan = s.plan_documents(self.name, "default", records, action="upsert")
        prepared = s.prepare_documents(plan, clock)
        with self.lock:
            return s.apply_documents(prepared, clock)


def _build(home: Path, corpus: Path, embedder: str, name: str) -> float:
    meta = home / "bench.json"
    if meta.is_file():
        return float(json.loads(meta.read_text())["build_s"])
    with Sectio(Settings(home=home, embedder=embedder, traces=False)) as s:
        t0 = time.perf_counter()
        s.ingest(corpus, collection=name)
        took = time.perf_counter() - t0
    meta.write_text(json.dumps({"build_s": took}))
    return took


def _searches(served: Served, queries: list[str], seconds: float = 0.0) -> list[float]:
    """Each search's ms: every query once, then again until ``seconds`` have passed."""
    out: list[float] = []
    start = time.perf_counter()
    while not out or time.perf_counter() - start < seconds:
        for q in queries:
            t0 = time.perf_counter()
            served.search(q)
            out.append((time.perf_counter() - t0) * 1000)
    return out


def _stream(
    served: Served, paths: list[Path], stop: threading.Event, done: list[float], rate: float
) -> None:
    """Upserts one after another (``rate`` 0) or ``rate`` a second, until ``stop``."""
    i = 0
    while not stop.is_set():
        t0 = time.perf_counter()
        served.upsert(paths[i % len(paths)])
        done.append(time.perf_counter() - t0)
        i += 1
        if rate:
            stop.wait(max(0.0, 1.0 / rate - (time.perf_counter() - t0)))


def _during(
    served: Served, paths: list[Path], queries: list[str], rate: float, seconds: float
) -> list[Any]:
    """Search p50 / p99 while upserts stream at ``rate`` a second (0: back to back)."""
    stop, done = threading.Event(), []
    writer = threading.Thread(target=_stream, args=(served, paths, stop, done, rate))
    writer.start()
    t0 = time.perf_counter()
    busy = _pct(_searches(served, queries, seconds))
    took = time.perf_counter() - t0
    stop.set()
    writer.join()
    label = f"{rate:g} upserts/s" if rate else "upserts back to back"
    return [f"during {label}", *busy, len(done), len(done) / took if took else 0.0]


def _measured(fn: Callable[[], Any], home: Path) -> tuple[Any, float, float, float]:
    """``fn()``, its seconds, its write() MiB and the home's growth in MiB."""
    size, wrote = dir_size_mb(home), _wchar()
    t0 = time.perf_counter()
    out = fn()
    took = time.perf_counter() - t0
    return out, took, (_wchar() - wrote) / 2**20, dir_size_mb(home) - size


def large(args: argparse.Namespace) -> None:
    rng = random.Random(7)
    words = _words(5000, rng)
    base = BENCH / f"lifecycle-{args.embedder}-{args.chunks}"
    base.mkdir(parents=True, exist_ok=True)
    corpus = base / "corpus.jsonl"
    if not corpus.is_file():
        _corpus(corpus, args.chunks, words, random.Random(11))
    home, name = base / "home", "big"
    build_s = _build(home, corpus, args.embedder, name)
    work = Path(tempfile.mkdtemp(prefix="lifecycle-", dir=BENCH))
    queries = [" ".join(rng.sample(words[:2000], 3)) for _ in range(args.queries)]
    settings = Settings(home=home, embedder=args.embedder, traces=False)
    with Sectio(settings) as s:
        served = Served(s, name)
        for q in queries[:20]:  # warm: model, calibration, caches
            served.search(q)
        idle = _pct(_searches(served, queries, args.seconds))
        stamp = int(time.time())
        edit = _edit(work, 7, stamp, rng, words)

        def change() -> float:
            report = served.upsert(edit)
            hits = served.search(f"zzmark7v{stamp}", mode="lexical").hits
            assert hits and hits[0].doc_id == "d7", "the new version is not visible"
            return float(report.phases.get("embed_d0", 0.0))

        embed_s, visible_s, one_mb, one_growth = _measured(change, home)
        paths = [_edit(work, 100 + i % 50, stamp + i, rng, words) for i in range(100)]
        streams = [_during(served, paths, queries, r, args.seconds) for r in args.rates]
        _, replace_s, replace_mb, replace_growth = _measured(
            lambda: s.ingest(corpus, collection=name, replace=True), home
        )
    shutil.rmtree(work, ignore_errors=True)
    print_table(
        f"Change one document ({DOC_CHUNKS} chunks) of a {args.chunks:,}-chunk collection, "
        f"Qdrant Edge, {args.embedder} embedder, in-process serving model",
        ["what", "seconds", "of which embedding", "write() MiB", "folder growth MiB"],
        [
            ["upsert one document: time to visible", visible_s, embed_s, one_mb, one_growth],
            ["whole `--replace` (vectors cached)", replace_s, "-", replace_mb, replace_growth],
            ["first build (cold)", build_s, "-", "-", dir_size_mb(home)],
        ],
    )
    rows: list[list[Any]] = [["idle", *idle, 0, 0.0, 1.0]]
    rows += [[*row, row[1] / idle[0]] for row in streams]
    print_table(
        f"Hybrid search ms, {args.queries} queries repeated for {args.seconds:g} s per state "
        "(lock wait included)",
        ["state", "p50", "p99", "upserts done", "upserts/s", "p50 / idle p50"],
        rows,
    )


def _archive(repo: str, commit: str, folder: str, dest: Path) -> Path:
    dest.mkdir(parents=True)
    tar = subprocess.run(
        ["git", "--git-dir", repo, "archive", commit, folder], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(dest)], input=tar.stdout, check=True)
    return dest / folder


def _git_counts(repo: str, old: str, new: str, folder: str) -> dict[str, int]:
    out = subprocess.run(
        ["git", "--git-dir", repo, "diff", "--name-status", old, new, "--", folder],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    counts = {"A": 0, "M": 0, "D": 0}
    for line in out.splitlines():
        status, *paths = line.split("\t")
        if paths and paths[-1].endswith((".md", ".mdx")):
            counts[status[0]] = counts.get(status[0], 0) + 1
    return counts


def git(args: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix="lifecycle-git-", dir=BENCH))
    old = _archive(args.repo, args.old, args.folder, work / "old")
    new = _archive(args.repo, args.new, args.folder, work / "new")
    forth = _git_counts(args.repo, args.old, args.new, args.folder)
    back = {"A": forth["D"], "M": forth["M"], "D": forth["A"]}
    settings = Settings(home=work / "home", embedder=args.embedder, traces=False)
    with Sectio(settings) as s:
        t0 = time.perf_counter()
        first = s.ingest(old, collection="docs")
        ingest_s = time.perf_counter() - t0
        reports = [s.sync(new, collection="docs"), s.sync(old, collection="docs")]
        manifest = s.backend.read_manifest("docs")
        count = s.collection("docs").index.count()
    shutil.rmtree(work, ignore_errors=True)
    assert manifest is not None
    rows: list[list[Any]] = []
    cost: list[list[Any]] = [
        ["ingest " + args.old, first.upserted, first.embeddings_computed,
         first.embeddings_cached, ingest_s],
    ]  # fmt: skip
    for (label, expect), report in zip(
        ((f"{args.old} -> {args.new}", forth), (f"{args.new} -> {args.old}", back)),
        reports,
        strict=True,
    ):
        c = report.as_dict()["counts"]
        assert isinstance(c, dict)
        rows.append([f"{label}: git diff (pages)", expect["A"], expect["M"], expect["D"], "-"])
        rows.append([f"{label}: sync (documents)", *c.values()])
        cost.append([f"sync {label}", report.upserted, report.embeddings_computed,
                     report.embeddings_cached, report.seconds])  # fmt: skip
        print(f"{label}: changed {', '.join(report.changed)}", file=sys.stderr)
    print_table(
        f"`ingest --sync` of the {args.folder}/ tree of {args.repo.rstrip('/').split('/')[-2]} "
        f"between two commits ({args.embedder})",
        ["", "added", "changed", "deleted", "unchanged"],
        rows,
    )
    print_table(
        "Cost", ["step", "chunks written", "embeddings computed", "cached", "seconds"], cost
    )
    print(f"\npoints {count}, manifest says {manifest.chunk_count}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="what", required=True)
    big = sub.add_parser("large")
    big.add_argument("--chunks", type=int, default=100_000)
    big.add_argument("--embedder", default="fake")
    big.add_argument("--queries", type=int, default=300)
    big.add_argument("--seconds", type=float, default=10.0, help="searching per state")
    big.add_argument(
        "--rates", type=float, nargs="+", default=[1.0, 0.0], help="upserts/s (0: back to back)"
    )
    hist = sub.add_parser("git")
    hist.add_argument("--repo", default="/work/.mirror/python-poetry+poetry/repo")
    hist.add_argument("--old", default="b7cd0b041~1")
    hist.add_argument("--new", default="5e1fd5e6c")
    hist.add_argument("--folder", default="docs")
    hist.add_argument("--embedder", default="minilm")
    args = ap.parse_args()
    (large if args.what == "large" else git)(args)


if __name__ == "__main__":
    main()
