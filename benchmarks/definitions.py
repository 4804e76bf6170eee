"""Definition questions: is the section that defines the term answered first?

Usage::

    .venv/bin/python benchmarks/definitions.py [--show-misses]

The questions (``benchmarks/data/definitions``) ask what a term is or means over three
of the new corpora and the Argo CD docs (the collections ``benchmarks/new_corpora.py``
and ``benchmarks/answerability.py`` build, built here when missing). Each runs through
``ask`` twice in one process: with the definition step (:mod:`sectio.retrieve.definitions`:
the defining chunk first, and the ``defined_term`` answerability rule) and without it
(both turned off), side by side: first row in a defining section (hit@1) and answered,
per corpus.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, print_table
from answerability import SETS

QUESTIONS = ROOT / "benchmarks" / "data" / "definitions" / "questions.jsonl"


@contextlib.contextmanager
def without_definitions() -> Iterator[None]:
    """The definition step turned off where the routes and the rule read it."""
    import sectio.plan.planner as planner
    import sectio.retrieve.answerability.rules.defined as rule
    import sectio.retrieve.routes.fallback as fallback
    import sectio.retrieve.routes.free_form as free_form

    routes = (fallback, free_form, planner)
    saved = [m.definition_first for m in routes], rule.defined_term

    def unchanged(question: str, evidence: Any) -> Any:
        return evidence

    for m in routes:
        m.definition_first = unchanged  # type: ignore[assignment]
    rule.defined_term = lambda question: None
    try:
        yield
    finally:
        for m, f in zip(routes, saved[0], strict=True):
            m.definition_first = f  # type: ignore[assignment]
        rule.defined_term = saved[1]


def run(sx: Any, coll: str, questions: list[dict[str, Any]]) -> list[tuple[bool, bool, str]]:
    """``(hit@1, answered, first row)`` per question."""
    out = []
    for q in questions:
        result = sx.ask(q["text"], collection=coll)
        first = result.evidence[0] if result.evidence else None
        row = f"{first.doc_id}#{first.section_key}" if first else "-"
        out.append((row in q["metadata"]["gold"], result.decision != "ABSTAIN", row))
    return out


def share(got: list[tuple[bool, bool, str]], i: int) -> str:
    """The share of ``got`` whose field ``i`` holds (0: hit@1, 1: answered), with counts."""
    k, n = sum(1 for g in got if g[i]), len(got)
    return f"{k / n:.3f} ({k}/{n})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    table: list[list[Any]] = []
    misses: list[str] = []
    for name in dict.fromkeys(r["metadata"]["set"] for r in rows):
        questions = [r for r in rows if r["metadata"]["set"] == name]
        opener, _ = SETS[name]
        sx, coll = opener()
        try:
            with without_definitions():
                before = run(sx, coll, questions)
            now = run(sx, coll, questions)
        finally:
            sx.close()
        shares = [share(got, i) for i in (0, 1) for got in (before, now)]
        table.append([name, len(questions), *shares])
        misses += [
            f"- [{name}] {q['text']!r} -> {got[2]} (answered: {got[1]}; "
            f"want {q['metadata']['gold']})"
            for q, got in zip(questions, now, strict=True)
            if not (got[0] and got[1])
        ]
    print_table(
        "Definition questions: first row in the defining section, answered (without -> with)",
        ["set", "n", "hit@1 without", "hit@1 with", "answered without", "answered with"],
        table,
    )
    if args.show_misses and misses:
        print("\nMisses (with the step):")
        print("\n".join(misses))


if __name__ == "__main__":
    main()
