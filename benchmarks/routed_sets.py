"""Section hit@1 of ``Sectio.ask`` on a question set, by what decided the section.

Sets (BEIR-style ``queries.jsonl`` + ``qrels/<split>.tsv``, corpus-id
``doc_id#section_key``): ``consumer_meds`` (third-party consumer and clinician
questions, splits ``dev``/``holdout``) and ``drug_questions`` (ours,
``dev``/``holdout``/``test``), both labelled on the demo corpus, and
``consumer_meds_large`` (third-party questions labelled on
``benchmarks/data/drug_labels_large``, 350 openFDA labels; ``dev``/``holdout``;
read on that corpus whatever ``--corpus`` says). Corpora: ``demo`` (the
20-drug demo labels) or ``large``. A demo-labelled set on ``large`` scores only
questions whose every gold document is in the corpus (the gold sections were
judged on the demo excerpts; see the README).

A question is a hit when the first piece of evidence comes from a relevant
``doc_id#section_key``. What decided it: a profile ``phrase``, the section
``intent`` (its choice), or the route (overview, fallback search). Beside it,
plain dense similarity: the section of the top-1 chunk of a dense search over
the whole collection. Sets whose queries carry ``metadata.audience`` are also
broken down by it, and every set by the questions whose document ``ask`` did
not resolve (no name of the collection in them, or two). The ask latency is
wall time per call after the collection is warm.

Usage::

    .venv/bin/python benchmarks/routed_sets.py --set consumer_meds --split dev \\
        [--corpus demo|large] [--home DIR] [--profile NAME|FILE] [--show-misses]

``--home`` keeps the SECTIO_HOME (and its embedding cache) between runs;
without it a temporary one is used. The collection is re-ingested each run.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from sectio import Sectio, Settings  # noqa: E402
from sectio.demo import demo_corpus_path  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
#: Sets labelled against ``drug_labels_large`` (always read on that corpus).
LARGE_SETS = {"consumer_meds_large"}


def load_set(name: str, split: str) -> tuple[dict[str, str], dict[str, set[str]]]:
    """Queries of ``split`` that have qrels, and their relevant ``doc_id#section_key`` ids."""
    queries, qrels, _ = load_set_meta(name, split)
    return queries, qrels


def load_set_meta(
    name: str, split: str
) -> tuple[dict[str, str], dict[str, set[str]], dict[str, str]]:
    """:func:`load_set` plus each query's ``metadata.audience`` (when it has one)."""
    qrels: dict[str, set[str]] = defaultdict(set)
    with (DATA / name / "qrels" / f"{split}.tsv").open() as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if int(row["score"]) > 0:
                qrels[row["query-id"]].add(row["corpus-id"])
    queries, audience = {}, {}
    for line in (DATA / name / "queries.jsonl").read_text().splitlines():
        q = json.loads(line)
        if q["_id"] in qrels:
            queries[q["_id"]] = q["text"]
            if (q.get("metadata") or {}).get("audience"):
                audience[q["_id"]] = q["metadata"]["audience"]
    return queries, dict(qrels), audience


def corpus_file(corpus: str, home: Path) -> tuple[Path, set[str]]:
    """The chunk file of ``corpus`` (unpacked under ``home``) and its document ids."""
    if corpus == "demo":
        path = demo_corpus_path()
    else:
        path = home / "drug_labels_large.jsonl"
        if not path.exists():
            packed = DATA / "drug_labels_large" / "corpus.jsonl.gz"
            path.write_bytes(gzip.decompress(packed.read_bytes()))
    docs = {json.loads(line)["doc_id"] for line in path.read_text().splitlines() if line}
    return path, docs


def decided_by(details: dict[str, Any], route: str) -> str:
    """``phrase``, ``intent:<choice>`` or the route's name."""
    if (details.get("section_resolution") or {}).get("phrase"):
        return "phrase"
    if details.get("intent"):
        return "intent:" + str(details["intent"]["choice"])
    return route


