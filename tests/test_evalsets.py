"""The new-corpus question sets (``benchmarks/data/``: quic_rfc, oss_licenses, poetry_docs,
vi_law, requests_docs, owasp_cheatsheets, jest_docs, eu_ai_act, fastapi_docs, trpc_docs,
git_docs, handbook_18f) hold together.

Question files only: the corpora are third-party texts built from their
sources by each set's ``build.py`` (into ``.sectio-bench/corpora/``, not
committed), which also checks every gold ``doc_id#section_key`` against the
corpus, as ``benchmarks/new_corpora.py`` does before it ingests. Here: each set
keeps 40+ answerable and 20+ off-topic questions, unique ids, gold exactly on
the answerable ones, and the committed dev/holdout split is the one the
shared rule gives (so no one moves a question into dev by hand).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data"


def _sets_module() -> Any:
    """``benchmarks/data/_sets.py``: the set list and the split rule the builders share."""
    if "_evalsets_sets" in sys.modules:
        return sys.modules["_evalsets_sets"]
    spec = importlib.util.spec_from_file_location("_evalsets_sets", DATA / "_sets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["_evalsets_sets"] = module  # a dataclass of the module reads its module
    spec.loader.exec_module(module)
    return module


SETS = list(_sets_module().SETS)


def _split_rule() -> Any:
    return _sets_module().split_of


def _questions(name: str) -> list[dict[str, Any]]:
    lines = (DATA / name / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize("name", SETS)
def test_question_sets_hold_together(name: str) -> None:
    qs = _questions(name)
    counts: dict[str, int] = defaultdict(int)
    by_kind: dict[str, list[str]] = defaultdict(list)
    for q in qs:
        m = q["metadata"]
        counts[m["expect"]] += 1
        by_kind[m["kind"]].append(q["_id"])
        assert bool(m["gold"]) == (m["expect"] == "answer"), q["_id"]
        assert all("#" in g and g.split("#", 1)[1] for g in m["gold"]), q["_id"]
    assert counts["answer"] >= 40 and counts["abstain"] >= 20, dict(counts)
    assert len({q["_id"] for q in qs}) == len(qs)
    assert {q["_id"]: q["metadata"]["split"] for q in qs} == _split_rule()(by_kind)
    assert {q["metadata"]["split"] for q in qs} == {"dev", "holdout"}


def test_qrels_match_the_questions() -> None:
    for name in SETS:
        gold = {
            (q["_id"], g, q["metadata"]["split"])
            for q in _questions(name)
            for g in q["metadata"]["gold"]
        }
        rows = set()
        for split in ("dev", "holdout"):
            lines = (DATA / name / "qrels" / f"{split}.tsv").read_text().splitlines()[1:]
            rows |= {(*line.split("\t")[:2], split) for line in lines}
        assert rows == gold, name
