#!/usr/bin/env python3
"""Rebuild the consumer_meds evaluation set from third-party raw data + our labels.

Inputs
  * labels.tsv (ours): one row per selected question:
      source, source_id, set, gold, subject, lookalike_of, flags, note
    set is on_corpus | off_corpus | no_drug | unanswerable.
    gold is "doc#section;doc#section" for on_corpus/no_drug, the doc_id(s) for
    unanswerable, empty for off_corpus.
  * the raw question files of the public datasets listed in SOURCES, read from
    bare git mirrors (git --git-dir=<mirror> show <commit>:<path>).  Point
    --mirrors at a directory that holds them as <owner>+<name>/repo (the layout
    of the mirror tool used to build this set) or pass --mirror owner/name=path.
    Every file is read at the pinned commit below.
  * src/sectio/demo/data/drug_labels.jsonl, to check that every gold
    doc#section exists.

Outputs (next to this file)
  queries.jsonl, unanswerable_on_corpus.jsonl, qrels/{dev,holdout,all}.tsv

Question texts are copied verbatim from the sources (only leading/trailing
whitespace is stripped).  Nothing is paraphrased here.
Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[2]
CORPUS = REPO_ROOT / "src/sectio/demo/data/drug_labels.jsonl"

SOURCES = {
    "LiveQA-Med-2017-train": dict(
        dataset="TREC 2017 LiveQA Medical task, training questions",
        repo="abachaa/LiveQA_MedicalTask_TREC2017",
        commit="74d361222a641703edd9874211cd84081bf1b042",
        licence=(
            "none stated in the repository (README asks for citation of Ben Abacha et al., "
            "TREC 2017); training files were deleted from the branch head on 2024-11-27 and "
            "are read from the commit before"
        ),
        audience="consumer",
        field="MESSAGE",
    ),
    "MeQSum": dict(
        dataset="MeQSum (consumer health question summarization)",
        repo="abachaa/MeQSum",
        commit="51e36cf65c12602333b6fdc3ae8ecf10430529f7",
        licence="CC BY 4.0",
        audience="consumer",
        field=(
            "Summary (expert-written question form of the consumer message; "
            "the CHQ column is the original)"
        ),
    ),
    "MEDIQA2021-QS-val": dict(
        dataset="MEDIQA 2021 Task 1 question summarization, validation set",
        repo="abachaa/MEDIQA2021",
        commit="8d7fe20706dd6af0d089a0252a201c3da78ded8f",
        licence="CC BY 4.0",
        audience="consumer",
        field="Summary",
    ),
    "MEDIQA2021-QS-test": dict(
        dataset="MEDIQA 2021 Task 1 question summarization, test set",
        repo="abachaa/MEDIQA2021",
        commit="8d7fe20706dd6af0d089a0252a201c3da78ded8f",
        licence="CC BY 4.0",
        audience="consumer",
        field="Summary",
    ),
    "MEDIQA2021-MAS-val": dict(
        dataset="MEDIQA 2021 Task 2 multi-answer summarization, validation short questions",
        repo="abachaa/MEDIQA2021",
        commit="8d7fe20706dd6af0d089a0252a201c3da78ded8f",
        licence="CC BY 4.0",
        audience="consumer",
        field="short question",
    ),
    "MEDIQA2021-MAS-test": dict(
        dataset="MEDIQA 2021 Task 2 multi-answer summarization, test short questions",
        repo="abachaa/MEDIQA2021",
        commit="8d7fe20706dd6af0d089a0252a201c3da78ded8f",
        licence="CC BY 4.0",
        audience="consumer",
        field="short question",
    ),
    "K-QA": dict(
        dataset="K-QA (real-world patient questions, K Health)",
        repo="Itaymanes/K-QA",
        commit="ef403d012e199fcfa0d8c02b38a96ff95164f4d0",
        licence="MIT",
        audience="consumer",
        field="Question",
    ),
    "RQE-AMIA2016-train": dict(
        dataset=(
            "RQE AMIA 2016 training pairs "
            "(NLM Clinical Questions collection, physicians' questions)"
        ),
        repo="abachaa/RQE_Data_AMIA2016",
        commit="9302fb9a55a437944ba6ce21a30023463a94a136",
        licence="CC BY 4.0",
        audience="clinician",
        field="faq of the originalQ-shortQ pair (NLM short form of the physician's question)",
    ),
    "MedQuAD": dict(
        dataset="MedQuAD, MedlinePlus drug collection (templated NIH questions)",
        repo="abachaa/MedQuAD",
        commit="577bd37b96c02d1833b2c9eed2de9f96964e96cb",
        licence="CC BY 4.0",
        audience="templated",
        field="Question",
    ),
}

SECTIONS = {
    "indications_and_usage",
    "dosage_and_administration",
    "contraindications",
    "warnings_and_cautions",
    "drug_interactions",
    "adverse_reactions",
}

DEV_FRACTION = 0.6


# ---------------------------------------------------------------- raw access
class Mirrors:
    def __init__(self, root: Path, overrides: dict[str, str]):
        self.root = root
        self.overrides = overrides

    def gitdir(self, repo: str) -> str:
        if repo in self.overrides:
            return self.overrides[repo]
        base = self.root / repo.replace("/", "+") / "repo"
        if (base / ".git").is_dir():
            return str(base / ".git")
        return str(base)

    def read(self, repo: str, commit: str, path: str) -> bytes:
        out = subprocess.run(
            ["git", f"--git-dir={self.gitdir(repo)}", "show", f"{commit}:{path}"],
            capture_output=True,
        )
        if out.returncode:
            raise SystemExit(f"cannot read {repo}@{commit}:{path}: {out.stderr.decode()[:300]}")
        return out.stdout

    def ls(self, repo: str, commit: str, folder: str) -> list[str]:
        out = subprocess.run(
            [
                "git",
                f"--git-dir={self.gitdir(repo)}",
                "ls-tree",
                "--name-only",
                commit,
                folder + "/",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.split()


def xlsx_rows(data: bytes) -> list[dict]:
    ns = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
    tag_t = "{" + ns["m"] + "}t"
    tag_row = "{" + ns["m"] + "}row"
    z = zipfile.ZipFile(io.BytesIO(data))
    shared = []
    if "xl/sharedStrings.xml" in z.namelist():
        for si in ET.fromstring(z.read("xl/sharedStrings.xml")).findall("m:si", ns):
            shared.append("".join(t.text or "" for t in si.iter(tag_t)))
    rows = []
    for r in ET.fromstring(z.read("xl/worksheets/sheet1.xml")).iter(tag_row):
        row = {}
        for c in r.findall("m:c", ns):
            v = c.find("m:v", ns)
            t = c.get("t")
            if t == "s":
                val = shared[int(v.text)]
            elif t == "inlineStr":
                val = "".join(x.text or "" for x in c.iter(tag_t))
            else:
                val = v.text if v is not None else None
            row[re.sub(r"\d", "", c.get("r"))] = val
        rows.append(row)
    header = rows[0]
    return [{header[k]: v for k, v in r.items() if k in header} for r in rows[1:]]


def load_texts(m: Mirrors, needed: dict[str, set[str]]) -> dict[tuple[str, str], str]:
    """Return {(source, source_id): verbatim text} for the ids in `needed`."""
    texts: dict[tuple[str, str], str] = {}

    def put(src, sid, text):
        if sid in needed.get(src, ()):
            texts[(src, sid)] = (text or "").strip()

    s = SOURCES["LiveQA-Med-2017-train"]
    if needed.get("LiveQA-Med-2017-train"):
        # training files only; the TestDataset folder is never read
        for tag in ("1", "2"):
            raw = m.read(
                s["repo"], s["commit"], f"TrainingDatasets/TREC-2017-LiveQA-Medical-Train-{tag}.xml"
            )
            for q in ET.fromstring(raw).findall("NLM-QUESTION"):
                qid = q.get("questionid") or q.get("qid")
                put("LiveQA-Med-2017-train", f"Train-{tag}:{qid}", q.findtext("MESSAGE"))

    s = SOURCES["MeQSum"]
    if needed.get("MeQSum"):
        raw = m.read(s["repo"], s["commit"], "MeQSum_ACL2019_BenAbacha_Demner-Fushman.xlsx")
        for r in xlsx_rows(raw):
            put("MeQSum", r["File"], r["Summary"])

    s = SOURCES["MEDIQA2021-QS-val"]
    for src, path in (
        ("MEDIQA2021-QS-val", "Task1/MEDIQA2021-Task1-QuestionSummarization-ValidationSet.xlsx"),
        ("MEDIQA2021-QS-test", "Task1/MEDIQA2021-Task1-TestSet-ReferenceSummaries.xlsx"),
    ):
        if needed.get(src):
            for r in xlsx_rows(m.read(s["repo"], s["commit"], path)):
                if r.get("q_id") is not None:
                    put(src, str(r["q_id"]), r["Summary"])
    for src, path in (
        (
            "MEDIQA2021-MAS-val",
            "Task2/Validation/MEDIQA2021_Task2_VAlidationSet_ShortQuestions.txt",
        ),
        ("MEDIQA2021-MAS-test", "Task2/Test/MEDIQA2021_Task2_MAS_TestSet_shortQuestions.txt"),
    ):
        if needed.get(src):
            for line in (
                m.read(s["repo"], s["commit"], path).decode("utf-8", "replace").splitlines()
            ):
                if "||" in line:
                    i, t = line.split("||", 1)
                    put(src, i.strip(), t)

    s = SOURCES["K-QA"]
    if needed.get("K-QA"):
        raw = m.read(s["repo"], s["commit"], "dataset/questions.jsonl").decode("utf-8")
        for n, line in enumerate(raw.splitlines(), 1):
            if line.strip():
                put("K-QA", f"questions.jsonl:{n}", json.loads(line)["Question"])

    s = SOURCES["RQE-AMIA2016-train"]
    if needed.get("RQE-AMIA2016-train"):
        raw = m.read(s["repo"], s["commit"], "RQE_Train_8588_AMIA2016.xml")
        for p in ET.fromstring(raw).findall("pair"):
            if p.get("type") == "originalQ-shortQ":
                put("RQE-AMIA2016-train", "pid" + p.get("pid"), p.findtext("faq"))

    s = SOURCES["MedQuAD"]
    if needed.get("MedQuAD"):
        # question ids restart in every collection, so ids are "<folder>/<qid>"
        want = defaultdict(set)
        for sid in needed["MedQuAD"]:
            folder, q = sid.split("/", 1)
            want[folder].add(q.split("-")[0])
        for folder, docs in want.items():
            for f in m.ls(s["repo"], s["commit"], folder):
                if Path(f).stem not in docs:
                    continue
                root = ET.fromstring(m.read(s["repo"], s["commit"], f))
                for q in root.iter("Question"):
                    put("MedQuAD", f"{folder}/{q.get('qid')}", q.text)
    return texts


# ---------------------------------------------------------------- labels
def load_labels(path: Path) -> list[dict]:
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip() or line.startswith("#"):
                continue
            f = line.rstrip("\n").split("\t")
            if len(f) != 8:
                raise SystemExit(f"labels.tsv: expected 8 fields, got {len(f)}: {line!r}")
            src, sid, st, gold, subject, lookalike, flags, note = f
            rows.append(
                dict(
                    source=src,
                    source_id=sid,
                    set=st,
                    gold=gold,
                    subject=subject,
                    lookalike_of=lookalike,
                    flags=[x for x in flags.split(",") if x],
                    note=note,
                )
            )
    return rows


def norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def write_qrels(out: Path, items: list[dict]) -> dict[str, list[tuple[str, str, int]]]:
    """``out/qrels/{dev,holdout,all}.tsv``: a row (score 1) per gold ``doc#section`` of each
    item, in item order, under its ``metadata.split`` and in ``all``; the rows, by file."""
    qrels: dict[str, list[tuple[str, str, int]]] = {"dev": [], "holdout": [], "all": []}
    for it in items:
        for g in it["metadata"]["gold"]:
            row = (it["_id"], g, 1)
            qrels["all"].append(row)
            qrels[it["metadata"]["split"]].append(row)
    for name, rows in qrels.items():
        with open(out / "qrels" / f"{name}.tsv", "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh, delimiter="\t", lineterminator="\n")
            w.writerow(["query-id", "corpus-id", "score"])
            w.writerows(rows)
    return qrels


def provenance(source_key: str, source_id: str) -> dict[str, str]:
    """Where a question's text comes from: its dataset, repository, commit, field,
    licence and audience (the metadata keys every set built from SOURCES carries)."""
    src = SOURCES[source_key]
    return {
        "source": src["dataset"],
        "source_key": source_key,
        "source_id": source_id,
        "source_repo": "https://github.com/" + src["repo"],
        "source_commit": src["commit"],
        "source_field": src["field"],
        "licence": src["licence"],
        "audience": src["audience"],
    }


def qid(source: str, source_id: str) -> str:
    return "cmq-" + hashlib.sha1(f"{source}|{source_id}".encode()).hexdigest()[:12]


def split_of(ids: list[str]) -> dict[str, str]:
    """Deterministic split of one stratum: sort by sha256(_id); first round(60%) -> dev."""
    order = sorted(ids, key=lambda i: hashlib.sha256(i.encode()).hexdigest())
    n_dev = round(DEV_FRACTION * len(order))
    return {i: ("dev" if k < n_dev else "holdout") for k, i in enumerate(order)}


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--mirrors",
        default="/work/.mirror",
        help="directory holding <owner>+<name>/repo git mirrors",
    )
    ap.add_argument(
        "--mirror",
        action="append",
        default=[],
        help="owner/name=/path/to/gitdir (overrides --mirrors)",
    )
    ap.add_argument("--labels", default=str(HERE / "labels.tsv"))
    ap.add_argument("--out", default=str(HERE))
    args = ap.parse_args()
    overrides = dict(x.split("=", 1) for x in args.mirror)
    mirrors = Mirrors(Path(args.mirrors), overrides)

    corpus_sections = set()
    with open(CORPUS, encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            corpus_sections.add(f"{r['doc_id']}#{r['section_key']}")
    corpus_docs = {k.split("#")[0] for k in corpus_sections}

    labels = load_labels(Path(args.labels))
    needed: dict[str, set[str]] = defaultdict(set)
    for r in labels:
        if r["source"] not in SOURCES:
            raise SystemExit(f"unknown source {r['source']}")
        needed[r["source"]].add(r["source_id"])
    texts = load_texts(mirrors, needed)

    errors = []
    seen_text: dict[str, str] = {}
    items = []
    for r in labels:
        key = (r["source"], r["source_id"])
        if key not in texts or not texts[key]:
            errors.append(f"no text for {key}")
            continue
        text = texts[key]
        nt = norm(text)
        if nt in seen_text:
            errors.append(f"duplicate text {key} == {seen_text[nt]}: {text!r}")
            continue
        seen_text[nt] = f"{key}"
        st = r["set"]
        gold = [g for g in r["gold"].split(";") if g]
        if st in ("on_corpus", "no_drug"):
            if not gold:
                errors.append(f"{key}: {st} without gold")
            for g in gold:
                if g not in corpus_sections:
                    errors.append(f"{key}: gold {g} not in corpus")
            doc_ids = list(dict.fromkeys(g.split("#")[0] for g in gold))
        elif st == "unanswerable":
            doc_ids = gold
            for d in doc_ids:
                if d not in corpus_docs:
                    errors.append(f"{key}: unknown doc {d}")
        elif st == "off_corpus":
            doc_ids = []
            if gold:
                errors.append(f"{key}: off_corpus with gold")
            if r["lookalike_of"] and r["lookalike_of"] not in corpus_docs:
                errors.append(f"{key}: lookalike_of {r['lookalike_of']} not a doc_id")
        else:
            errors.append(f"{key}: unknown set {st}")
            continue
        _id = qid(*key)
        meta = {
            "set": st,
            "expect": "answer" if st in ("on_corpus", "no_drug") else "abstain",
            "split": None,
            **provenance(r["source"], r["source_id"]),
            "doc_id": (doc_ids[0] if doc_ids and st != "no_drug" else None),
            "doc_ids": doc_ids,
            "subject": (r["subject"] or None) if st != "no_drug" else None,
        }
        if st == "off_corpus":
            meta["lookalike_of"] = r["lookalike_of"] or None
        if st in ("on_corpus", "no_drug"):
            meta["gold"] = gold
        if r["flags"]:
            meta["flags"] = r["flags"]
        if r["note"]:
            meta["label_note"] = r["note"]
        items.append({"_id": _id, "text": text, "metadata": meta})

    if errors:
        print("\n".join(errors), file=sys.stderr)
        raise SystemExit(f"{len(errors)} error(s); nothing written")

    # stratify by set and, inside each set, by audience (consumer/clinician/templated)
    by_set = defaultdict(list)
    for it in items:
        by_set[(it["metadata"]["set"], it["metadata"]["audience"])].append(it["_id"])
    split = {}
    for ids in by_set.values():
        split.update(split_of(ids))
    for it in items:
        it["metadata"]["split"] = split[it["_id"]]

    set_order = {"on_corpus": 0, "no_drug": 1, "off_corpus": 2, "unanswerable": 3}
    items.sort(
        key=lambda it: (set_order[it["metadata"]["set"]], it["metadata"]["source_key"], it["_id"])
    )

    out = Path(args.out)
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    with (
        open(out / "queries.jsonl", "w", encoding="utf-8") as q,
        open(out / "unanswerable_on_corpus.jsonl", "w", encoding="utf-8") as u,
    ):
        for it in items:
            fh = u if it["metadata"]["set"] == "unanswerable" else q
            fh.write(json.dumps(it, ensure_ascii=False) + "\n")
    graded = [it for it in items if it["metadata"]["set"] in ("on_corpus", "no_drug")]
    qrels = write_qrels(out, graded)

    c = Counter((it["metadata"]["set"], it["metadata"]["split"]) for it in items)
    for st in set_order:
        print(f"{st:13s} dev={c[(st, 'dev')]:4d} holdout={c[(st, 'holdout')]:4d}")
    print(
        f"qrels rows: all={len(qrels['all'])} dev={len(qrels['dev'])} "
        f"holdout={len(qrels['holdout'])}"
    )


if __name__ == "__main__":
    main()
