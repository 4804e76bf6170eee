#!/usr/bin/env python3
"""Rebuild consumer_meds_large: real medication questions labelled against drug_labels_large.

Inputs
  * labels.tsv (ours): one row per selected question:
      source, source_id, gold, flags, note
    gold is "doc#section;doc#section" with the section keys of
    benchmarks/data/drug_labels_large (350 openFDA labels); flags are
    comma-separated (omission, multi_drug).
  * the raw question files of the public datasets, read from bare git mirrors at
    the commits pinned in ../consumer_meds/build.py (its SOURCES and readers are
    reused, so both sets read the very same files). --mirrors / --mirror as there.
  * ../drug_labels_large/corpus.jsonl.gz, to check that every gold doc#section
    exists.
  * ../consumer_meds/queries.jsonl and unanswerable_on_corpus.jsonl: a question
    that is also in consumer_meds keeps its split there (dev questions of that
    set were tuned on; they must not become holdout here).

Outputs (next to this file)
  queries.jsonl, qrels/{dev,holdout,all}.tsv

Question texts are copied verbatim from the sources (only leading/trailing
whitespace is stripped). Nothing is paraphrased here. Standard library only.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.util
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "drug_labels_large" / "corpus.jsonl.gz"
CONSUMER_MEDS = HERE.parent / "consumer_meds"


def _consumer_meds_build():
    spec = importlib.util.spec_from_file_location("cm_build", CONSUMER_MEDS / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cm = _consumer_meds_build()


def load_labels(path: Path) -> list[dict]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split("\t")
        if len(f) != 5:
            raise SystemExit(f"labels.tsv: expected 5 fields, got {len(f)}: {line!r}")
        src, sid, gold, flags, note = f
        rows.append(
            dict(
                source=src,
                source_id=sid,
                gold=[g for g in gold.split(";") if g],
                flags=[x for x in flags.split(",") if x],
                note=note,
            )
        )
    return rows


def qid(source: str, source_id: str) -> str:
    return "cml-" + hashlib.sha1(f"{source}|{source_id}".encode()).hexdigest()[:12]


def frozen_splits() -> dict[tuple[str, str], tuple[str, str]]:
    """(source, source_id) -> (consumer_meds _id, split) for every consumer_meds question."""
    out = {}
    for name in ("queries.jsonl", "unanswerable_on_corpus.jsonl"):
        for line in (CONSUMER_MEDS / name).read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            m = q["metadata"]
            out[(m["source_key"], m["source_id"])] = (q["_id"], m["split"])
    return out


def corpus_sections() -> set[str]:
    with gzip.open(CORPUS, "rt", encoding="utf-8") as fh:
        return {f"{r['doc_id']}#{r['section_key']}" for r in map(json.loads, fh)}


def build_items(labels: list[dict], texts: dict, sections: set[str]) -> list[dict]:
    errors, items, seen_text = [], [], {}
    frozen = frozen_splits()
    for r in labels:
        key = (r["source"], r["source_id"])
        text = texts.get(key)
        if not text:
            errors.append(f"no text for {key}")
            continue
        nt = cm.norm(text)
        if nt in seen_text:
            errors.append(f"duplicate text {key} == {seen_text[nt]}: {text!r}")
            continue
        seen_text[nt] = str(key)
        if not r["gold"]:
            errors.append(f"{key}: no gold")
        errors += [f"{key}: gold {g} not in corpus" for g in r["gold"] if g not in sections]
        doc_ids = list(dict.fromkeys(g.split("#")[0] for g in r["gold"]))
        meta = {
            "set": "on_corpus",
            "expect": "answer",
            "split": frozen[key][1] if key in frozen else None,
            "split_from": "consumer_meds" if key in frozen else "hash",
            "consumer_meds_id": frozen[key][0] if key in frozen else None,
            **cm.provenance(r["source"], r["source_id"]),
            "doc_id": doc_ids[0] if doc_ids else None,
            "doc_ids": doc_ids,
            "gold": r["gold"],
        }
        if r["flags"]:
            meta["flags"] = r["flags"]
        if r["note"]:
            meta["label_note"] = r["note"]
        items.append({"_id": qid(*key), "text": text, "metadata": meta})
    if errors:
        print("\n".join(errors), file=sys.stderr)
        raise SystemExit(f"{len(errors)} error(s); nothing written")
    # questions new to this set: consumer_meds' rule (60% dev by sha256 of the _id),
    # stratified by audience
    strata = defaultdict(list)
    for it in items:
        if it["metadata"]["split"] is None:
            strata[it["metadata"]["audience"]].append(it["_id"])
    split = {}
    for ids in strata.values():
        split.update(cm.split_of(ids))
    for it in items:
        if it["metadata"]["split"] is None:
            it["metadata"]["split"] = split[it["_id"]]
    items.sort(key=lambda it: (it["metadata"]["source_key"], it["_id"]))
    return items


def write(items: list[dict], out: Path) -> None:
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    with open(out / "queries.jsonl", "w", encoding="utf-8") as fh:
        for it in items:
            fh.write(json.dumps(it, ensure_ascii=False) + "\n")
    qrels = cm.write_qrels(out, items)
    c = Counter((it["metadata"]["audience"], it["metadata"]["split"]) for it in items)
    for aud in ("consumer", "clinician", "templated"):
        print(f"{aud:10s} dev={c[(aud, 'dev')]:4d} holdout={c[(aud, 'holdout')]:4d}")
    print("qrels rows: " + " ".join(f"{k}={len(v)}" for k, v in qrels.items()))


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--mirror", action="append", default=[])
    ap.add_argument("--labels", default=str(HERE / "labels.tsv"))
    ap.add_argument("--out", default=str(HERE))
    args = ap.parse_args()
    mirrors = cm.Mirrors(Path(args.mirrors), dict(x.split("=", 1) for x in args.mirror))
    labels = load_labels(Path(args.labels))
    needed: dict[str, set[str]] = defaultdict(set)
    for r in labels:
        if r["source"] not in cm.SOURCES:
            raise SystemExit(f"unknown source {r['source']}")
        needed[r["source"]].add(r["source_id"])
    texts = cm.load_texts(mirrors, needed)
    write(build_items(labels, texts, corpus_sections()), Path(args.out))


if __name__ == "__main__":
    main()
