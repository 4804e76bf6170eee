"""Operative text first: a regulation's recitals explain its articles, the articles rule.

A legal act's preamble ("Whereas: (1) ... (180)") restates in prose what its
articles enact, so a question in plain words is often nearest a recital
("is social scoring banned?": Recital 31) while the article that decides it
(Article 5) ranks close behind. Among a ranked route's kept evidence, a
recital (a section whose title or key numbers it as a recital:
:func:`~sectio.retrieve.learned.numbers.title_number`, ``recital_31``) gives its
place to the other sections' chunks whose cosine is within
:data:`RECITAL_MARGIN` of the best. The kept chunks stay the same, so
answerability judges the same evidence; only their order changes. A corpus
with no recitals is untouched; a recital the question names is read whole by
the section route, not here.
"""

from __future__ import annotations

from sectio.contract.result import Evidence
from sectio.retrieve.learned.numbers import key_number, title_number

#: How far under the best cosine a non-recital chunk may be and still come before recitals.
#: Chosen on eu_ai_act dev (2026-12-06): 0.05 moved too few, 0.10 / 0.20 / 1.0 gave the same;
#: the smallest of those keeps the most of the engine's order.
RECITAL_MARGIN = 0.10


def is_recital(e: Evidence) -> bool:
    """Whether ``e``'s section is numbered as a recital (by its title, else its key)."""
    found = title_number(e.section_title) if e.section_title else None
    number = found[0] if found is not None else key_number(e.section_key or "")
    return number is not None and number.family == "recital"


def operative_first(evidence: list[Evidence], limit: int) -> list[Evidence]:
    """``evidence`` with its first ``limit`` reordered: the other sections' chunks within
    :data:`RECITAL_MARGIN` of the best cosine move ahead of the first recital, in their
    order; everything else keeps its order (see the module doc)."""
    kept = evidence[:limit]
    flags = [is_recital(e) for e in kept]
    first = next((i for i, f in enumerate(flags) if f), len(kept))
    if first == len(kept):
        return evidence
    best = max(e.score for e in kept)
    near = best - RECITAL_MARGIN
    ahead = [i for i in range(first, len(kept)) if not flags[i] and kept[i].score >= near]
    if not ahead:
        return evidence
    rest = [kept[i] for i in range(first, len(kept)) if i not in ahead]
    return kept[:first] + [kept[i] for i in ahead] + rest + evidence[limit:]
