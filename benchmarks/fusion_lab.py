"""Fusion lab: dump each list's ranking once, then score fusion rules offline.

``dump`` runs every judged query of a BEIR set against a collection and writes,
per query, the dense list (cosine) and each BM25 list (score) at ``--depth``,
as JSON Lines. ``score`` reads such dumps and prints nDCG@10 (doc level) of
dense, lexical, the shipped RRF and the candidate fusion rules side by side,
so a rule is chosen on train dumps and reported on test dumps without
re-running the engine.

Examples::

    export SECTIO_HOME=/work/bench/home
    python benchmarks/fusion_lab.py dump -c scifact --queries Q --qrels train.tsv --out sf.jsonl
    python benchmarks/fusion_lab.py score sf_train.jsonl --qrels train.tsv
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from sectio import Sectio, Settings
from sectio.eval import load_qrels, load_queries
from sectio.retrieve.reads import scoped
from sectio.retrieve.search import lexical_query

List = list[tuple[str, str, float]]  # (point id, doc id, score), best first


def key(payload: dict[str, Any], level: str) -> str:
    """What a qrels corpus id names: the doc id, or ``doc_id#section_key``."""
    if level == "section":
        return f"{payload['doc_id']}#{payload.get('section_key', '')}"
    return str(payload["doc_id"])


def dump(args: argparse.Namespace) -> None:
    s = Sectio(Settings(), tenant="default")
    coll = s.collection(args.collection)
    queries = load_queries(args.queries)
    qrels = load_qrels(args.qrels)
    where = scoped("default", None)
    with Path(args.out).open("w", encoding="utf-8") as out:
        for i, qid in enumerate(sorted(qrels)):
            text = queries[qid]
            qvec = np.asarray(s.embedder.embed_query(text), dtype=np.float32)
            dense = coll.index.search_dense(qvec, args.depth, where)
            row: dict[str, Any] = {
                "qid": qid,
                "dense": [(p.id, key(p.payload, args.level), float(p.score or 0)) for p in dense],
            }
            for name, vec in lexical_query(coll, text).items():
                hits = coll.index.search_sparse(name, vec, args.depth, where)
                row[name] = [(p.id, key(p.payload, args.level), float(p.score or 0)) for p in hits]
            out.write(json.dumps(row) + "\n")
            if i % 100 == 0:
                print(f"{i}/{len(qrels)}", file=sys.stderr, flush=True)


def calib(args: argparse.Namespace) -> None:
    """Pseudo-queries from the corpus itself: which list finds a span's source document?"""
    import random

    s = Sectio(Settings(), tenant="default")
    coll = s.collection(args.collection)
    where = scoped("default", None)
    rng = random.Random(7)
    with open(args.corpus, encoding="utf-8") as f:
        docs = [json.loads(line) for line in f]
    rr: dict[str, list[float]] = {"dense": [], "lexical": []}
    for doc in rng.sample(docs, min(args.n, len(docs))):
        words = str(doc.get("text", "")).split()
        if len(words) < args.words + 2:
            continue
        start = rng.randrange(0, len(words) - args.words)
        text = " ".join(words[start : start + args.words])
        qvec = np.asarray(s.embedder.embed_query(text), dtype=np.float32)
        dense = [p.payload["doc_id"] for p in coll.index.search_dense(qvec, 100, where)]
        lex_rows = {"dense": []} | {
            name: [
                (p.id, p.payload["doc_id"], float(p.score or 0))
                for p in coll.index.search_sparse(name, vec, 100, where)
            ]
            for name, vec in lexical_query(coll, text).items()
        }
        lexical = lexical_rule(lex_rows) if len(lex_rows) > 1 else []
        for name, ranked in (("dense", dense), ("lexical", lexical)):
            did = str(doc.get("_id", doc.get("doc_id")))
            first = next((i for i, d in enumerate(dict.fromkeys(ranked)) if d == did), None)
            rr[name].append(0.0 if first is None else 1.0 / (first + 1))
    for name, vals in rr.items():
        print(f"{args.collection} {name} MRR {sum(vals) / max(len(vals), 1):.3f} n={len(vals)}")


def ndcg10(ranked_docs: list[str], relevant: dict[str, int]) -> float:
    seen: set[str] = set()
    docs = []
    for d in ranked_docs:
        if d not in seen:
            seen.add(d)
            docs.append(d)
        if len(docs) == 10:
            break
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(docs))
    ideal = sorted(relevant.values(), reverse=True)[:10]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


Rule = Callable[[dict[str, Any]], list[str]]


def lexical_lists(row: dict[str, Any]) -> list[List]:
    return [row[k] for k in ("bm25", "bm25_folded") if k in row]


def rrf(lists: Iterable[tuple[List, float]], k: float, pool: int) -> list[str]:
    """Qdrant's weighted RRF: ``1 / (rank / weight + k - 1)``, rank from 1."""
    value: dict[str, float] = {}
    doc: dict[str, str] = {}
    for hits, w in lists:
        if w <= 0:
            continue
        for r, (pid, did, _) in enumerate(hits[:pool]):
            value[pid] = value.get(pid, 0.0) + 1.0 / ((r + 1) / w + k - 1)
            doc[pid] = did
    return [doc[p] for p in sorted(value, key=lambda p: -value[p])]


