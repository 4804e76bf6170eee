"""Section hit@1: routed retrieval (``Sectio.ask``) against plain dense similarity.

The question set is ``benchmarks/data/drug_questions`` (BEIR-style
``queries.jsonl`` + ``qrels/{dev,holdout,test}.tsv``, corpus-id
``doc_id#section_key``), over the shipped demo corpus (20 drugs x 6 sections of
US drug labels) with the real bundled MiniLM. A question is a hit when the
first piece of evidence comes from a relevant ``doc_id#section_key``.

* ``dense``: the top-1 of a dense search over the whole collection;
* ``routed``: the first evidence of ``ask`` (document and section resolvers,
  section route, overview, free-form within the document, fallback search).

Usage::

    .venv/bin/python benchmarks/routed.py [--split test|dev|holdout] [--show-misses]

It builds a throwaway SECTIO_HOME in a temporary folder (the embedding cache
is kept in ``.sectio-bench/`` to make reruns fast) and prints Markdown tables.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from sectio import Sectio, Settings  # noqa: E402
from sectio.demo import demo_corpus_path  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "drug_questions"


def load_set(split: str) -> tuple[dict[str, str], dict[str, set[str]]]:
    """Queries of ``split`` and their relevant ``doc_id#section_key`` ids."""
    qrels: dict[str, set[str]] = defaultdict(set)
    with (DATA / "qrels" / f"{split}.tsv").open() as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if int(row["score"]) > 0:
                qrels[row["query-id"]].add(row["corpus-id"])
    queries = {}
    with (DATA / "queries.jsonl").open() as fh:
        for line in fh:
            q = json.loads(line)
            if q["_id"] in qrels:
                queries[q["_id"]] = q["text"]
    return queries, dict(qrels)


def first_section(evidence: list) -> str | None:
    """``doc_id#section_key`` of the first piece of evidence."""
    if not evidence:
        return None
    return f"{evidence[0].doc_id}#{evidence[0].section_key}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="test", choices=["test", "dev", "holdout"])
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()

    queries, qrels = load_set(args.split)
    cache_home = ROOT / ".sectio-bench"
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        # Reuse the embedding cache between runs (vectors keyed by model and text).
        cache = cache_home / "cache"
        cache.mkdir(parents=True, exist_ok=True)
        os.symlink(cache, home / "cache")
        settings = Settings(home=home, embedder="minilm", traces=False)
        with Sectio(settings) as sx:
            t0 = time.perf_counter()
            sx.ingest(demo_corpus_path(), profile="en_drug_label", collection="bench")
            ingest_s = time.perf_counter() - t0
            hits = {"dense": 0, "routed": 0}
            routes: Counter[str] = Counter()
            route_hits: Counter[str] = Counter()
            per_section: dict[str, Counter[str]] = defaultdict(Counter)
            misses = []
            latency = []
            for qid, text in queries.items():
                relevant = qrels[qid]
                dense = sx.search(text, collection="bench", top_k=1, tenant="default", mode="dense")
                d_hit = first_section(dense.hits) in relevant
                t = time.perf_counter()
                result = sx.ask(text, collection="bench", tenant="default")
                latency.append((time.perf_counter() - t) * 1000)
                got = first_section(result.evidence)
                r_hit = got in relevant
                hits["dense"] += d_hit
                hits["routed"] += r_hit
                routes[result.route] += 1
                route_hits[result.route] += r_hit
                gold = sorted(relevant)[0].split("#")[1]
                per_section[gold]["n"] += 1
                per_section[gold]["dense"] += d_hit
                per_section[gold]["routed"] += r_hit
                if not r_hit:
                    misses.append((qid, text, result.route, got, sorted(relevant)))

    n = len(queries)
    latency.sort()
    print(f"\n## Section hit@1, split {args.split!r}: {n} questions, demo corpus, MiniLM int8")
    print(
        f"(ingest {ingest_s:.1f} s; ask p50 {latency[n // 2]:.1f} ms, "
        f"p95 {latency[int(n * 0.95) - 1]:.1f} ms)\n"
    )
    print("| mode | section hit@1 |")
    print("|---|---|")
    print(f"| dense (top-1 similarity) | {hits['dense'] / n:.3f} |")
    print(f"| routed (`sectio ask`) | {hits['routed'] / n:.3f} |")
    print("\n| gold section | n | dense | routed |")
    print("|---|---|---|---|")
    for key, c in sorted(per_section.items()):
        print(f"| {key} | {c['n']} | {c['dense'] / c['n']:.2f} | {c['routed'] / c['n']:.2f} |")
    print("\n| route taken | n | routed hit@1 |")
    print("|---|---|---|")
    for route, count in routes.most_common():
        print(f"| {route} | {count} | {route_hits[route] / count:.2f} |")
    if args.show_misses:
        print("\nmisses:")
        for qid, text, route, got, relevant in misses:
            print(f"  {qid} {text!r} -> {route} {got} (want {', '.join(relevant)})")


if __name__ == "__main__":
    main()
