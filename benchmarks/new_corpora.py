"""Section routing and answerability on corpora sectio was never tuned on (issues 33, 34).

Sets (``benchmarks/data/<set>/``; see each folder's README):

* ``quic_rfc``: RFC 8999, 9000, 9001, 9002 as chunk JSONL, sections ``4.2.``;
* ``oss_licenses``: seven open-source licences as chunk JSONL, clauses
  ``6.`` / ``3.3.`` (a legal text in English);
* ``poetry_docs``: the Poetry documentation, a Markdown tree;
* ``requests_docs``: the Requests documentation, a reStructuredText tree (read as
  documents, ``--format markdown``);
* ``owasp_cheatsheets``: 32 OWASP Cheat Sheet Series cheat sheets (application
  security), a Markdown tree;
* ``jest_docs``: 37 pages of the Jest documentation (JavaScript testing), a Docusaurus
  Markdown tree (admonitions, MDX);
* ``vi_law``: 14 Vietnamese laws as chunk JSONL, articles ``Điều 5.``
  (ALQAC 2023 questions plus ours);
* ``eu_ai_act``: Regulation (EU) 2024/1689 (the AI Act) as chunk JSONL: 113
  articles, 180 recitals, 13 annexes (a legal text in English);
* ``fastapi_docs``: the FastAPI documentation (a Python web framework), 155 MkDocs
  Markdown pages with a 2,000-line release-notes page and a ``how-to/`` folder;
* ``trpc_docs``: the tRPC documentation (a TypeScript RPC library), a Docusaurus tree
  of 61 ``.md`` and 29 ``.mdx`` pages (MDX imports and components, an intro page
  titled with the product's name);
* ``git_docs``: 65 of Git's own manual pages (AsciiDoc, man-page style: two-line titles,
  ``NAME`` / ``SYNOPSIS`` / ``OPTIONS`` ... sections, labeled option lists, ``include::``
  lines the reader drops);
* ``handbook_18f``: the TTS Handbook (18F's staff handbook: leave, travel, benefits,
  equipment, tools), 246 Eleventy Markdown pages with Liquid shortcodes (an
  organisation's policies, a domain none of the others has).

Each holds answerable questions (``named_number``, ``named_title``: the
question names its section; ``unnamed``) with gold ``doc_id#section_key``
pairs, and off-topic ones (``offtopic_neighbour``, ``offtopic_general``) that
should abstain; split ``dev`` / ``holdout`` (never tuned on).

Per set and split, with the real MiniLM embedder and the default profile
(``generic`` for records, ``docs`` for Markdown) unless ``--profile`` names
one:

* ``search h@1`` / ``h@5``: plain ``sectio search`` (hybrid), a hit when one of
  the top 1 / 5 hits is a gold ``doc#section``;
* ``ask h@1``: the section of ``ask``'s first piece of section evidence is
  gold (abstained or not, as ``routed_sets.py`` counts it; the docs planner's
  derived rows, ``section_key`` ``_d1``..``_d5``, are passed over: they are
  not a section; ``ask_first`` in ``--per-query`` keeps the very first), over
  all answerable questions and over those that name their section;
* ``answered``: answerable questions ``ask`` did not abstain on;
  ``abstained``: off-topic questions it abstained on.

Usage::

    .venv/bin/python benchmarks/new_corpora.py
        [--sets quic_rfc,oss_licenses,poetry_docs,vi_law,requests_docs,owasp_cheatsheets,jest_docs,
                eu_ai_act,fastapi_docs,trpc_docs,git_docs,handbook_18f]
        [--splits dev,holdout] [--profile NAME|FILE] [--reingest]
        [--per-query DIR] [--show-misses]

Collections are built once under ``.sectio-bench/new-<set>-minilm`` (or
``-<profile>`` with ``--profile``) and reused; ``--reingest`` deletes that
home first and ingests cold (no embedding cache), and reports the ingest time.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import shutil
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "benchmarks" / "data"))

from _common import BENCH, jsonl  # noqa: E402
from _sets import SETS  # noqa: E402

from sectio import Sectio, Settings  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
#: Sets that are a docs tree (ingested as documents, the ``docs`` profile by default).
DOCS_TREES = (
    "poetry_docs",
    "requests_docs",
    "owasp_cheatsheets",
    "jest_docs",
    "fastapi_docs",
    "trpc_docs",
    "git_docs",
    "handbook_18f",
)
NAMED = ("named_number", "named_title")


@dataclass(frozen=True)
class Outcome:
    """What search and ask did with one question."""

    qid: str
    text: str
    kind: str
    split: str
    expect: str
    gold: list[str]
    search_top: list[str]
    ask_top: str | None
    ask_first: str | None
    decision: str
    reason: str
    route: str
    ask_ms: float

    @property
    def search_h1(self) -> bool:
        return bool(self.search_top[:1]) and self.search_top[0] in self.gold

    @property
    def search_h5(self) -> bool:
        return any(s in self.gold for s in self.search_top[:5])

    @property
    def ask_h1(self) -> bool:
        return self.ask_top in self.gold

    @property
    def abstained(self) -> bool:
        return self.decision == "ABSTAIN"


def _load(path: Path) -> Any:
    """The module in ``path`` (a set's builder), loaded under a private name (registered
    in ``sys.modules`` first, as an import does: a builder's dataclasses look it up)."""
    name = f"_builder_{path.parent.name}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def source_of(name: str, home: Path) -> tuple[Path, str | None]:
    """The path to ingest for ``name`` and its format: the set's builder builds the corpus
    from its source when missing (``.sectio-bench/corpora/``) and checks the gold against it;
    chunk files are unpacked under ``home``."""
    builder = _load(DATA / name / "build.py")
    if name in DOCS_TREES:
        return builder.ensure_tree(), "markdown"
    home.mkdir(parents=True, exist_ok=True)
    path = home / f"{name}.jsonl"
    path.write_bytes(gzip.decompress(builder.ensure_corpus().read_bytes()))
    return path, None


def open_set(
    name: str, profile: str | None, reingest: bool, embedder: str = "minilm"
) -> tuple[Sectio, str, float | None]:
    """A ``Sectio`` holding collection ``name`` (built when missing); the ingest time.

    MiniLM's home is ``new-<set>-minilm`` (``new-<set>-<profile>`` with a profile);
    another embedder's ``new-<set>-<embedder>[-<profile>]``, as ``answerability.py``'s.
    """
    if embedder == "minilm":
        tag = Path(profile).stem if profile else "minilm"
    else:
        tag = "-".join([embedder, *([Path(profile).stem] if profile else [])])
    home = BENCH / f"new-{name}-{tag}"
    if reingest and home.exists():
        shutil.rmtree(home)  # a cold ingest: no collection, no embedding cache
    sx = Sectio(Settings(home=home / "sectio", embedder=embedder, traces=False))  # type: ignore[arg-type]
    ingest_s = None
    if reingest or not sx.backend.exists(name):
        path, fmt = source_of(name, home)
        t0 = time.perf_counter()
        sx.ingest(path, fmt=fmt, profile=profile, collection=name, replace=True)
        ingest_s = time.perf_counter() - t0
    return sx, name, ingest_s


def questions(name: str, splits: tuple[str, ...]) -> list[dict[str, Any]]:
    """The set's questions in ``splits``, in file order."""
    return [q for q in jsonl(DATA / name / "questions.jsonl") if q["metadata"]["split"] in splits]


def run_one(sx: Sectio, coll: str, q: dict[str, Any]) -> Outcome:
    """Search (hybrid, top 5) and ask one question."""
    m = q["metadata"]
    hits = sx.search(q["text"], collection=coll, top_k=5, tenant="default", mode="hybrid").hits
    t0 = time.perf_counter()
    result = sx.ask(q["text"], collection=coll, tenant="default", record=False)
    ms = (time.perf_counter() - t0) * 1000
    sections = [e for e in result.evidence if not e.section_key.startswith("_d")]
    top = sections[0] if sections else None
    first = result.evidence[0] if result.evidence else None
    return Outcome(
        q["_id"],
        q["text"],
        m["kind"],
        m["split"],
        m["expect"],
        list(m["gold"]),
        [f"{h.doc_id}#{h.section_key}" for h in hits],
        f"{top.doc_id}#{top.section_key}" if top else None,
        f"{first.doc_id}#{first.section_key}" if first else None,
        result.decision,
        result.reason,
        result.route,
        ms,
    )


def share(rows: list[Outcome], attr: str) -> str:
    """``0.875 (35/40)``, or ``-`` with no rows."""
    if not rows:
        return "-"
    n = sum(bool(getattr(r, attr)) for r in rows)
    return f"{n / len(rows):.3f} ({n}/{len(rows)})"


def table_rows(name: str, split: str, rows: list[Outcome]) -> list[str]:
    """The Markdown table lines of one set and split."""
    ans = [r for r in rows if r.expect == "answer"]
    named = [r for r in ans if r.kind in NAMED]
    other = [r for r in ans if r.kind not in NAMED]
    off = [r for r in rows if r.expect == "abstain"]
    answered = [not r.abstained for r in ans]
    return [
        f"| {name} | {split} | {len(ans)} | {share(ans, 'search_h1')} | "
        f"{share(ans, 'search_h5')} | {share(ans, 'ask_h1')} | "
        f"{share(named, 'search_h1')} | {share(named, 'ask_h1')} | "
        f"{share(other, 'search_h1')} | {share(other, 'ask_h1')} | "
        f"{sum(answered) / max(len(ans), 1):.3f} ({sum(answered)}/{len(ans)}) | "
        f"{share(off, 'abstained')} |"
    ]


HEADER = (
    "| set | split | answerable | search h@1 | search h@5 | ask h@1 | "
    "named: search h@1 | named: ask h@1 | unnamed: search h@1 | unnamed: ask h@1 | "
    "answered | off-topic abstained |\n|" + "---|" * 12
)


def by_kind(rows: list[Outcome]) -> None:
    """Per kind: counts, ask h@1, answered / abstained, and the routes taken."""
    print("\n| set/split | kind | n | ask h@1 | answered or abstained (as wanted) | routes |")
    print("|---|---|---|---|---|---|")
    groups: dict[tuple[str, str], list[Outcome]] = {}
    for r in rows:
        groups.setdefault((r.split, r.kind), []).append(r)
    for (split, kind), sub in sorted(groups.items()):
        want = sum(r.abstained == (r.expect == "abstain") for r in sub)
        routes: dict[str, int] = {}
        for r in sub:
            routes[r.route] = routes.get(r.route, 0) + 1
        h1 = share(sub, "ask_h1") if sub[0].expect == "answer" else "-"
        route_s = ", ".join(f"{k} {v}" for k, v in sorted(routes.items()))
        print(f"| {split} | {kind} | {len(sub)} | {h1} | {want}/{len(sub)} | {route_s} |")


def misses(rows: list[Outcome]) -> None:
    for r in rows:
        wrong_route = r.expect == "answer" and not r.ask_h1
        if wrong_route or r.abstained != (r.expect == "abstain"):
            print(
                f"- [{r.split}/{r.kind}] {r.text[:90]!r} -> {r.decision} {r.reason} via "
                f"{r.route}: {r.ask_top} (search {r.search_top[:1]}; want {r.gold[:3]})"
            )


def run_set(name: str, args: argparse.Namespace) -> tuple[list[Outcome], float | None]:
    """Every question of ``name`` in the chosen splits (the collection warmed first)."""
    sx, coll, ingest_s = open_set(name, args.profile, args.reingest, args.embedder)
    try:
        qs = questions(name, tuple(args.splits.split(",")))
        for q in qs[:5]:  # warm: model loaded, collection open
            sx.ask(q["text"], collection=coll, tenant="default", record=False)
        rows = [run_one(sx, coll, q) for q in qs]
    finally:
        sx.close()
    return rows, ingest_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--splits", default="dev,holdout")
    ap.add_argument("--profile", default=None, help="a shipped profile name or a TOML file")
    ap.add_argument("--reingest", action="store_true")
    ap.add_argument("--embedder", choices=("minilm", "e5"), default="minilm")
    ap.add_argument("--per-query", type=Path, default=None)
    ap.add_argument("--show-misses", action="store_true")
    args = ap.parse_args()
    lines, notes, all_rows = [], [], {}
    for name in args.sets.split(","):
        rows, ingest_s = run_set(name, args)
        all_rows[name] = rows
        for split in args.splits.split(","):
            lines += table_rows(name, split, [r for r in rows if r.split == split])
        p50 = statistics.median(r.ask_ms for r in rows)
        took = f"ingest {ingest_s:.1f} s, " if ingest_s is not None else ""
        notes.append(f"{name}: {took}ask p50 {p50:.1f} ms over {len(rows)} questions")
        if args.per_query is not None:
            args.per_query.mkdir(parents=True, exist_ok=True)
            with (args.per_query / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
                for r in rows:
                    fh.write(json.dumps(asdict(r), ensure_ascii=False) + "\n")
    model = {"minilm": "MiniLM", "e5": "multilingual-e5-small"}[args.embedder]
    print(f"\n## New corpora, profile {args.profile or 'default'}, {model}\n")
    print(HEADER)
    print("\n".join(lines))
    print("\n" + "\n".join(f"- {n}" for n in notes))
    for name, rows in all_rows.items():
        print(f"\n### {name}")
        by_kind(rows)
        if args.show_misses:
            print("\nMisses:")
            misses(rows)


if __name__ == "__main__":
    main()
