"""Build the medquad_beir retrieval set from a checkout of MedQuAD.

Usage:
    python build.py /path/to/MedQuAD [--out DIR]

The path is a checkout (or `git archive`) of https://github.com/abachaa/MedQuAD
holding the per-source folders of XML files (1_CancerGov_QA, 2_GARD_QA, ...).
Only the nine sources that still carry answers are read; the three MedlinePlus
folders whose answers were removed (ADAM, Drugs, Herbs/Supplements) are skipped.
The LiveQA qrels zip in that repository is never opened.

Output (BEIR layout) in --out (default: this file's folder):
    corpus.jsonl.gz   {"_id", "title", "text", "metadata"}
    queries.jsonl     {"_id", "text", "metadata"}
    qrels/dev.tsv, qrels/test.tsv   query-id, corpus-id, score (1)

Everything here only reshapes the MedQuAD text; see README.md for the rules.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import hashlib
import json
import pathlib
import xml.etree.ElementTree as ET

# folder -> short source name used in ids
SOURCES = {
    "1_CancerGov_QA": "CancerGov",
    "2_GARD_QA": "GARD",
    "3_GHR_QA": "GHR",
    "4_MPlus_Health_Topics_QA": "MPlusHealthTopics",
    "5_NIDDK_QA": "NIDDK",
    "6_NINDS_QA": "NINDS",
    "7_SeniorHealth_QA": "SeniorHealth",
    "8_NHLBI_QA_XML": "NHLBI",
    "9_CDC_QA": "CDC",
}
# The two big sources are thinned by whole document (see keep_document).
SAMPLED = {"GARD": 0.6, "GHR": 0.6}
MIN_ANSWER_CHARS = 40
LINK_LIST_PREFIX = "These resources address the diagnosis or management of"


def norm(text: str | None) -> str:
    return " ".join((text or "").split())


def bucket(key: str) -> float:
    """Deterministic number in [0, 1) from a string."""
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:8], 16) / 0x100000000


def keep_document(src: str, doc_id: str) -> bool:
    share = SAMPLED.get(src)
    return share is None or bucket(f"{src}/{doc_id}") < share


def split_of(query_id: str) -> str:
    """dev when the first 8 hex digits of sha256(query-id) are even, else test."""
    digest = hashlib.sha256(query_id.encode("utf-8")).hexdigest()
    return "dev" if int(digest[:8], 16) % 2 == 0 else "test"


def template_of(question: str, focus: str) -> str:
    """The question with its topic replaced by {focus}: 'What are the symptoms
    of {focus} ?'.  Empty when the topic is not written out in the question."""
    at = question.lower().find(focus.lower()) if focus else -1
    return question[:at] + "{focus}" + question[at + len(focus) :] if at >= 0 else ""


