"""What per-tenant BM25 IDF costs on Qdrant Edge: lexical and hybrid search, on vs off.

A shared collection of N synthetic chunks (120 words from a 5,000-word Zipf
vocabulary), two tenants (90% / 10% of the chunks), the fake embedder (the
cost measured is the engine's, not the model's). Each query runs with the
edge adapter's per-tenant IDF (``EdgeIndex.tenant_idf``, the default) and
without it (the collection-wide IDF of before), as the small tenant and as the
big one; p50 / p99 engine milliseconds over the queries.

    python benchmarks/tenant_idf.py --chunks 20000 --queries 300
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from sectio import Sectio, Settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_table


def _words(vocab: int, rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    out: set[str] = set()
    while len(out) < vocab:
        out.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 9))))
    return sorted(out)


def _corpus(path: Path, chunks: int, rng: random.Random) -> list[str]:
    words = _words(5000, rng)
    weights = [1.0 / (i + 1) for i in range(len(words))]
    with path.open("w", encoding="utf-8") as f:
        for i in range(chunks):
            tenant = "small" if i % 10 == 0 else "big"
            text = " ".join(rng.choices(words, weights, k=120))
            row = {
                "chunk_id": f"c{i}",
                "doc_id": f"d{i // 4}",
                "section_key": "s",
                "part_index": i % 4,
                "text": text,
                "tenant": tenant,
            }
            f.write(json.dumps(row) + "\n")
    return words


def _timed(fn: object, n: int) -> tuple[float, float]:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.99 * (len(times) - 1))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--chunks", type=int, default=20000)
    ap.add_argument("--queries", type=int, default=300)
    args = ap.parse_args()
    rng = random.Random(7)
    root = Path(tempfile.mkdtemp(prefix="tenant-idf-"))
    words = _corpus(root / "c.jsonl", args.chunks, rng)
    settings = Settings(home=root / "home", embedder="fake", traces=False, hybrid_calibrate=False)
    rows = []
    with Sectio(settings) as s:
        t0 = time.perf_counter()
        s.ingest(root / "c.jsonl", collection="shared")
        print(f"ingest {args.chunks} chunks: {time.perf_counter() - t0:.1f}s", file=sys.stderr)
        index = s.collection("shared").index
        queries = [" ".join(rng.sample(words[:2000], 3)) for _ in range(args.queries)]
        for mode in ("lexical", "hybrid"):
            for tenant in ("small", "big"):
                row: list[object] = [mode, tenant]
                for on in (False, True):
                    index.tenant_idf = on  # type: ignore[attr-defined]
                    it = iter(queries * 2)
                    s.search(next(it), collection="shared", tenant=tenant, mode=mode)  # warm

                    def one(it=it, mode=mode, tenant=tenant) -> None:  # type: ignore[no-untyped-def]
                        s.search(next(it), collection="shared", tenant=tenant, mode=mode)

                    row.extend(_timed(one, args.queries))
                rows.append(row)
    print_table(
        f"Per-tenant BM25 IDF on Qdrant Edge, {args.chunks:,} chunks, 2 tenants (10% / 90%), "
        f"{args.queries} queries, search ms",
        ["mode", "tenant", "shared IDF p50", "p99", "per-tenant IDF p50", "p99"],
        rows,
    )


if __name__ == "__main__":
    main()
