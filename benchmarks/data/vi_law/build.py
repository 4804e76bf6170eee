#!/usr/bin/env python3
"""Rebuild the vi_law set: 14 Vietnamese laws as chunk JSONL, ALQAC 2023 questions plus ours.

Inputs
  * the ALQAC 2023 legal corpus and its 100 training questions as the
    workplace holds them in BEIR form (``--alqac``, default
    ``../shared/data/vi_alqac2023/beir``: ``corpus.jsonl`` with ``law_id``,
    ``article_id``, ``title``, ``text``; ``queries.jsonl``; ``qrels/train.tsv``);
  * ``labels_ours.tsv`` (ours): the questions we wrote (same columns as any
    ``labels.tsv``, see ``benchmarks/data/_sets.py``), gold written as
    ``<law name>||<article>`` and mapped here to ``doc_id#section_key``.

Two of the 16 laws are left out of the corpus, the Law on Residence (Luật Cư
trú) and the Law on Public Employees (Luật Viên chức): their 21 ALQAC
questions are the neighbouring off-topic set (Vietnamese legal questions
another law answers, not these 14). The other 79 ALQAC questions are
answerable, gold = their one relevant article.

Outputs
  .sectio-bench/corpora/vi_law/corpus.jsonl.gz (not committed; built from the
                    shared copy)   one record per chunk: doc_id (the law's name, ASCII slug:
                    ``luat-du-lich``), doc_title (the name: ``Luật Du lịch``),
                    section_key ``dieu_<n>``, section_title ``Điều <n>. <title>``,
                    part_index, text (the article's text, paragraphs packed to
                    ~1,200 characters; the title line is not repeated),
                    source_refs (the citation: law, article)
  questions.jsonl, qrels/{dev,holdout,all}.tsv   next to this file; see ``_sets.py``

Standard library only. Usage::

    python benchmarks/data/vi_law/build.py [--alqac DIR]

``ensure_corpus()`` builds the corpus when it is missing and checks the
committed gold against it (``benchmarks/new_corpora.py`` calls it).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))
from _sets import (  # noqa: E402
    ensure_records,
    read_labels,
    write_questions,
    write_records,
)

ALQAC = ROOT.parent / "shared" / "data" / "vi_alqac2023" / "beir"
LEFT_OUT = {"Luật Cư trú", "Luật Viên chức"}
MAX_CHARS = 1200
#: ALQAC questions on a law left out that a law in the corpus answers all the same (ours).
ANSWERED_ELSEWHERE = {
    "Người chưa thành niên có nguyện vọng học xa gia đình có thể cư trú tại nơi cư trú khác": (
        "Bộ luật dân sự",
        "41",
    ),
}
SOURCE = "ALQAC-2023-train"
SOURCE_REF = "ALQAC 2023 train.json (Task 1/2 training questions), BEIR copy in shared/data"


def slug(name: str) -> str:
    """ASCII slug of a law's name: ``Luật Phòng, chống ma túy`` -> ``luat-phong-chong-ma-tuy``."""
    ascii_ = unicodedata.normalize("NFKD", name.replace("đ", "d").replace("Đ", "D"))
    ascii_ = "".join(c for c in ascii_ if not unicodedata.combining(c)).lower()
    return "-".join("".join(c if c.isalnum() else " " for c in ascii_).split())


def pack(paras: list[str]) -> list[str]:
    chunks, cur = [], ""
    for p in paras:
        if cur and len(cur) + len(p) + 2 > MAX_CHARS:
            chunks.append(cur)
            cur = p
        else:
            cur = f"{cur}\n\n{p}" if cur else p
    if cur:
        chunks.append(cur)
    return chunks


def article_records(r: dict[str, str]) -> list[dict[str, object]]:
    law, number = r["law_id"], r["article_id"]
    title = r["title"].splitlines()[0].strip()
    lines = [line.strip() for line in r["text"].splitlines()]
    if lines and lines[0] == title:
        lines = lines[1:]
    paras = [line for line in lines if line]
    doc_id, key = slug(law), f"dieu_{number}"
    return [
        {
            "chunk_id": f"{doc_id}#{key}#{i}",
            "doc_id": doc_id,
            "doc_title": law,
            "section_key": key,
            "section_title": f"Điều {number}. {title}",
            "part_index": i,
            "text": text,
            "metadata": {"domain": "vi_law"},
            "source_refs": [{"source": f"{law}, Điều {number} (ALQAC 2023 law.json)"}],
        }
        for i, text in enumerate(pack(paras) or [title])
    ]


def alqac_rows(alqac: Path) -> list[dict[str, str]]:
    gold: dict[str, str] = {}
    with (alqac / "qrels" / "train.tsv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            gold[row["query-id"]] = row["corpus-id"]
    rows = []
    for line in (alqac / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        law, number = gold[q["_id"]].split("||")
        left_out = law in LEFT_OUT
        named_law = slug(law) in slug(q["text"])
        elsewhere = [v for k, v in ANSWERED_ELSEWHERE.items() if q["text"].startswith(k)]
        if left_out and elsewhere:
            rows.append(answered_elsewhere(q, law, number, *elsewhere[0]))
            continue
        rows.append(
            {
                "kind": "offtopic_neighbour" if left_out else "unnamed",
                "gold": "" if left_out else f"{slug(law)}#dieu_{number}",
                "text": q["text"],
                "source": SOURCE,
                "source_ref": f"{SOURCE_REF}; id {q['_id']} ({q['question_type']})",
                "note": (
                    f"relevant article: {law}, Điều {number} (left out of the corpus)"
                    if left_out
                    else ("names the law" if named_law else "")
                ),
            }
        )
    return rows


def answered_elsewhere(
    q: dict[str, str], law: str, number: str, other: str, other_number: str
) -> dict[str, str]:
    """An ALQAC question on a law left out, answerable from ``other`` (our judgement)."""
    return {
        "kind": "unnamed",
        "gold": f"{slug(other)}#dieu_{other_number}",
        "text": q["text"],
        "source": SOURCE,
        "source_ref": f"{SOURCE_REF}; id {q['_id']} ({q['question_type']})",
        "note": f"ALQAC gold {law}, Điều {number} (left out); ours: {other}, Điều {other_number}"
        " answers it too",
    }


def our_rows() -> list[dict[str, str]]:
    rows = read_labels(HERE / "labels_ours.tsv")
    for row in rows:
        gold = []
        for g in (row["gold"] or "").split(";"):
            if g:
                law, number = g.split("||")
                gold.append(f"{slug(law)}#dieu_{number}")
        row["gold"] = ";".join(gold)
    return rows


def write_corpus(alqac: Path) -> tuple[Path, set[str]]:
    """Build the corpus from the ALQAC copy into :data:`BUILT`; its path and article ids."""
    records = []
    for line in (alqac / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["law_id"] not in LEFT_OUT:
            records.extend(article_records(r))
    return write_records(HERE, records)


def ensure_corpus(alqac: Path = ALQAC) -> Path:
    """The built corpus (built from ``alqac`` when missing), its gold checked.

    Raises:
        SystemExit: a gold pair not in the corpus.
    """
    return ensure_records(HERE, lambda: write_corpus(alqac))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--alqac", type=Path, default=ALQAC)
    args = ap.parse_args()
    out, keys = write_corpus(args.alqac)
    n = write_questions(HERE, keys, alqac_rows(args.alqac) + our_rows(), prefix="vi_law")
    print(f"{out}: {len(keys)} articles; {n} questions")


if __name__ == "__main__":
    main()
