"""Section hit@1: routed retrieval (``Sectio.ask``) against plain dense similarity.

The question set is ``benchmarks/data/drug_questions`` (BEIR-style
``queries.jsonl`` + ``qrels/{dev,holdout,test}.tsv``, corpus-id
``doc_id#section_key``), over the shipped demo corpus (20 drugs x 6 sections of
US drug labels) with the real bundled MiniLM. A question is a hit when the
first piece of evidence comes from a relevant ``doc_id#section_key``.

The routing cost is measured side by side: the same questions asked, warm,
of a second collection ingested with the same profile but ``[intent] enabled
= false`` (phrase-only routing, as before the section-intent step), in turn,
``--repeat`` rounds; p50 / p95 ms of each and the difference of the p50s; then
the questions no phrase routes alone (where the intent step runs), warm and
with the query LRU off (every ask embeds, as a new question does), and all
questions with the LRU off (one round).

* ``dense``: the top-1 of a dense search over the whole collection;
* ``routed``: the first evidence of ``ask`` (document and section resolvers,
  section route, overview, free-form within the document, fallback search).

Usage::

    .venv/bin/python benchmarks/routed.py [--split test|dev|holdout] [--show-misses] [--repeat N]

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


def phrase_only_profile(folder: Path) -> Path:
    """A copy of ``en_drug_label`` with the section-intent step off (phrases only)."""
    from importlib import resources

    text = resources.files("sectio.contract").joinpath("profiles/en_drug_label.toml").read_text()
    assert "[intent]\n" in text
    path = folder / "en_drug_label_phrases_only.toml"
    path.write_text(text.replace("[intent]\n", "[intent]\nenabled = false\n", 1))
    return path


def side_by_side(sx: Sectio, questions: list[str], repeat: int) -> dict[str, list[float]]:
    """Warm ``ask`` wall ms per call on ``bench`` (intent on) and ``phrases`` (off), in turn."""
    out: dict[str, list[float]] = {"bench": [], "phrases": []}
    for collection in out:  # warm both: question embeddings cached, collections open
        for text in questions:
            sx.ask(text, collection=collection, tenant="default", record=False)
    for _ in range(repeat):
        for text in questions:
            for collection, times in out.items():
                t = time.perf_counter()
                sx.ask(text, collection=collection, tenant="default", record=False)
                times.append((time.perf_counter() - t) * 1000)
    return {k: sorted(v) for k, v in out.items()}


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile of sorted ``values`` (nearest rank)."""
    return values[min(len(values) - 1, int(len(values) * q))]


def first_section(evidence: list) -> str | None:
    """``doc_id#section_key`` of the first piece of evidence."""
    if not evidence:
        return None
    return f"{evidence[0].doc_id}#{evidence[0].section_key}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="test", choices=["test", "dev", "holdout"])
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--repeat", type=int, default=5, help="rounds of the latency comparison")
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
            phrases = phrase_only_profile(Path(tmp))
            sx.ingest(demo_corpus_path(), profile=str(phrases), collection="phrases")
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
            cost = side_by_side(sx, list(queries.values()), args.repeat)
            read = [
                t for t in queries.values() if "intent" in sx.ask(t, collection="bench").details
            ]
            cost_read = side_by_side(sx, read, args.repeat)
        # Fresh questions: the query LRU off, every ask embeds (the intent step embeds the
        # question with its document name read as "it": one model call more).
        with Sectio(settings.model_copy(update={"query_cache_size": 0})) as cold:
            cost_cold_all = side_by_side(cold, list(queries.values()), 1)
            cost_cold = side_by_side(cold, read, args.repeat)

    n = len(queries)
    latency.sort()
    print(f"\n## Section hit@1, split {args.split!r}: {n} questions, demo corpus, MiniLM int8")
    print(
        f"(ingest {ingest_s:.1f} s; ask p50 {latency[n // 2]:.1f} ms, "
        f"p95 {latency[int(n * 0.95) - 1]:.1f} ms)\n"
    )
    on, off = cost["bench"], cost["phrases"]
    print(
        f"routing cost, warm `ask`, {len(on)} calls each, intent on vs phrases only: "
        f"p50 {pct(on, 0.5):.2f} vs {pct(off, 0.5):.2f} ms "
        f"({pct(on, 0.5) - pct(off, 0.5):+.2f} ms), "
        f"p95 {pct(on, 0.95):.2f} vs {pct(off, 0.95):.2f} ms"
    )
    on, off = cost_read["bench"], cost_read["phrases"]
    if on:
        print(
            f"the {len(read)} questions no phrase routes (the intent step runs): "
            f"p50 {pct(on, 0.5):.2f} vs {pct(off, 0.5):.2f} ms "
            f"({pct(on, 0.5) - pct(off, 0.5):+.2f} ms)"
        )
        for label, c in (("those", cost_cold), ("all", cost_cold_all)):
            on, off = c["bench"], c["phrases"]
            print(
                f"{label} {len(on)} asks with the query LRU off (every ask embeds): "
                f"p50 {pct(on, 0.5):.2f} vs {pct(off, 0.5):.2f} ms "
                f"({pct(on, 0.5) - pct(off, 0.5):+.2f} ms)"
            )
    print()
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
