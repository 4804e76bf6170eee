"""A dense floor calibrated on the collection: how close do unrelated questions get?

Cosines are not comparable across models or corpora (MiniLM's unrelated pairs
score ~0.1-0.3; multilingual-e5's 0.72-0.81), so one constant floor cannot
serve every collection. The floor is measured instead: a fixed bank of 256
general-knowledge questions (Natural Questions, shipped in
``sectio/retrieve/data/calibration_questions.txt``; CC BY-SA 3.0) is embedded
and each one's best cosine among the tenant's prose chunks is read; the floor
is the ``percentile`` (profile ``[answerability] calibration_percentile``) of
those cosines. Evidence whose best cosine is at or under it is no closer to
the question than unrelated questions get to this corpus.

Example:
    >>> len(bank()) == 256 and all(q.strip() for q in bank())
    True
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import numpy as np

from sectio.retrieve.scan import prose_where
from sectio.retrieve.scope import ReadScope

BANK_FILE = "data/calibration_questions.txt"


@lru_cache(maxsize=1)
def bank() -> tuple[str, ...]:
    """The shipped calibration questions (comment lines dropped)."""
    text = resources.files("sectio.retrieve").joinpath(BANK_FILE).read_text("utf-8")
    return tuple(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )


def best_cosines(scope: ReadScope, questions: tuple[str, ...] | None = None) -> list[float]:
    """Each question's best cosine among the scope's prose chunks (0.0 when there is none)."""
    where = prose_where(scope.tenant)
    out: list[float] = []
    for vector in scope.query_vectors(questions or bank()):
        hits = scope.index.search_dense(vector, 1, where, with_payload=False)
        out.append(float(hits[0].score or 0.0) if hits else 0.0)
    return out


def dense_floor(scope: ReadScope, percentile: float) -> float:
    """The ``percentile`` of the bank's best cosines in this collection (see the module doc)."""
    return float(np.percentile(best_cosines(scope), percentile))
