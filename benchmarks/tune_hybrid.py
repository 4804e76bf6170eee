"""Tune hybrid search on a BEIR *training* split (never on test): fusion, BM25, chunking.

Prints one table row per configuration: nDCG@10, Recall@10, Recall@100, MRR@10
at doc level. The defaults shipped in ``Settings`` (``rrf_k``, pool, weights)
and in the ``generic`` profile come from running this on SciFact ``train``.

Examples (one SECTIO_HOME for all runs: the embedding cache makes re-ingests fast,
and the query LRU embeds each query once across a grid)::

    export SECTIO_HOME=/tmp/sectio-eval-home
    python benchmarks/tune_hybrid.py fusion --collection scifact \
        --queries ../shared/data/scifact/queries.jsonl \
        --qrels ../shared/data/scifact/qrels/train.tsv
    python benchmarks/tune_hybrid.py bm25 --corpus ../shared/data/scifact ...
    python benchmarks/tune_hybrid.py chunking --corpus ../shared/data/scifact ...
    python benchmarks/tune_hybrid.py windows --corpus ../shared/data/scifact --windows 0 128 ...
    python benchmarks/tune_hybrid.py stemming --corpus ../shared/data/scifact --keep ...
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sectio import Sectio, Settings
from sectio.contract.profile import CorpusProfile, LexicalSettings, load_profile
from sectio.eval import evaluate, load_qrels, load_queries

COLUMNS = ("nDCG@10", "Recall@10", "Recall@100", "MRR@10")


def row(label: str, metrics: dict[str, float], extra: str = "") -> None:
    cells = " ".join(f"{metrics[c]:.4f}" for c in COLUMNS)
    print(f"{label:<44} {cells} {extra}", flush=True)


def header() -> None:
    print(f"{'configuration':<44} {' '.join(f'{c:>6}' for c in COLUMNS)}", flush=True)


def run_eval(
    s: Sectio, args: argparse.Namespace, collection: str, mode: str, top_k: int | None = None
) -> dict[str, float]:
    report, _ = evaluate(
        s,
        args.q,
        args.judged,
        collection=collection,
        mode=mode,
        level="doc",
        top_k=top_k or args.top_k,
    )
    return report.metrics


def fusion(args: argparse.Namespace) -> None:
    """Grid over rrf_k, pool and weights on an ingested collection."""
    base = Settings()
    with Sectio(base) as s:
        header()
        for mode in ("dense", "lexical"):
            row(mode, run_eval(s, args, args.collection, mode))
        grid: list[dict[str, Any]] = []
        if "rrf" in args.grid:
            for k in args.rrf_k:
                grid.append({"rrf_k": k})
        if "pool" in args.grid:
            for factor, minimum in ((1, 10), (2, 20), (5, 50), (10, 100), (5, 200)):
                grid.append({"hybrid_pool_factor": factor, "hybrid_pool_min": minimum})
        if "weights" in args.grid:
            for dw, lw in ((1.0, 0.7), (1.0, 0.85), (1.0, 1.2), (1.0, 1.5), (1.0, 2.0)):
                grid.append({"hybrid_dense_weight": dw, "hybrid_lexical_weight": lw})
        for update in grid:
            s.settings = base.model_copy(update=update)
            label = " ".join(f"{k.replace('hybrid_', '')}={v}" for k, v in update.items())
            metrics = run_eval(s, args, args.collection, "hybrid")
            at10 = run_eval(s, args, args.collection, "hybrid", top_k=10)
            row(label, metrics, f"(nDCG@10 at depth 10: {at10['nDCG@10']:.4f})")


def _ingest(s: Sectio, corpus: Path, name: str, profile: CorpusProfile) -> float:
    t0 = time.perf_counter()
    s.ingest(corpus, fmt="beir", profile=profile, collection=name, replace=True)
    return time.perf_counter() - t0


def bm25(args: argparse.Namespace) -> None:
    """Grid over BM25 k1 and b (re-ingests; embeddings come from the cache)."""
    base = load_profile("generic")
    with Sectio(Settings()) as s:
        header()
        for k1, b in itertools.product(args.k1, args.b):
            lex = LexicalSettings(**{**base.lexical.model_dump(), "k": k1, "b": b})
            prof = base.model_copy(update={"lexical": lex})
            name = f"tune_bm25_{k1}_{b}".replace(".", "_")
            secs = _ingest(s, args.corpus, name, prof)
            row(f"k1={k1} b={b} lexical", run_eval(s, args, name, "lexical"))
            row(
                f"k1={k1} b={b} hybrid", run_eval(s, args, name, "hybrid"), f"(ingest {secs:.0f} s)"
            )
            s.backend.drop(name)


#: BM25 analysers compared by ``stemming``: the shipped English one, English without
#: the stemmer, and PostgreSQL's 'simple' configuration (seed 004: lower-case words,
#: no stemmer, no stopwords).
ANALYSERS = {
    "english": {"language": "english", "stemming": True, "stopwords": True},
    "english_nostem": {"language": "english", "stemming": False, "stopwords": True},
    "simple": {"language": "english", "stemming": False, "stopwords": False},
}


def stemming(args: argparse.Namespace) -> None:
    """BM25 analysers (``ANALYSERS``) at the generic profile's k1/b (re-ingests from the cache).

    ``--keep`` keeps the collections (``tune_stem_<name>``) to score them on a
    held-out split afterwards with ``sectio eval``.
    """
    base = load_profile("generic")
    with Sectio(Settings()) as s:
        header()
        for label, analyser in ANALYSERS.items():
            lex = LexicalSettings(**{**base.lexical.model_dump(), **analyser})
            prof = base.model_copy(update={"lexical": lex})
            name = f"tune_stem_{label}"
            secs = _ingest(s, args.corpus, name, prof)
            row(f"{label} lexical", run_eval(s, args, name, "lexical"))
            row(f"{label} hybrid", run_eval(s, args, name, "hybrid"), f"(ingest {secs:.0f} s)")
            if not args.keep:
                s.backend.drop(name)


def chunking(args: argparse.Namespace) -> None:
    """Chunk sizes (long abstracts split into several chunks; doc-level eval de-duplicates)."""
    for size in args.sizes:
        settings = Settings(chunk_max_tokens=size)
        with Sectio(settings) as s:
            name = f"tune_chunk_{size}"
            secs = _ingest(s, args.corpus, name, load_profile("generic"))
            count = s.collection(name).index.count()
            if size == args.sizes[0]:
                header()
            for mode in ("dense", "lexical", "hybrid"):
                row(
                    f"chunk_max_tokens={size} {mode}",
                    run_eval(s, args, name, mode),
                    f"({count} chunks, ingest {secs:.0f} s)",
                )
            s.backend.drop(name)


def windows(args: argparse.Namespace) -> None:
    """Dense windows (``dense_window_tokens``, 0 = one vector per chunk), shipped chunk size."""
    header()
    for size in args.windows:
        with Sectio(Settings(dense_window_tokens=size)) as s:
            name = f"tune_windows_{size}"
            secs = _ingest(s, args.corpus, name, load_profile("generic"))
            for mode in ("dense", "hybrid"):
                row(
                    f"dense_window_tokens={size} {mode}",
                    run_eval(s, args, name, mode),
                    f"(ingest {secs:.0f} s)",
                )
            s.backend.drop(name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("fusion", "bm25", "chunking", "windows", "stemming"))
    parser.add_argument("--collection", default="scifact")
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--queries", type=Path, required=True)
    parser.add_argument("--qrels", type=Path, required=True, help="a TRAINING split")
    parser.add_argument("--top-k", type=int, default=100)
    parser.add_argument("--sizes", type=int, nargs="+", default=[128, 256, 384, 512])
    parser.add_argument("--windows", type=int, nargs="+", default=[0, 128])
    parser.add_argument("--grid", nargs="+", default=["rrf", "pool", "weights"])
    parser.add_argument("--rrf-k", type=int, nargs="+", default=[1, 2, 3, 5, 10, 20, 60])
    parser.add_argument("--k1", type=float, nargs="+", default=[0.9, 1.2, 1.5])
    parser.add_argument("--b", type=float, nargs="+", default=[0.4, 0.75, 0.9])
    parser.add_argument("--keep", action="store_true", help="stemming: keep the collections")
    args = parser.parse_args(argv)
    if "test" in args.qrels.name:
        print("refusing to tune on a test split", file=sys.stderr)
        return 2
    args.q = load_queries(args.queries)
    args.judged = load_qrels(args.qrels)
    print(
        f"# {args.what} on {args.qrels} ({len(args.judged)} queries), "
        f"{time.strftime('%Y-%m-%d')}; tmp={tempfile.gettempdir()}",
        flush=True,
    )
    runs = {
        "fusion": fusion,
        "bm25": bm25,
        "chunking": chunking,
        "windows": windows,
        "stemming": stemming,
    }
    runs[args.what](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