def score(
    sx: Sectio,
    queries: dict[str, str],
    qrels: dict[str, set[str]],
    audience: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Hits (routed and dense top-1), latencies and the misses of ``ask`` on every query."""
    hits, dense_hits, latency, misses = 0, 0, [], []
    by, by_hit = Counter[str](), Counter[str]()
    groups: dict[str, Counter[str]] = defaultdict(Counter)
    for qid, text in queries.items():
        t = time.perf_counter()
        result = sx.ask(text, collection="bench", tenant="default", record=False)
        latency.append((time.perf_counter() - t) * 1000)
        top = result.evidence[0] if result.evidence else None
        got = f"{top.doc_id}#{top.section_key}" if top else None
        hit = got in qrels[qid]
        dense = sx.search(text, collection="bench", top_k=1, tenant="default", mode="dense")
        d_top = dense.hits[0] if dense.hits else None
        d_hit = d_top is not None and f"{d_top.doc_id}#{d_top.section_key}" in qrels[qid]
        how = decided_by(result.details, result.route)
        hits += hit
        dense_hits += d_hit
        by[how] += 1
        by_hit[how] += hit
        group = (audience or {}).get(qid, "")
        groups[group].update(n=1, routed=int(hit), dense=int(d_hit))
        if not (result.details.get("doc_resolution") or {}).get("doc_id"):
            groups["(no document resolved)"].update(n=1, routed=int(hit), dense=int(d_hit))
        if not hit:
            misses.append((qid, text, how, got, sorted(qrels[qid])))
    latency.sort()
    return {
        "hits": hits,
        "dense_hits": dense_hits,
        "groups": groups,
        "by": by,
        "by_hit": by_hit,
        "latency": latency,
        "misses": misses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--set",
        default="consumer_meds",
        choices=["consumer_meds", "drug_questions", "consumer_meds_large"],
    )
    parser.add_argument("--split", default="dev")
    parser.add_argument("--corpus", default="demo", choices=["demo", "large"])
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument("--profile", default="en_drug_label", help="a shipped name or a TOML file")
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp)
        home.mkdir(parents=True, exist_ok=True)
        if args.set in LARGE_SETS:
            args.corpus = "large"
        path, docs = corpus_file(args.corpus, home)
        queries, qrels, audience = load_set_meta(args.set, args.split)
        keep = {q for q, rel in qrels.items() if {r.split("#")[0] for r in rel} <= docs}
        queries = {q: t for q, t in queries.items() if q in keep}
        with Sectio(Settings(home=home / "sectio", embedder="minilm", traces=False)) as sx:
            t0 = time.perf_counter()
            sx.ingest(path, profile=args.profile, collection="bench", replace=True)
            ingest_s = time.perf_counter() - t0
            for text in queries.values():  # warm: embeddings cached, collection open
                sx.ask(text, collection="bench", tenant="default", record=False)
            out = score(sx, queries, qrels, audience)
    report(args, len(docs), ingest_s, out)


def report(args: argparse.Namespace, n_docs: int, ingest_s: float, out: dict[str, Any]) -> None:
    n, lat = len(out["latency"]), out["latency"]
    print(f"\n## {args.set} / {args.split} on {args.corpus} ({n_docs} documents): {n} questions")
    print(
        f"(ingest {ingest_s:.1f} s; ask p50 {lat[n // 2]:.2f} ms, "
        f"p95 {lat[int(n * 0.95) - 1]:.2f} ms)\n"
    )
    print(
        f"section hit@1: **{out['hits'] / n:.3f}** ({out['hits']}/{n}); "
        f"dense top-1: {out['dense_hits'] / n:.3f} ({out['dense_hits']}/{n})\n"
    )
    if len(out["groups"]) > 1 or "" not in out["groups"]:
        print("| audience (and questions whose document was not resolved) | n | routed | dense |")
        print("|---|---|---|---|")
        for group, c in sorted(out["groups"].items()):
            routed, dense = c["routed"] / c["n"], c["dense"] / c["n"]
            print(f"| {group or 'all'} | {c['n']} | {routed:.3f} | {dense:.3f} |")
        print()
    print("| decided by | n | hit@1 |")
    print("|---|---|---|")
    for how, count in out["by"].most_common():
        print(f"| {how} | {count} | {out['by_hit'][how] / count:.2f} |")
    if args.show_misses:
        print("\nmisses:")
        for qid, text, how, got, want in out["misses"]:
            print(f"  {qid} {text[:100]!r} -> {got} by {how} (want {', '.join(want)})")


if __name__ == "__main__":
    main()
