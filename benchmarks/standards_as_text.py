"""The QUIC RFCs as a user has them, four ``.txt`` files, ingested with no flag and no profile.

``benchmarks/new_corpora.py`` measures the ``quic_rfc`` set on chunk records
built from the RFCs (``benchmarks/data/quic_rfc/build.py``: numbered sections
cut by that script, references and front matter dropped). A stranger has the
RFC Editor's text files: this script copies them from the same pinned mirror
into a folder, runs ``sectio ingest FOLDER`` as is (read as text documents,
the ``docs`` profile, the docs planner), and asks every question of the set.

A hit: ``ask``'s first section row (the planner's derived rows passed over) is
in the gold document and its title starts with the gold section's number
(``rfc9000#s10.3`` -> "10.3. Stateless Reset"; ``sA.1`` -> "A.1. ...";
``sA`` -> "Appendix A. ..."), the number read from the RFC's own heading.
Printed per split and kind: ``ask`` h@1, plain hybrid ``search`` h@1 (same
rule), answerable questions answered and off-topic ones abstained.

Usage::

    .venv/bin/python benchmarks/standards_as_text.py [--reingest] [--show-misses]
        [--profile NAME]

The collection is built once under ``.sectio-bench/quic-txt-minilm`` (``-<profile>`` with
``--profile``, which ingests with that profile instead of the default) and reused.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "benchmarks" / "data"))
sys.path.insert(0, str(ROOT / "benchmarks" / "data" / "quic_rfc"))

from _common import BENCH, jsonl  # noqa: E402
from _sets import mirror_of  # noqa: E402
from build import REPO, RFCS, git_show  # noqa: E402

from sectio import Sectio, Settings  # noqa: E402

QUESTIONS = ROOT / "benchmarks" / "data" / "quic_rfc" / "questions.jsonl"
HOME = BENCH / "quic-txt-minilm"
COLLECTION = "quic_txt"


def number_of(title: str) -> str | None:
    """The section number a heading starts with: "10.3. Stateless Reset" -> "10.3",
    "Appendix A. Pseudocode" -> "A", "A.1. Sample" -> "A.1"."""
    m = re.match(r"^(?:Appendix )?([A-Z]|\d+)((?:\.\d+)*)\.?\s", title)
    return m.group(1) + m.group(2) if m else None


def hit(doc_id: str | None, title: str | None, gold: list[str]) -> bool:
    """Whether a row of ``doc_id`` titled ``title`` is one of the gold sections."""
    if doc_id is None or title is None:
        return False
    for g in gold:
        doc, key = g.split("#")
        if doc_id == f"{doc}.txt" and number_of(title) == key.removeprefix("s"):
            return True
    return False


def open_collection(reingest: bool, profile: str | None) -> Sectio:
    """A ``Sectio`` holding the RFC text files as ingested with no flag (or ``profile``;
    built when missing)."""
    folder = BENCH / "corpora" / "quic_rfc_txt"
    home = HOME.with_name(f"{HOME.name}-{profile}") if profile else HOME
    if reingest and home.exists():
        shutil.rmtree(home)
    sx = Sectio(Settings(home=home, traces=False))
    if not sx.backend.exists(COLLECTION):
        folder.mkdir(parents=True, exist_ok=True)
        mirror = mirror_of(REPO)
        for name in RFCS:
            (folder / f"{name}.txt").write_text(git_show(mirror, f"rfc/{name}.txt"))
        report = sx.ingest(folder, collection=COLLECTION, profile=profile)
        print(f"ingested {report.detected}: {report.upserted} chunks, {report.seconds:.1f} s")
    return sx


def run(sx: Sectio, q: dict[str, Any]) -> dict[str, Any]:
    """One question: the ask and search rows it is judged by."""
    m = q["metadata"]
    result = sx.ask(q["text"], collection=COLLECTION, record=False)
    rows = [e for e in result.evidence if not e.section_key.startswith("_d")]
    top = rows[0] if rows else None
    found = sx.search(q["text"], collection=COLLECTION, top_k=1, mode="hybrid").hits
    first = found[0] if found else None
    return {
        "text": q["text"],
        "split": m["split"],
        "kind": m["kind"],
        "expect": m["expect"],
        "ask": hit(top.doc_id if top else None, top.section_title if top else None, m["gold"]),
        "search": hit(
            first.doc_id if first else None, first.section_title if first else None, m["gold"]
        ),
        "abstained": result.decision == "ABSTAIN",
        "top": f"{top.doc_id}: {top.section_title}" if top else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reingest", action="store_true")
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--profile", default=None, help="ingest with this profile (default: none)")
    args = ap.parse_args()
    sx = open_collection(args.reingest, args.profile)
    try:
        rows = [run(sx, q) for q in jsonl(QUESTIONS)]
    finally:
        sx.close()
    print("\n| split | kind | n | ask h@1 | search h@1 | answered or abstained (as wanted) |")
    print("|---|---|---|---|---|---|")
    for split, kind in sorted({(r["split"], r["kind"]) for r in rows}):
        sub = [r for r in rows if (r["split"], r["kind"]) == (split, kind)]
        n = len(sub)
        right = Counter(r["abstained"] == (r["expect"] == "abstain") for r in sub)[True]
        if sub[0]["expect"] == "answer":
            ask, search = sum(r["ask"] for r in sub), sum(r["search"] for r in sub)
            cells = f"{ask / n:.3f} ({ask}/{n}) | {search / n:.3f} ({search}/{n})"
        else:
            cells = "- | -"
        print(f"| {split} | {kind} | {n} | {cells} | {right}/{n} |")
    if args.show_misses:
        for r in rows:
            wrong = r["abstained"] == (r["expect"] == "answer")
            if wrong or (r["expect"] == "answer" and not r["ask"]):
                print(f"- [{r['split']}/{r['kind']}] {r['text'][:80]!r} -> {r['top']}"
                      f"{' (abstained)' if r['abstained'] else ''}")  # fmt: skip


if __name__ == "__main__":
    main()