def rrf_rule(wd: float, wl: float, k: float = 2, pool: int = 500) -> Rule:
    def rule(row: dict[str, Any]) -> list[str]:
        lex = lexical_lists(row)
        lists = [(row["dense"], wd)] + [(h, wl / max(len(lex), 1)) for h in lex]
        return rrf(lists, k, pool)

    return rule


def lexical_rule(row: dict[str, Any]) -> list[str]:
    lex = lexical_lists(row)
    if len(lex) == 1:
        return [d for _, d, _ in lex[0]]
    return rrf([(h, 1.0) for h in lex], 2, 500)


def dense_rule(row: dict[str, Any]) -> list[str]:
    return [d for _, d, _ in row["dense"]]


def score_rule(rows: list[dict[str, Any]], qrels: dict[str, dict[str, int]], rule: Rule) -> float:
    vals = [ndcg10(rule(r), qrels[r["qid"]]) for r in rows if r["qid"] in qrels]
    return sum(vals) / max(len(vals), 1)


def load_rows(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def spread(scores: list[float], n: int) -> float:
    """How far the top score stands above the rest of the top ``n`` (z-score)."""
    a = np.asarray(scores[:n], dtype=np.float64)
    if len(a) < 3 or a.std() == 0:
        return 0.0
    return float((a[0] - a.mean()) / a.std())


def adaptive_rule(k: float = 2, n: int = 50, power: float = 1.0, base: float = 1.0) -> Rule:
    """RRF whose per-query weights follow each list's own top-score spread."""

    def rule(row: dict[str, Any]) -> list[str]:
        lex = lexical_lists(row)
        zd = spread([s for _, _, s in row["dense"]], n)
        zl = max((spread([s for _, _, s in h], n) for h in lex), default=0.0)
        wd, wl = max(zd, 1e-6) ** power, max(zl, 1e-6) ** power
        tot = wd + wl
        wd, wl = base * 2.2 * wd / tot, base * 2.2 * wl / tot
        lists = [(row["dense"], wd)] + [(h, wl / max(len(lex), 1)) for h in lex]
        return rrf(lists, k, 500)

    return rule


def convex_rule(alpha: float, n: int = 500) -> Rule:
    """alpha * min-max dense + (1 - alpha) * max-normalised BM25 (0 where absent)."""

    def rule(row: dict[str, Any]) -> list[str]:
        value: dict[str, float] = {}
        doc: dict[str, str] = {}
        dense = row["dense"][:n]
        if dense:
            hi, lo = dense[0][2], dense[-1][2]
            for pid, did, sc in dense:
                value[pid] = alpha * (sc - lo) / ((hi - lo) or 1.0)
                doc[pid] = did
        lex = lexical_lists(row)
        for h in lex:
            top = h[0][2] if h else 1.0
            for pid, did, sc in h[:n]:
                value[pid] = value.get(pid, 0.0) + (1 - alpha) * sc / (top or 1.0) / len(lex)
                doc[pid] = did
        return [doc[p] for p in sorted(value, key=lambda p: -value[p])]

    return rule


def score(args: argparse.Namespace) -> None:
    qrels = load_qrels(args.qrels)
    rows = load_rows(args.dump)
    rules: dict[str, Rule] = {
        "dense": dense_rule,
        "lexical": lexical_rule,
        "rrf shipped (k2 1.0/1.2)": rrf_rule(1.0, 1.2),
    }
    for wd in (0.3, 0.6, 1.5, 2.0):
        rules[f"rrf k2 {wd}/1.2"] = rrf_rule(wd, 1.2)
    for n in (10, 50):
        for power in (1.0, 2.0):
            rules[f"adaptive spread n{n} p{power}"] = adaptive_rule(n=n, power=power)
    for alpha in (0.3, 0.5, 0.7):
        rules[f"convex a{alpha}"] = convex_rule(alpha)
    for name, rule in rules.items():
        print(f"{name:<40} {score_rule(rows, qrels, rule):.4f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("-c", "--collection", required=True)
    d.add_argument("--queries", required=True)
    d.add_argument("--qrels", required=True)
    d.add_argument("--out", required=True)
    d.add_argument("--depth", type=int, default=300)
    d.add_argument("--level", choices=("doc", "section"), default="doc")
    c = sub.add_parser("calib")
    c.add_argument("-c", "--collection", required=True)
    c.add_argument("--corpus", required=True)
    c.add_argument("--n", type=int, default=200)
    c.add_argument("--words", type=int, default=8)
    sc = sub.add_parser("score")
    sc.add_argument("dump")
    sc.add_argument("--qrels", required=True)
    args = p.parse_args(argv)
    {"dump": dump, "score": score, "calib": calib}[args.cmd](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
