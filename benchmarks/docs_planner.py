"""Doc-level hit@1 / hit@5 on the Argo CD docs: the docs planner against plain hybrid search.

The question set is ``benchmarks/data/argocd`` (BEIR-style ``queries.jsonl`` +
``qrels/{dev,test}.tsv``, corpus-id = document path; built from the docs' own
titles, file names, CLI reference pages, cross-links and question headings,
plus hand-written FAQ-style questions: see ``make_queries.py`` there).

* ``planner``: ``Sectio.ask`` (the docs planner route) (route -> plan -> exact seeds, substring
  fallback, hybrid with hard filters and soft boosts); its evidence, at most
  the plan's limit (8, or 12 for file lookups), in order;
* ``hybrid D0``: dense + BM25 reciprocal rank fusion (k=60) inside Qdrant
  Edge over the doc chunks (layer D0) only, top 20 chunks;
* ``hybrid all``: the same over every layer (D0-D5), top 20.

A ranking becomes a document ranking by keeping each document's first
appearance; hit@k: a relevant document among the first k.

Usage::

    .venv/bin/python benchmarks/docs_planner.py [--split test|dev|all] [--embedder minilm|fake]
        [--docs /work/shared/data/docs_argocd] [--reingest] [--show-misses] [--home H]

The collection is built once in ``.sectio-bench/argocd-<embedder>/`` (or ``--home``;
profile ``docs_argocd``) and reused; ``--reingest`` rebuilds it.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from sectio import Sectio, Settings  # noqa: E402
from sectio.index.filters import AnyOf, tenant_where  # noqa: E402
from sectio.index.port import best_cosine  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "argocd"
DOCS = ROOT.parent / "shared" / "data" / "docs_argocd"
COLLECTION = "argocd"
TENANT = "default"
HYBRID_DEPTH = 20


def load_set(split: str) -> tuple[dict[str, tuple[str, str]], dict[str, set[str]]]:
    """Queries (id -> (text, kind)) and relevant documents of ``split``."""
    qrels: dict[str, set[str]] = defaultdict(set)
    splits = ["dev", "test"] if split == "all" else [split]
    for name in splits:
        with (DATA / "qrels" / f"{name}.tsv").open() as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                if int(row["score"]) > 0:
                    qrels[row["query-id"]].add(row["corpus-id"])
    queries: dict[str, tuple[str, str]] = {}
    with (DATA / "queries.jsonl").open() as fh:
        for line in fh:
            q = json.loads(line)
            if q["_id"] in qrels:
                queries[q["_id"]] = (q["text"], q.get("metadata", {}).get("kind", "?"))
    return queries, dict(qrels)


def doc_ranking(doc_ids: list[str]) -> list[str]:
    """First appearance of each document, in order."""
    return list(dict.fromkeys(doc_ids))


def hybrid_docs(sx: Sectio, text: str, layers: tuple[str, ...]) -> list[str]:
    coll = sx.collection(COLLECTION)
    vec = sx.embedder.embed_query(text)
    sparse = coll.lexical.encode_query(text)
    where = tenant_where(TENANT, AnyOf("layer", layers))
    # the engine returns equal fusion values in no fixed order (it can differ between
    # processes): read deeper and settle them by cosine, then point id, as sectio does
    points = coll.index.search_fused(
        vec, sparse, pool=100, limit=2 * HYBRID_DEPTH, where=where, rrf_k=60, with_vectors=True
    )
    points.sort(key=lambda p: (-(p.score or 0.0), -best_cosine(vec, p.dense), p.id))
    return doc_ranking([str(p.payload.get("doc_id")) for p in points[:HYBRID_DEPTH]])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="test", choices=["test", "dev", "all"])
    ap.add_argument("--embedder", default="minilm", choices=["minilm", "fake"])
    ap.add_argument("--docs", type=Path, default=DOCS)
    ap.add_argument("--reingest", action="store_true")
    ap.add_argument(
        "--home",
        type=Path,
        help="SECTIO_HOME holding the collection (default .sectio-bench/argocd-<embedder>), "
        "e.g. the one `benchmarks/ingest.py docs --home H` built",
    )
    ap.add_argument("--show-misses", action="store_true")
    args = ap.parse_args()

    queries, qrels = load_set(args.split)
    home = args.home or ROOT / ".sectio-bench" / f"argocd-{args.embedder}"
    settings = Settings(home=home, embedder=args.embedder, traces=False)
    systems = ("planner", "hybrid D0", "hybrid all")
    hits: dict[str, dict[str, list[int]]] = {s: defaultdict(list) for s in systems}
    misses: list[str] = []
    latency: list[float] = []
    with Sectio(settings) as sx:
        ingest_note = "reused"
        if args.reingest or not sx.backend.exists(COLLECTION):
            t0 = time.perf_counter()
            report = sx.ingest(
                args.docs,
                fmt="markdown",
                profile="docs_argocd",
                collection=COLLECTION,
                replace=True,
            )
            ingest_note = f"{report.chunks_read} points in {time.perf_counter() - t0:.0f} s"
        for qid, (text, kind) in queries.items():
            relevant = qrels[qid]
            t = time.perf_counter()
            result = sx.ask(text, collection=COLLECTION, tenant=TENANT, record=False)
            latency.append((time.perf_counter() - t) * 1000)
            rankings: dict[str, list[str]] = {
                "planner": doc_ranking([e.doc_id for e in result.evidence]),
                "hybrid D0": hybrid_docs(sx, text, ("D0",)),
                "hybrid all": hybrid_docs(sx, text, ("D0", "D1", "D2", "D3", "D4", "D5")),
            }
            for system, docs in rankings.items():
                h1 = int(bool(docs[:1]) and docs[0] in relevant)
                h5 = int(any(d in relevant for d in docs[:5]))
                for key in (kind, "all"):
                    hits[system][key].append(h1 * 10 + h5)
            docs = rankings["planner"]
            if not any(d in relevant for d in docs[:5]) or (
                args.show_misses and docs[:1] and docs[0] not in relevant
            ):
                plan = result.details["plan"]
                route: dict[str, Any] = result.details["route"]
                misses.append(
                    f"- {qid} [{kind}] {text!r}\n    want {sorted(relevant)}\n"
                    f"    got  {docs[:5]}\n    route {route['intent']}/{route['subintent']} "
                    f"profile {plan['profile']} hints {route['anchors']['target_doc_hints']} "
                    f"entities {route['anchors']['entity_names'][:4]}"
                )
    n = len(queries)
    latency.sort()
    print(
        f"\n## Doc-level retrieval on the Argo CD docs, split {args.split!r}: {n} questions, "
        f"embedder {args.embedder} (collection {ingest_note}; planner p50 "
        f"{latency[n // 2]:.1f} ms, p95 {latency[max(0, int(n * 0.95) - 1)]:.1f} ms)\n"
    )
    kinds = ["all", *sorted(k for k in hits["planner"] if k != "all")]
    print("| kind | n | " + " | ".join(f"{s} hit@1 | {s} hit@5" for s in systems) + " |")
    print("|---|---|" + "---|---|" * len(systems))
    for kind in kinds:
        cells = []
        for system in systems:
            vals = hits[system][kind]
            cells.append(f"{sum(v // 10 for v in vals) / len(vals):.3f}")
            cells.append(f"{sum(v % 10 for v in vals) / len(vals):.3f}")
        print(f"| {kind} | {len(hits['planner'][kind])} | " + " | ".join(cells) + " |")
    if misses and (args.show_misses or len(misses) <= 40):
        print(f"\n### Planner misses at hit@5 ({len(misses)})\n")
        print("\n".join(misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
