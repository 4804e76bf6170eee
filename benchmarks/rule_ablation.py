"""What each answerability rule decides alone: the chain replayed without it, question by question.

For every question of the chosen sets (those of ``benchmarks/answerability.py``),
the collection's chain is run as shipped and once more with each rule left
out. A rule's *catches* are the off-topic questions that abstain with it and
are answered without it (what removing it would lose); its *costs* are the
answerable questions that are answered without it and abstain with it (what
removing it would gain). Printed per set and split (dev / holdout), with the
questions of each, so a rule is judged on every corpus at once, not on the
one it was written for.

Usage::

    .venv/bin/python benchmarks/rule_ablation.py [--sets quic_rfc,oss_licenses,...]
        [--split dev|holdout|all] [--list]

Collections are those of ``benchmarks/answerability.py`` (built once under
``.sectio-bench/``).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from answerability import _split, run_set  # noqa: E402

from sectio.retrieve.answerability import Judge, chain  # noqa: E402

#: question text -> {rule name left out: answerable?} (None: the chain as shipped).
DECISIONS: dict[str, dict[str | None, bool]] = {}
#: question text -> every rule that abstains on it alone (:func:`_abstainers`).
ABSTAINERS: dict[str, list[str]] = {}
_JUDGE = Judge.judge
#: What leaving a rule out does to a question: an off-topic one answered (``catch``: the
#: rule stopped it), an answerable one answered (``cost``), an answerable one abstaining
#: (``save``: the rule passed it), an off-topic one abstaining (``leak``).
KINDS = ("catch", "cost", "save", "leak")


def _judge_all(self: Judge, turn: Any, stats: Any, **kw: Any) -> Any:
    """The shipped verdict, after recording the verdict of the chain without each rule."""
    rules = chain(self.rules or None)
    out: dict[str | None, bool] = {}
    for i, rule in enumerate(rules):
        rest = rules[:i] + rules[i + 1 :]
        if rest:
            out[rule.name] = _JUDGE(
                dataclasses.replace(self, rules=rest), turn, stats, **kw
            ).answerable
    verdict = _JUDGE(self, turn, stats, **kw)
    out[None] = verdict.answerable
    DECISIONS[turn.question] = out
    ABSTAINERS[turn.question] = _abstainers(self, rules, turn, stats, **kw)
    return verdict


def _abstainers(
    judge: Judge, rules: tuple[Any, ...], turn: Any, stats: Any, **kw: Any
) -> list[str]:
    """Every rule that abstains on its own (each run after the rules before it that pass
    nothing), up to the first rule that passes the question."""
    out = []
    for rule in rules:
        v = _JUDGE(dataclasses.replace(judge, rules=(rule,)), turn, stats, **kw)
        if v.signals.rule == "covered":
            continue
        if v.answerable:
            break
        out.append(v.signals.rule or rule.name)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="quic_rfc,oss_licenses,poetry_docs,requests_docs")
    ap.add_argument("--split", choices=("dev", "holdout", "all"), default="all")
    ap.add_argument("--list", action="store_true", help="print the questions of each cell")
    args = ap.parse_args()
    Judge.judge = _judge_all  # type: ignore[method-assign]
    total: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for name in args.sets.split(","):
        rows = run_set(name)
        cells: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
        for r in rows:
            split = _split(r.group)
            if args.split != "all" and split != args.split:
                continue
            dec = DECISIONS.get(r.text)
            if dec is None or dec[None] != (r.decision != "ABSTAIN"):
                continue  # not judged by the chain (e.g. refused before it)
            for rule, answerable in dec.items():
                if rule is None or answerable == dec[None]:
                    continue
                if not dec[None]:  # abstains with the rule, answered without it
                    kind = "catch" if r.expect == "abstain" else "cost"
                else:  # a rule that passes: answered with it, abstains without it
                    kind = "leak" if r.expect == "abstain" else "save"
                cells[(rule, split)].append((kind, r.text))
        print(f"\n## {name}\n\n| rule | split | catches | costs | saves | leaks |")
        print("|---|---|---|---|---|---|")
        for (rule, split), items in sorted(cells.items()):
            counts = [sum(k == kind for k, _ in items) for kind in KINDS]
            for i, c in enumerate(counts):
                total[(rule, split)][i] += c
            print(f"| {rule} | {split} | " + " | ".join(map(str, counts)) + " |")
        if args.list:
            for r in rows:
                if not r.correct:
                    print(f"- miss [{r.group}] {r.text[:90]!r}: {ABSTAINERS.get(r.text)}")
            for (rule, split), items in sorted(cells.items()):
                for kind, text in items:
                    print(f"- {rule} {split} {kind}: {text[:100]!r}")
    print("\n## all sets\n\n| rule | split | catches | costs | saves | leaks |")
    print("|---|---|---|---|---|---|")
    for (rule, split), counts in sorted(total.items()):
        print(f"| {rule} | {split} | " + " | ".join(map(str, counts)) + " |")


if __name__ == "__main__":
    main()
