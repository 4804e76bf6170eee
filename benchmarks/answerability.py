"""Answerability on real question sets: does ``ask`` abstain when, and only when, it should?

Sets (every question text third-party; labels ours; see each folder's README):

* ``drugs``: the shipped drug-label sample (20 drugs, profile ``en_drug_label``):
  ``consumer_meds`` on-corpus and no-drug questions (expect answer),
  off-corpus questions about 300+ other medicines and substances, look-alike
  names included (expect abstain), plus our own 197 ``drug_questions``
  (expect answer);
* ``scifact``: every SciFact test claim through ``ask`` (the cited abstract
  is in the corpus: expect answer);
* ``argocd``: our Argo CD questions (``ours/dev``, where the planner's
  margins were chosen, and ``ours/test``, held out) and real Argo CD issue
  questions (expect answer), other tools' FAQ questions and general
  questions (expect abstain). A second curve replays the docs planner's
  two margins (``planner_margin``, ``guest_margin``) by split;
* ``quic_rfc``, ``oss_licenses``, ``poetry_docs``, ``vi_law``, ``requests_docs``,
  ``owasp_cheatsheets``, ``jest_docs``, ``eu_ai_act``, ``fastapi_docs``, ``trpc_docs``,
  ``git_docs``, ``handbook_18f``: the corpora of ``benchmarks/new_corpora.py`` (default
  profile), answerable and off-topic questions, grouped ``<kind>/<split>``.

Each set is reported on its ``dev`` split (where thresholds were chosen) and
its ``holdout`` split (never tuned on), when it has them.

Usage::

    .venv/bin/python benchmarks/answerability.py [--sets drugs,scifact,argocd]
        [--per-query DIR] [--show-misses] [--embedder minilm|e5] [--profile NAME] [--joint]

``--embedder`` and ``--profile`` apply to the ``new_corpora.py`` sets only
(another model or profile is another collection, under
``.sectio-bench/new-<set>-<embedder>[-<profile>]``; the MiniLM default-profile
one is ``new_corpora.py``'s own).

Collections are built once under ``.sectio-bench/`` and reused (SciFact's
cold ingest takes ~6 minutes, Argo CD's ~7).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import BENCH, jsonl, open_drugs  # noqa: E402
from new_corpora import SETS as NEW_SETS  # noqa: E402
from new_corpora import open_set, source_of  # noqa: E402
from new_corpora import questions as new_questions  # noqa: E402

from sectio import Sectio, Settings  # noqa: E402
from sectio.eval.answerability import (  # noqa: E402
    Question,
    Row,
    curve,
    evaluate_answerability,
    rates,
    write_rows,
)

DATA = ROOT / "benchmarks" / "data"
SHARED = ROOT.parent / "shared" / "data"


def drug_questions() -> list[Question]:
    out = []
    for q in jsonl(DATA / "consumer_meds" / "queries.jsonl"):
        m = q["metadata"]
        out.append(Question(q["_id"], q["text"], m["expect"], f"{m['set']}/{m['split']}"))
    holdout = {
        line.split("\t")[0]
        for line in (DATA / "drug_questions" / "qrels" / "holdout.tsv").read_text().splitlines()
    }
    for q in jsonl(DATA / "drug_questions" / "queries.jsonl"):
        split = "holdout" if q["_id"] in holdout else "dev"
        out.append(Question(q["_id"], q["text"], "answer", f"ours/{split}"))
    return out


def scifact_questions() -> list[Question]:
    test = {
        line.split("\t")[0]
        for line in (SHARED / "scifact" / "qrels" / "test.tsv").read_text().splitlines()[1:]
    }
    return [
        Question(q["_id"], q["text"], "answer", "claims/test")
        for q in jsonl(SHARED / "scifact" / "queries.jsonl")
        if q["_id"] in test
    ]


def argocd_questions() -> list[Question]:
    split = {
        line.split("\t")[0]: name
        for name in ("dev", "test")
        for line in (DATA / "argocd" / "qrels" / f"{name}.tsv").read_text().splitlines()[1:]
    }
    out = [
        Question(q["_id"], q["text"], "answer", f"ours/{split[q['_id']]}")
        for q in jsonl(DATA / "argocd" / "queries.jsonl")
        if q["_id"] in split
    ]
    for name in ("argocd_real", "offtopic"):
        for q in jsonl(DATA / "docs_offtopic" / f"{name}.jsonl"):
            m = q["metadata"]
            out.append(Question(q["_id"], q["text"], m["expect"], f"{name}/{m['split']}"))
    return out


def open_scifact() -> tuple[Sectio, str]:
    home = BENCH / "scifact-minilm"
    sx = Sectio(Settings(home=home, embedder="minilm", traces=False))
    if not sx.backend.exists("scifact"):
        sx.ingest(SHARED / "scifact", fmt="beir", collection="scifact")
    return sx, "scifact"


def open_argocd() -> tuple[Sectio, str]:
    home = BENCH / "argocd-minilm"  # shared with benchmarks/docs_planner.py
    sx = Sectio(Settings(home=home, embedder="minilm", traces=False))
    if not sx.backend.exists("argocd"):
        sx.ingest(
            SHARED / "docs_argocd", fmt="markdown", profile="docs_argocd", collection="argocd"
        )
    return sx, "argocd"


#: The embedder and profile of the ``new_corpora.py`` sets (``--embedder``, ``--profile``).
NEW_OPTIONS: dict[str, str | None] = {"embedder": "minilm", "profile": None}


def open_new(name: str, embedder: str, profile: str | None) -> tuple[Sectio, str]:
    """A ``new_corpora.py`` set's collection with this embedder and profile (built when
    missing; MiniLM with the default profile is ``new_corpora.py``'s own collection)."""
    if embedder == "minilm" and profile is None:
        sx, coll, _ = open_set(name, None, False)
        return sx, coll
    home = BENCH / "-".join(["new", name, embedder, *([Path(profile).stem] if profile else [])])
    sx = Sectio(Settings(home=home / "sectio", embedder=embedder, traces=False))  # type: ignore[arg-type]
    if not sx.backend.exists(name):
        path, fmt = source_of(name, home)
        sx.ingest(path, fmt=fmt, profile=profile, collection=name, replace=True)
    return sx, name


