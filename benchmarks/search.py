"""Search latency and single-thread throughput: sectio (Qdrant Edge) vs bm25s vs numpy.

Two datasets, each timed in the same run on the same data:

* **SciFact** (5,183 abstracts, ~9k chunks) with the bundled MiniLM, the 300
  test claims as queries;
* **synthetic** (default 100,000 chunks of 120 Zipf-distributed words) with
  random unit vectors (a seeded "embedder": no model), 200 queries of 4 words
  drawn from the corpus (``--questions``: the same queries again, each ending
  with "?", so hybrid also runs the per-question BM25 trust).

Systems and modes:

* sectio ``dense``, ``lexical`` (BM25), ``hybrid`` (RRF inside the engine,
  plus the dense-candidates query that labels lexical-only hits);
* **bm25s** (lexical, ``k1``/``b`` as sectio's profile, numpy backend, one
  thread) on the same texts;
* **numpy brute force** (dense: one matrix-vector product + argpartition) on
  the same vectors.

``engine`` times the search alone (query vectors precomputed; sectio's
``timings_ms["engine"]``, bm25s ``retrieve`` on pre-tokenized queries, the
numpy product). ``e2e`` adds query embedding / tokenization and building the
result (sectio: :func:`sectio.retrieve.search.search` wall time; the query LRU
is off here, so every e2e call runs the model). Each query
runs once untimed (warm-up), then ``--repeat`` timed passes; p50/p99 over
all timed calls, queries/s = 1000 / mean ms (single thread, sequential).

Run::

    OMP_NUM_THREADS=1 python benchmarks/search.py                 # both datasets
    python benchmarks/search.py --skip-scifact --n 100000 --work /tmp/sectio-bench-search

The synthetic collection is built once under ``--work`` (ingest + optimize
take minutes) and reused while its chunk count matches.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATA, print_table

from sectio import Sectio, Settings
from sectio.contract.record import ChunkRecord
from sectio.embed.port import Matrix, Vector
from sectio.eval import load_qrels, load_queries
from sectio.index.collection import Collection
from sectio.retrieve.reads import scroll_all
from sectio.retrieve.search import FusionParams
from sectio.retrieve.search import search as run_search

TOP_K = 10
HEADERS = ["dataset", "system", "mode", "scope", "p50 ms", "p99 ms", "queries/s"]


class SeededEmbedder:
    """Random unit vectors seeded by the text: deterministic, no model, ~free."""

    model_id = "seeded-random-384"
    dimensions = 384
    input_kind = "passage"
    max_length = 512

    def _one(self, text: str) -> Vector:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
        v = np.random.default_rng(seed).standard_normal(self.dimensions).astype(np.float32)
        return v / np.linalg.norm(v)

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.stack([self._one(t) for t in texts])

    def embed_query(self, text: str) -> Vector:
        return self._one("query:" + text)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


#: What ``timed`` reads: wall time, or (``--clock cpu``) this thread's CPU time.
CLOCK: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}
clock = CLOCK["wall"]


def timed(fn: Callable[[int], float | None], n: int, repeat: int) -> list[float]:
    """Call ``fn(i)`` for every query (warm-up, then ``repeat`` passes); ms per call.

    ``fn`` may return its own measurement in ms (sectio's engine timing, wall
    time); else the clock's (``--clock cpu``: every row is the calling thread's
    CPU time, which other processes' load barely moves).
    """
    for i in range(n):
        fn(i)
    out: list[float] = []
    for _ in range(repeat):
        for i in range(n):
            t0 = clock()
            own = fn(i)
            spent = (clock() - t0) * 1000
            out.append(own if own is not None and clock is CLOCK["wall"] else spent)
    return out


def summarize(dataset: str, system: str, mode: str, scope: str, ms: list[float]) -> list[Any]:
    mean = statistics.fmean(ms)
    return [dataset, system, mode, scope, percentile(ms, 0.5), percentile(ms, 0.99), 1000 / mean]


def texts_of(coll: Collection) -> tuple[list[str], list[str]]:
    """Chunk ids and index texts (what was embedded and BM25-indexed), in one order."""
    points = scroll_all(coll.index, "default", page=1024)
    records = [ChunkRecord.model_validate(p.payload) for p in points]
    return [r.chunk_id for r in records], [r.index_text() for r in records]


def bench_dataset(
    name: str, s: Sectio, collection: str, queries: list[str], repeat: int
) -> list[list[Any]]:
    import bm25s

    coll = s.collection(collection)
    params = FusionParams.from_settings(s.settings)
    rows: list[list[Any]] = []
    n = len(queries)
    print(f"[{name}] {coll.index.count()} chunks, {n} queries", file=sys.stderr, flush=True)

    # sectio: engine-only (its own engine timing) and end-to-end (wall time of search())
    for mode in ("dense", "lexical", "hybrid"):

        def engine(i: int, mode: str = mode) -> float:
            r = run_search(
                coll,
                s.embedder,
                queries[i],
                tenant="default",
                top_k=TOP_K,
                mode=mode,
                params=params,
                guard=s.tenant_guard,
            )
            return r.timings_ms["engine"]

        def e2e(i: int, mode: str = mode) -> None:
            run_search(
                coll,
                s.embedder,
                queries[i],
                tenant="default",
                top_k=TOP_K,
                mode=mode,
                params=params,
                guard=s.tenant_guard,
            )

        rows.append(summarize(name, "sectio", mode, "engine", timed(engine, n, repeat)))
        rows.append(summarize(name, "sectio", mode, "e2e", timed(e2e, n, repeat)))

    # the same data for the others
    ids, texts = texts_of(coll)
    lex = coll.lexical.settings
    stop = "en" if lex.stopwords and lex.language == "english" else None
    corpus_tokens = bm25s.tokenize(texts, stopwords=stop, show_progress=False)
    retriever = bm25s.BM25(k1=lex.k, b=lex.b)
    retriever.index(corpus_tokens, show_progress=False)
    query_tokens = [bm25s.tokenize([q], stopwords=stop, show_progress=False) for q in queries]

    def bm_engine(i: int) -> None:
        retriever.retrieve(query_tokens[i], k=TOP_K, n_threads=1, show_progress=False)

    def bm_e2e(i: int) -> None:
        tokens = bm25s.tokenize([queries[i]], stopwords=stop, show_progress=False)
        retriever.retrieve(tokens, k=TOP_K, n_threads=1, show_progress=False)

    rows.append(summarize(name, "bm25s", "lexical", "engine", timed(bm_engine, n, repeat)))
    rows.append(summarize(name, "bm25s", "lexical", "e2e", timed(bm_e2e, n, repeat)))

    matrix = np.ascontiguousarray(s.embedder.embed_documents(texts), dtype=np.float32)
    qvecs = [np.asarray(s.embedder.embed_query(q), dtype=np.float32) for q in queries]

    def np_top(vec: np.ndarray) -> np.ndarray:
        scores = matrix @ vec
        top = np.argpartition(-scores, TOP_K)[:TOP_K]
        return top[np.argsort(-scores[top])]

    def np_engine(i: int) -> None:
        np_top(qvecs[i])

    def np_e2e(i: int) -> None:
        np_top(np.asarray(s.embedder.embed_query(queries[i]), dtype=np.float32))

    rows.append(summarize(name, "numpy", "dense", "engine", timed(np_engine, n, repeat)))
    rows.append(summarize(name, "numpy", "dense", "e2e", timed(np_e2e, n, repeat)))
    del ids
    return rows


def scifact(args: argparse.Namespace) -> list[list[Any]]:
    home = Path(args.scifact_home)
    with Sectio(Settings(home=home, query_cache_size=0)) as s:
        if not s.backend.exists(args.scifact_collection):
            print(f"ingesting SciFact into {home} ...", file=sys.stderr, flush=True)
            s.ingest(DATA / "scifact", fmt="beir", collection=args.scifact_collection)
        qrels = load_qrels(DATA / "scifact" / "qrels" / "test.tsv")
        texts = load_queries(DATA / "scifact" / "queries.jsonl")
        queries = [texts[q] for q in qrels][: args.queries]
        return bench_dataset("SciFact", s, args.scifact_collection, queries, args.repeat)


def synthetic_corpus(n: int, seed: int = 1) -> list[dict[str, Any]]:
    vocab = 30_000
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab + 1) ** 1.07
    p /= p.sum()
    words = rng.choice(vocab, size=(n, 120), p=p)
    return [
        {
            "chunk_id": f"c{i}",
            "doc_id": f"d{i // 4}",
            "section_key": f"s{i % 4}",
            "part_index": 0,
            "text": " ".join(f"w{w}" for w in row),
            "source_refs": [{"source": "synthetic"}],
        }
        for i, row in enumerate(words)
    ]


def synthetic(args: argparse.Namespace) -> list[list[Any]]:
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    name = f"synthetic_{args.n}"
    settings = Settings(home=work / "home", embedder="fake", query_cache_size=0)
    with Sectio(settings, embedder=SeededEmbedder()) as s:
        rows = synthetic_corpus(args.n)
        if not s.backend.exists(name) or s.backend.point_count(name) != args.n:
            path = work / f"{name}.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in rows))
            t0 = time.perf_counter()
            profile = work / "synthetic.toml"
            profile.write_text(
                'name = "synthetic"\n[lexical]\nlanguage = "none"\nstemming = false\n'
                "stopwords = false\n"
            )
            print(f"building {args.n} synthetic chunks ...", file=sys.stderr, flush=True)
            s.ingest(path, profile=profile, collection=name, replace=True)
            print(f"built in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        rng = np.random.default_rng(7)
        queries = []
        for i in rng.choice(args.n, size=args.queries, replace=False):
            words = rows[int(i)]["text"].split()
            queries.append(" ".join(rng.choice(words, size=4, replace=False)))
        label = f"synthetic {args.n // 1000}k"
        rows_out = bench_dataset(label, s, name, queries, args.repeat)
        if args.questions:  # the same words asked: hybrid adds the per-question BM25 trust
            asked = [f"{q}?" for q in queries]
            rows_out += bench_dataset(f"{label}, as questions", s, name, asked, args.repeat)
        return rows_out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="synthetic chunks")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", default="/tmp/sectio-bench-search")
    parser.add_argument(
        "--scifact-home", default=os.environ.get("SECTIO_HOME", "/tmp/sectio-eval-home")
    )
    parser.add_argument("--scifact-collection", default="scifact")
    parser.add_argument("--skip-scifact", action="store_true")
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument(
        "--questions",
        action="store_true",
        help="also time the synthetic queries asked as questions (the per-question BM25 trust)",
    )
    parser.add_argument("--clock", choices=tuple(CLOCK), default="wall")
    args = parser.parse_args(argv)
    global clock
    clock = CLOCK[args.clock]
    rows: list[list[Any]] = []
    load_before = os.getloadavg()[0]
    if not args.skip_scifact:
        rows += scifact(args)
    if not args.skip_synthetic:
        rows += synthetic(args)
    print_table(
        f"Search latency, top-{TOP_K}, single thread ({time.strftime('%Y-%m-%d')}, "
        f"{os.cpu_count()} cores, load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}, "
        f"{args.clock} time)",
        HEADERS,
        rows,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