def read_pairs(root: pathlib.Path):
    for folder, src in SOURCES.items():
        for path in sorted((root / folder).glob("*.xml")):
            doc = ET.parse(path).getroot()
            doc_id = path.stem  # Document ids repeat across CancerGov files; file names do not
            focus = norm(doc.findtext("Focus"))
            url = doc.get("url", "")
            for qa in doc.iter("QAPair"):
                q, a = qa.find("Question"), qa.find("Answer")
                answer = norm(a.text if a is not None else "")
                question = norm(q.text if q is not None else "")
                if not answer or not question:
                    continue
                yield {
                    "src": src,
                    "doc_id": doc_id,
                    "pid": qa.get("pid"),
                    "focus": focus,
                    "url": url,
                    "qtype": (q.get("qtype") or "").strip(),
                    "question": question,
                    "answer": answer,
                }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("medquad", type=pathlib.Path)
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent)
    args = ap.parse_args()

    pairs = list(read_pairs(args.medquad))
    n_read = len(pairs)

    # 1. Answers that are the same text under two or more different foci are
    #    generic boilerplate ("This condition is inherited in an autosomal
    #    recessive pattern ...") that does not name the question's topic: drop.
    foci = collections.defaultdict(set)
    for p in pairs:
        foci[p["answer"]].add(p["focus"].lower())
    dropped = collections.Counter()
    kept = []
    for p in pairs:
        if not p["focus"]:
            dropped["document without a topic (Focus)"] += 1
        elif len(foci[p["answer"]]) > 1:
            dropped["generic answer shared by several topics"] += 1
        elif p["answer"].startswith(LINK_LIST_PREFIX):
            dropped["GHR link-list 'treatment' answer"] += 1
        elif len(p["answer"]) < MIN_ANSWER_CHARS:
            dropped[f"answer under {MIN_ANSWER_CHARS} characters"] += 1
        elif not keep_document(p["src"], p["doc_id"]):
            dropped["document not in the GARD/GHR sample"] += 1
        else:
            kept.append(p)

    # 2. One passage per distinct answer text (first occurrence gives the id).
    corpus: dict[str, dict] = {}
    passage_of_answer: dict[str, str] = {}
    for p in kept:
        if p["answer"] in passage_of_answer:
            continue
        cid = f"{p['src']}_{p['doc_id']}_{p['pid']}"
        passage_of_answer[p["answer"]] = cid
        corpus[cid] = {
            "_id": cid,
            "title": p["focus"],
            "text": p["answer"],
            "metadata": {
                "source": p["src"],
                "document": f"{p['src']}_{p['doc_id']}",
                "qtype": p["qtype"],
                "url": p["url"],
            },
        }

    # 3. One query per distinct question text (case-insensitive): a question
    #    asked word for word in several places is relevant to every answer.
    queries: dict[str, dict] = {}
    query_of_text: dict[str, str] = {}
    qrels = collections.defaultdict(set)
    query_pairs = collections.defaultdict(list)
    for p in kept:
        key = p["question"].lower()
        qid = query_of_text.get(key)
        if qid is None:
            qid = f"q_{p['src']}_{p['doc_id']}_{p['pid']}"
            query_of_text[key] = qid
            queries[qid] = {
                "_id": qid,
                "text": p["question"],
                "metadata": {
                    "qtype": p["qtype"],
                    "focus": p["focus"],
                    "sources": [],
                    "template": template_of(p["question"], p["focus"]),
                    "split": split_of(qid),
                },
            }
        if p["src"] not in queries[qid]["metadata"]["sources"]:
            queries[qid]["metadata"]["sources"].append(p["src"])
        qrels[qid].add(passage_of_answer[p["answer"]])
        query_pairs[qid].append(p)

    # 4. The same topic and question type answered in another document (for
    #    instance CancerGov's adult and patient versions of "treatment" for one
    #    cancer) is also relevant.  Only where each of the two documents has a
    #    single pair of that type, so that the match is unambiguous.
    per_doc_type = collections.Counter((p["src"], p["doc_id"], p["qtype"]) for p in kept)
    by_topic = collections.defaultdict(list)
    for p in kept:
        if per_doc_type[(p["src"], p["doc_id"], p["qtype"])] == 1:
            by_topic[(p["focus"].lower(), p["qtype"])].append(p)
    n_added = 0
    for qid, own in query_pairs.items():
        for p in own:
            if per_doc_type[(p["src"], p["doc_id"], p["qtype"])] != 1:
                continue
            for other in by_topic[(p["focus"].lower(), p["qtype"])]:
                cid = passage_of_answer[other["answer"]]
                if cid not in qrels[qid]:
                    qrels[qid].add(cid)
                    n_added += 1

    out = args.out
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(out / "corpus.jsonl.gz", "wb", mtime=0) as raw:
        for rec in corpus.values():
            raw.write((json.dumps(rec, ensure_ascii=False) + "\n").encode("utf-8"))
    with open(out / "queries.jsonl", "w", encoding="utf-8") as fh:
        for rec in queries.values():
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    counts = collections.Counter()
    for split in ("dev", "test"):
        with open(out / "qrels" / f"{split}.tsv", "w", encoding="utf-8") as fh:
            fh.write("query-id\tcorpus-id\tscore\n")
            for qid, rec in queries.items():
                if rec["metadata"]["split"] != split:
                    continue
                counts[split] += 1
                for cid in sorted(qrels[qid]):
                    fh.write(f"{qid}\t{cid}\t1\n")
                    counts[split + "_pairs"] += 1

    print(f"QA pairs with answers read: {n_read}")
    for why, n in dropped.most_common():
        print(f"  dropped ({why}): {n}")
    print(f"QA pairs kept: {len(kept)}")
    by_source = collections.Counter(r["metadata"]["source"] for r in corpus.values())
    print(f"passages: {len(corpus)}  by source: {dict(by_source)}")
    print(f"queries: {len(queries)}")
    for split in ("dev", "test"):
        print(f"  {split}: {counts[split]} queries, {counts[split + '_pairs']} qrels")
    print(f"qrels added for the same topic and question type in another document: {n_added}")
    multi = sum(1 for q in qrels.values() if len(q) > 1)
    print(f"queries with more than one relevant passage: {multi}")


if __name__ == "__main__":
    main()
