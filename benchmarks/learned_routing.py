"""What learned section routing costs (issue 33): the tenant view's build and the resolve step.

Learning happens where the router reads the tenant's records once (the same
complete read that builds the document catalog), not at ingest: ingest time
is the same with it on or off. This measures, on the collections that
``benchmarks/new_corpora.py`` built (``.sectio-bench/new-<set>-minilm``),
with learning on and off (``[learning] enabled``):

* ``view ms``: building the tenant's view (catalog, term statistics, learned
  vocabulary) from one scroll, median of ``--repeat`` builds;
* ``resolve p50 / p95 ms``: the resolve step (document and section) of every
  question of the set (both splits), vocabulary already built;
* for a docs tree (``poetry_docs``, ``requests_docs``, ``owasp_cheatsheets``,
  ``jest_docs``, the docs planner): the heading vocabulary's build and the planner's whole
  run per question (the headings are matched in it);
* with ``--ingest``: each set's ingest, learning on and off, the embedding cache
  warm (under ``.sectio-bench/ingest-<set>``): nothing is learned at ingest, so
  the two should be the same.

Usage::

    .venv/bin/python benchmarks/learned_routing.py
        [--sets quic_rfc,oss_licenses,vi_law,eu_ai_act,poetry_docs] [--repeat 3] [--ingest]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import BENCH, jsonl  # noqa: E402
from new_corpora import DOCS_TREES, source_of  # noqa: E402

from sectio import Sectio, Settings  # noqa: E402
from sectio.contract.profile import LearningSettings  # noqa: E402
from sectio.contract.request import AskRequest  # noqa: E402
from sectio.plan import DocsPlanner  # noqa: E402
from sectio.plan.sections import load_docs_vocabulary  # noqa: E402
from sectio.retrieve.resolve import Resolver  # noqa: E402
from sectio.retrieve.routes.base import Turn  # noqa: E402

#: Sets answered by the docs planner (a Markdown tree): ``new_corpora``'s docs trees.
DOCS_SETS = frozenset(DOCS_TREES)


def measure(name: str, repeat: int) -> list[str]:
    """Table rows for one set: learning off, then on."""
    sx = Sectio(Settings(home=BENCH / f"new-{name}-minilm" / "sectio", embedder="minilm"))
    rows = []
    try:
        router = sx.router(name)
        scope = router.scope("default")
        questions = [
            q["text"] for q in jsonl(ROOT / "benchmarks" / "data" / name / "questions.jsonl")
        ]
        for enabled in (False, True):
            profile = router.collection.profile.model_copy(
                update={"learning": LearningSettings(enabled=enabled)}
            )
            builds = []
            for _ in range(repeat):
                resolver = Resolver(profile, guard=router.guard, common=router.resolver.common)
                t0 = time.perf_counter()
                resolver.view(scope)
                builds.append((time.perf_counter() - t0) * 1000)
            times = []
            for q in questions:
                t0 = time.perf_counter()
                resolver.resolve(scope, Turn(AskRequest.of(q)))
                times.append((time.perf_counter() - t0) * 1000)
            times.sort()
            p95 = times[int(0.95 * (len(times) - 1))]
            rows.append(
                f"| {name} | {'on' if enabled else 'off'} | {statistics.median(builds):.0f} | "
                f"{statistics.median(times):.2f} / {p95:.2f} | {len(questions)} |"
            )
    finally:
        sx.close()
    return rows


class _NoLearning:
    """A vocabulary cache that learns nothing (``[learning] enabled = false``)."""

    def get(self, scope: object) -> None:
        return None


def measure_docs(name: str, repeat: int) -> list[str]:
    """Table rows for a docs tree (the docs planner): learning off, then on. ``view ms``
    is the heading vocabulary's build (one scroll of the page chunks), ``resolve`` the
    planner's run (route, plan and execution: the headings are matched inside it), every
    question's vector already in the embedder's LRU (what learning adds, not the model)."""
    sx = Sectio(Settings(home=BENCH / f"new-{name}-minilm" / "sectio", embedder="minilm"))
    rows = []
    try:
        router = sx.router(name)
        scope = router.scope("default")
        questions = [
            q["text"] for q in jsonl(ROOT / "benchmarks" / "data" / name / "questions.jsonl")
        ]
        for q in questions:  # warm: model, catalog, and every question's vector in the LRU
            DocsPlanner().run(scope, AskRequest.of(q))
        for enabled in (False, True):
            planner = DocsPlanner()
            builds = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                load_docs_vocabulary(scope)
                builds.append((time.perf_counter() - t0) * 1000)
            if not enabled:
                planner.vocabularies = _NoLearning()  # type: ignore[assignment]
            planner.run(scope, AskRequest.of(questions[0]))  # its catalog and vocabulary
            times = []
            for q in questions:
                t0 = time.perf_counter()
                planner.run(scope, AskRequest.of(q))
                times.append((time.perf_counter() - t0) * 1000)
            times.sort()
            p95 = times[int(0.95 * (len(times) - 1))]
            view = f"{statistics.median(builds):.0f}" if enabled else "-"
            rows.append(
                f"| {name} (planner run) | {'on' if enabled else 'off'} | {view} | "
                f"{statistics.median(times):.2f} / {p95:.2f} | {len(questions)} |"
            )
    finally:
        sx.close()
    return rows


def measure_ingest(name: str, repeat: int) -> str:
    """One table row: the set's ingest with learning on and off (``[learning] enabled``
    in a copy of the default profile), the embedding cache warm (one ingest first), the
    median of ``repeat`` each; what learning adds to ingest, not the model's time."""
    home = BENCH / f"ingest-{name}"
    home.mkdir(parents=True, exist_ok=True)
    path, fmt = source_of(name, home)
    base = "docs" if name in DOCS_SETS else "generic"
    text = (ROOT / "src" / "sectio" / "contract" / "profiles" / f"{base}.toml").read_text()
    off = home / f"{base}_nolearn.toml"
    off.write_text(
        text.replace(f'name = "{base}"', f'name = "{base}_nolearn"')
        + "\n[learning]\nenabled = false\n"
    )
    sx = Sectio(Settings(home=home / "sectio", embedder="minilm", traces=False))
    took: dict[str, list[float]] = {"on": [], "off": []}
    try:
        # warm the cache; then each ingest changes the profile, so none is a no-op re-ingest
        sx.ingest(path, fmt=fmt, profile=str(off), collection=name, replace=True)
        for _ in range(repeat):
            for label, profile in (("on", base), ("off", str(off))):
                t0 = time.perf_counter()
                sx.ingest(path, fmt=fmt, profile=profile, collection=name, replace=True)
                took[label].append(time.perf_counter() - t0)
    finally:
        sx.close()
    on, off_s = statistics.median(took["on"]), statistics.median(took["off"])
    return f"| {name} | {on:.1f} | {off_s:.1f} | {on / off_s:.2f}x | {repeat} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="quic_rfc,oss_licenses,vi_law,eu_ai_act,poetry_docs")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ingest", action="store_true", help="time ingest, learning on vs off")
    args = ap.parse_args()
    if args.ingest:
        print("| set | ingest on s | ingest off s | on / off | runs |\n|---|---|---|---|---|")
        for name in args.sets.split(","):
            print(measure_ingest(name, args.repeat))
        return
    print("| set | learning | view ms | resolve p50 / p95 ms | questions |")
    print("|---|---|---|---|---|")
    for name in args.sets.split(","):
        rows = measure_docs(name, args.repeat) if name in DOCS_SETS else measure(name, args.repeat)
        for row in rows:
            print(row)


if __name__ == "__main__":
    main()
