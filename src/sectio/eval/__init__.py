"""Evaluation: score a collection against BEIR-style queries and qrels (``sectio eval``).

Names are imported on first use (:mod:`sectio._lazy`): the CLI reads
:mod:`sectio.eval.choices` at start-up without loading the harness.
"""

from typing import TYPE_CHECKING

from sectio._lazy import exports

if TYPE_CHECKING:
    from sectio.eval.beir import load_qrels, load_queries
    from sectio.eval.choices import EVAL_MODES, LEVELS
    from sectio.eval.harness import EvalReport, evaluate, write_per_query

__getattr__, __dir__ = exports(
    __name__,
    {
        "EVAL_MODES": "sectio.eval.choices",
        "LEVELS": "sectio.eval.choices",
        "EvalReport": "sectio.eval.harness",
        "evaluate": "sectio.eval.harness",
        "load_qrels": "sectio.eval.beir",
        "load_queries": "sectio.eval.beir",
        "write_per_query": "sectio.eval.harness",
    },
)

__all__ = [
    "EVAL_MODES",
    "LEVELS",
    "EvalReport",
    "evaluate",
    "load_qrels",
    "load_queries",
    "write_per_query",
]
