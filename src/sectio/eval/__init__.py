"""Evaluation: score a collection against BEIR-style queries and qrels (``sectio eval``)."""

from sectio.eval.beir import load_qrels, load_queries
from sectio.eval.harness import EVAL_MODES, LEVELS, EvalReport, evaluate, write_per_query

__all__ = [
    "EVAL_MODES",
    "LEVELS",
    "EvalReport",
    "evaluate",
    "load_qrels",
    "load_queries",
    "write_per_query",
]