def new_corpus(name: str) -> tuple[Any, Any]:
    """Opener and questions of a ``new_corpora.py`` set (groups ``<kind>/<split>``)."""

    def opener() -> tuple[Sectio, str]:
        return open_new(name, str(NEW_OPTIONS["embedder"]), NEW_OPTIONS["profile"])

    def labelled() -> list[Question]:
        return [
            Question(q["_id"], q["text"], m["expect"], f"{m['kind']}/{m['split']}")
            for q in new_questions(name, ("dev", "holdout"))
            for m in [q["metadata"]]
        ]

    return opener, labelled


SETS = {
    "drugs": (open_drugs, drug_questions),
    "scifact": (open_scifact, scifact_questions),
    "argocd": (open_argocd, argocd_questions),
    **{name: new_corpus(name) for name in NEW_SETS},
}


def run_set(name: str) -> list[Row]:
    """Every question of set ``name`` through ``ask`` on its collection (opened, then closed)."""
    opener, questions = SETS[name]
    sx, coll = opener()
    try:
        _report, rows = evaluate_answerability(sx, questions(), collection=coll, tenant="default")
    finally:
        sx.close()
    return rows


def table(name: str, rows: list[Row]) -> None:
    groups = sorted({r.group or "" for r in rows})
    print(f"\n## {name}: {len(rows)} questions\n")
    print("| group | n | expect | abstained (want abstain) / answered (want answer) |")
    print("|---|---|---|---|")
    for g in groups:
        sub = [r for r in rows if (r.group or "") == g]
        rt = rates(sub)
        share = rt.get("abstain_rate", rt.get("answer_rate"))
        expect = "abstain" if "abstain_rate" in rt else "answer"
        print(f"| {g} | {len(sub)} | {expect} | {share:.3f} |")
    by_route: dict[str, list[Row]] = {}
    for r in rows:
        by_route.setdefault(r.route, []).append(r)
    print("\n| route | n | abstain rate (want abstain) | answer rate (want answer) |")
    print("|---|---|---|---|")
    for route, sub in sorted(by_route.items()):
        rt = rates(sub)
        a = rt.get("abstain_rate")
        b = rt.get("answer_rate")
        print(
            f"| {route} | {len(sub)} | {'-' if a is None else f'{a:.3f}'} | "
            f"{'-' if b is None else f'{b:.3f}'} |"
        )
    print("\n| min_coverage | abstain rate | answer rate |\n|---|---|---|")
    for point in curve(rows):
        print(
            f"| {point['min_coverage']:.1f} | {point.get('abstain_rate', float('nan')):.3f} | "
            f"{point.get('answer_rate', float('nan')):.3f} |"
        )


