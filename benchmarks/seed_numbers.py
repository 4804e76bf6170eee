"""Measure seed-conformance numbers: lookup dense floor, ``minimum_score``, ``evidence_limit``.

Each is a number the seeds (or we) chose; this script measures it on real
third-party questions and prints one table row per candidate value, dev
(where a value may be chosen) beside holdout (never tuned on):

* ``lookup-floor``: ``lookup_dense_minimum_score`` (en_drug_label 0.45). The
  positives are the ``consumer_meds`` questions that name no drug and whose
  gold includes an ``indications_and_usage`` section (a condition -> the
  drugs for it: a reverse lookup); the negatives are the ``docs_offtopic``
  questions (other tools' FAQ and general questions) and the rare conditions
  MedQuAD asks about from GARD (``medquad_beir`` ``focus``, e.g.
  "Acatalasemia": none of the 20 common drugs is indicated for them; a name
  a label's indications do mention matches in the keyword stage and is left
  out). Sent whole, no positive question matches a label's indications as a
  contiguous phrase, so each reaches the dense stage the floor guards.
* ``minimum-score``: the fallback search's ``minimum_score`` (en_drug_label
  0.25) on every ``consumer_meds`` question and our ``drug_questions``
  through ``ask``: answered when an answer is expected, abstained when not.
* ``evidence-limit``: chunks the fallback search keeps (the seed's
  ``evidence_limit`` 3 against ``rerank_top_k`` 6) on SciFact claims: is the
  claim answered, and is its cited abstract among the evidence?

The stemming choice (English Snowball vs the unstemmed 'simple' analyser of
seed 004) is measured by ``benchmarks/tune_hybrid.py stemming``.

One ``ask``/``lookup`` per question at the loosest value, then each value is
applied to the recorded scores (a floor only removes what scores under it),
so a row is exactly what ``ask`` would answer with that value.

Usage::

    .venv/bin/python benchmarks/seed_numbers.py lookup-floor
    .venv/bin/python benchmarks/seed_numbers.py minimum-score [--evidence-limit 6]
    .venv/bin/python benchmarks/seed_numbers.py evidence-limit --home H --collection C \
        --qrels ../shared/data/scifact/qrels/train.tsv
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import BENCH, jsonl, open_drugs  # noqa: E402

from sectio import Sectio, Settings  # noqa: E402
from sectio.retrieve.pipeline import Router  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
SHARED = ROOT.parent / "shared" / "data"
LOOKUP_FLOORS = (0.0, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
MINIMUM_SCORES = (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
IND = "indications_and_usage"


def loose(sx: Sectio, collection: str, **policy: float) -> Router:
    base = sx.router(collection)
    return Router(
        base.collection,
        sx.embedder,
        policy=base.policy.with_overrides(**policy),
        guard=sx.tenant_guard,
    )


def row(label: str, cells: list[str]) -> None:
    print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


def share(hits: int, n: int) -> str:
    return f"{hits / n:.3f} ({hits}/{n})" if n else "-"


# --- lookup floor ---------------------------------------------------------------------
def lookup_questions() -> list[dict[str, Any]]:
    out = []
    for q in jsonl(DATA / "consumer_meds" / "queries.jsonl"):
        m = q["metadata"]
        gold = {g.split("#")[0] for g in m.get("gold") or [] if g.endswith(f"#{IND}")}
        if m["set"] == "no_drug" and gold:
            out.append({"text": q["text"], "split": m["split"], "gold": gold})
    for q in jsonl(DATA / "docs_offtopic" / "offtopic.jsonl"):
        out.append({"text": q["text"], "split": q["metadata"]["split"], "gold": set()})
    rare: dict[str, str] = {}
    for q in jsonl(DATA / "medquad_beir" / "queries.jsonl"):
        m = q["metadata"]
        if m["sources"] == ["GARD"]:
            rare.setdefault(m["focus"], "holdout" if m["split"] == "test" else "dev")
    for focus, split in rare.items():
        out.append({"text": focus, "split": split, "gold": set(), "rare": True})
    return out


def lookup_floor(_: argparse.Namespace) -> None:
    sx, coll = open_drugs()
    router = loose(sx, coll, lookup_dense_minimum_score=0.0)
    runs = []
    for q in lookup_questions():
        result = router.lookup(q["text"], tenant="default")
        docs = [(d["doc_id"], d["score"]) for d in result.details.get("documents", [])]
        runs.append({**q, "stage": result.details.get("stage"), "docs": docs})
    sx.close()
    literal = [r["text"] for r in runs if r["stage"] == "keyword"]
    runs = [r for r in runs if r["stage"] == "dense"]
    print(f"\n# lookup_dense_minimum_score, demo labels, MiniLM int8 ({time.strftime('%F')})")
    print(f"left out, matched in the keyword stage: {len(literal)} {literal[:8]}\n")
    print(
        "| floor | dev: positives answered / gold drug first / off-topic abstained / "
        "rare conditions abstained | holdout: the same |\n|---|---|---|"
    )
    for floor in LOOKUP_FLOORS:
        cells = []
        for split in ("dev", "holdout"):
            pos = [r for r in runs if r["split"] == split and r["gold"]]
            neg = [r for r in runs if r["split"] == split and not r["gold"] and not r.get("rare")]
            rare = [r for r in runs if r["split"] == split and r.get("rare")]

            def kept(r: dict[str, Any], f: float = floor) -> list[str]:
                return [d for d, s in r["docs"] if s >= f]

            answered = sum(1 for r in pos if kept(r))
            first = sum(1 for r in pos if kept(r) and kept(r)[0] in r["gold"])
            abstained = sum(1 for r in neg if not kept(r))
            rare_abstained = sum(1 for r in rare if not kept(r))
            cells.append(
                f"{share(answered, len(pos))} / {share(first, len(pos))} / "
                f"{share(abstained, len(neg))} / {share(rare_abstained, len(rare))}"
            )
        row(f"{floor:.2f}", cells)


# --- minimum_score ----------------------------------------------------------------------
def ask_questions() -> list[dict[str, Any]]:
    out = []
    for q in jsonl(DATA / "consumer_meds" / "queries.jsonl"):
        m = q["metadata"]
        out.append({"text": q["text"], "split": m["split"], "expect": m["expect"]})
    holdout = {
        line.split("\t")[0]
        for line in (DATA / "drug_questions" / "qrels" / "holdout.tsv").read_text().splitlines()
    }
    for q in jsonl(DATA / "drug_questions" / "queries.jsonl"):
        split = "holdout" if q["_id"] in holdout else "dev"
        out.append({"text": q["text"], "split": split, "expect": "answer"})
    return out


def minimum_score(args: argparse.Namespace) -> None:
    sx, coll = open_drugs()
    overrides = {"evidence_limit": args.evidence_limit} if args.evidence_limit else {}
    router = loose(sx, coll, minimum_score=0.0, **overrides)
    runs = []
    for q in ask_questions():
        result = router.ask(q["text"], tenant="default")
        best = (result.details.get("ranking") or {}).get("best_dense_score")
        runs.append({**q, "route": result.route, "decision": result.decision, "best": best})
    sx.close()
    fallback = sum(1 for r in runs if r["route"] == "fallback_search")
    print(f"\n# minimum_score (fallback search), demo labels, MiniLM int8 ({time.strftime('%F')})")
    print(f"{len(runs)} questions, {fallback} answered by the fallback search at 0.0")
    print(f"evidence_limit {router.policy.evidence_limit}\n")
    print(
        "| minimum_score | dev: answered (want answer) / abstained (want abstain) "
        "| holdout: the same |\n|---|---|---|"
    )

    def decision(r: dict[str, Any], floor: float) -> str:
        if r["route"] == "fallback_search" and (r["best"] or 0.0) < floor:
            return "ABSTAIN"
        return str(r["decision"])

    for floor in MINIMUM_SCORES:
        cells = []
        for split in ("dev", "holdout"):
            want = [r for r in runs if r["split"] == split and r["expect"] == "answer"]
            avoid = [r for r in runs if r["split"] == split and r["expect"] == "abstain"]
            answered = sum(1 for r in want if decision(r, floor) != "ABSTAIN")
            abstained = sum(1 for r in avoid if decision(r, floor) == "ABSTAIN")
            cells.append(f"{share(answered, len(want))} / {share(abstained, len(avoid))}")
        row(f"{floor:.2f}", cells)


# --- evidence_limit ---------------------------------------------------------------------
def evidence_limit(args: argparse.Namespace) -> None:
    cited: dict[str, set[str]] = {}
    for line in args.qrels.read_text().splitlines()[1:]:
        qid, doc, *_ = line.split("\t")
        cited.setdefault(qid, set()).add(doc)
    claims = [q for q in jsonl(args.queries) if q["_id"] in cited]
    sx = Sectio(Settings(home=args.home, embedder="minilm", traces=False))
    print(f"\n# evidence kept by the fallback search, {args.qrels} ({time.strftime('%F')})")
    print(f"{len(claims)} claims, collection {args.collection}\n")
    print(
        "| evidence_limit | answered | cited abstract in the evidence | evidence chunks |"
        "\n|---|---|---|---|"
    )
    for limit in args.limits:
        router = loose(sx, args.collection, evidence_limit=limit)
        answered = found = chunks = fallback = 0
        for q in claims:
            result = router.ask(q["text"], tenant="default")
            fallback += result.route == "fallback_search"
            answered += result.decision == "ANSWERABLE"
            docs = {e.doc_id for e in result.evidence}
            found += bool(docs & cited[q["_id"]])
            chunks += len(result.evidence)
        row(
            str(limit),
            [
                share(answered, len(claims)),
                share(found, len(claims)),
                f"{chunks / len(claims):.2f} ({fallback} by the fallback search)",
            ],
        )
    sx.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("lookup-floor", "minimum-score", "evidence-limit"))
    ap.add_argument("--home", type=Path, default=BENCH / "scifact-minilm")
    ap.add_argument("--collection", default="scifact")
    ap.add_argument("--queries", type=Path, default=SHARED / "scifact" / "queries.jsonl")
    ap.add_argument("--qrels", type=Path, default=SHARED / "scifact" / "qrels" / "train.tsv")
    ap.add_argument("--limits", type=int, nargs="+", default=[3, 6])
    ap.add_argument("--evidence-limit", type=int, default=None, help="minimum-score: override")
    args = ap.parse_args(argv)
    runs = {
        "lookup-floor": lookup_floor,
        "minimum-score": minimum_score,
        "evidence-limit": evidence_limit,
    }
    runs[args.what](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