#: The docs planner's margins the second curve replays (planner margin, guest margin).
MARGINS = ((0.0, 0.20), (0.05, 0.25), (0.10, 0.30), (0.10, 0.40), (0.15, 0.30), (0.20, 0.40))


def planner_abstains(row: Row, planner: float, guest: float) -> bool:
    """Whether a docs-planner row abstains under these margins (earlier rules kept): its
    best cosine, and with guest names the best cosine of the evidence naming each one."""
    sig = row.answerability.get("signals") or {}
    if sig.get("rule") not in ("covered", "dense", "guest_name"):
        return row.abstained
    floor = (row.answerability.get("thresholds") or {}).get("dense_floor")
    best = sig.get("best_dense")
    if floor is None or best is None:
        return row.abstained
    if sig.get("guest_names"):
        return min(best, *(sig.get("guest_cosines") or {}).values()) < floor + guest
    return best < floor + planner


def planner_curve(rows: list[Row]) -> None:
    """The docs planner's trade-off over its two margins, by split (dev, holdout)."""
    planned = [r for r in rows if r.route == "docs_plan"]
    if not planned:
        return
    print("\n| planner_margin | guest_margin | split | abstain rate | answer rate |")
    print("|---|---|---|---|---|")
    for planner, guest in MARGINS:
        for split in ("dev", "holdout"):
            sub = [r for r in planned if _split(r.group) == split]
            neg = [r for r in sub if r.expect == "abstain"]
            pos = [r for r in sub if r.expect == "answer"]
            a = sum(planner_abstains(r, planner, guest) for r in neg) / max(len(neg), 1)
            b = sum(not planner_abstains(r, planner, guest) for r in pos) / max(len(pos), 1)
            print(f"| {planner:.2f} | {guest:.2f} | {split} | {a:.3f} | {b:.3f} |")


#: The rules a passage holding the question's words together lets a question past.
WEAK_RULES = ("dense", "catalog", "coverage", "unseen_pairs")


def joint_table(rows: list[Row]) -> None:
    """The questions the weak-evidence rules still stop, by split and expectation, with the
    joint surprise their best passage reached (``signals.joint_surprise``: where
    ``weigh.JOINT_SURPRISE`` was chosen; a question over it passed, so is not here)."""
    stopped = [
        r
        for r in rows
        if r.abstained
        and (r.answerability.get("signals") or {}).get("rule") in WEAK_RULES
        and (r.answerability.get("signals") or {}).get("joint_surprise") is not None
    ]
    if not stopped:
        return
    print("\n| split | expect | stopped on weak evidence | highest joint surprise | its question |")
    print("|---|---|---|---|---|")
    for split in ("dev", "holdout"):
        for expect in ("abstain", "answer"):
            sub = [r for r in stopped if _split(r.group) == split and r.expect == expect]
            if sub:
                top = max(sub, key=lambda r: r.answerability["signals"]["joint_surprise"])
                best = top.answerability["signals"]["joint_surprise"]
                print(f"| {split} | {expect} | {len(sub)} | {best:.2f} | {top.text[:70]!r} |")


def _split(group: str | None) -> str:
    """``dev`` or ``holdout`` (our Argo CD test split is never tuned on: holdout)."""
    return "dev" if (group or "").endswith("/dev") else "holdout"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="drugs,scifact,argocd")
    ap.add_argument("--per-query", type=Path, default=None)
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--embedder", choices=("minilm", "e5"), default="minilm")
    ap.add_argument("--profile", default=None, help="a shipped profile name or a TOML file")
    ap.add_argument(
        "--joint", action="store_true", help="the joint surprise of questions stopped as weak"
    )
    args = ap.parse_args()
    NEW_OPTIONS.update(embedder=args.embedder, profile=args.profile)
    for name in args.sets.split(","):
        rows = run_set(name)
        table(name, rows)
        planner_curve(rows)
        if args.joint:
            joint_table(rows)
        if args.per_query is not None:
            args.per_query.mkdir(parents=True, exist_ok=True)
            write_rows(args.per_query / f"{name}.jsonl", rows)
        if args.show_misses:
            print("\nMisses:")
            for r in rows:
                if not r.correct:
                    sig = r.answerability.get("signals", {})
                    print(
                        f"- [{r.group}] {r.text[:90]!r} -> {r.decision} {r.reason} via {r.route}"
                        f" rule={sig.get('rule')} cov={sig.get('coverage')}"
                        f" unknown={sig.get('unknown')} cond={sig.get('condition')}"
                    )


if __name__ == "__main__":
    main()
