"""One line that says why a turn abstained: the rule, the measure and the threshold it
missed, and the words that decided, named for what they are: not in the collection
(``unknown_name``, ``absent_words``), never written together (``unseen_pairs``), not
in the evidence (``coverage``) (the CLI's ``ask`` prints it; the playground writes the
same from ``details.answerability``).

Example:
    >>> from sectio.contract.diagnostics import Signals, Thresholds, VerdictReport
    >>> report = VerdictReport(answerable=False, reason="weak_evidence",
    ...     signals=Signals(route="fallback_search", document_named=None, rule="dense",
    ...                     best_dense=0.21),
    ...     thresholds=Thresholds(min_coverage=0.5, dense_floor=0.25))
    >>> why(report)
    'rule dense: best cosine 0.210 <= floor 0.250'
    >>> report.signals.rule, report.uncovered = "unseen_pairs", ["company", "fined"]
    >>> why(report)
    'rule unseen_pairs: never written together: company, fined'
    >>> report.signals.joint_surprise, report.thresholds.joint_surprise = 4.28, 9.21
    >>> why(report).split("; ")[1]
    "one passage's words together 4.28 < 9.21"
"""

from __future__ import annotations

from sectio.contract.diagnostics import VerdictReport

#: What the words that decided are, by the rule that named them ("decided by" otherwise).
WORDS_ARE = {
    "unknown_name": "not in the collection",
    "absent_words": "not in the collection",
    "unseen_pairs": "never written together",
    "coverage": "not in the evidence",
    "guest_name": "names the collection mentions rarely, far from the evidence",
}


def why(report: VerdictReport) -> str:
    """``rule R: <measure> <op> <threshold>`` and ``<what the words are>: <words>`` (the
    module doc; :data:`WORDS_ARE`)."""
    s = report.signals
    rule = s.rule or "?"
    measure = _measure(report)
    line = f"rule {rule}" + (f": {measure}" if measure else "")
    if report.uncovered:
        said = WORDS_ARE.get(rule, "decided by")
        line += f"{';' if measure else ':'} {said}: {', '.join(report.uncovered)}"
    if s.weighed:
        line += f" (weighed, not vetoed: {', '.join(s.weighed)})"
    joint = report.thresholds.joint_surprise
    if s.joint_surprise is not None and joint is not None and s.joint_surprise < joint:
        # the escape the weak-evidence rules offer, missed (one that reached it passed
        # them; the calibrated floor itself may still have stopped the question)
        line += f"; one passage's words together {s.joint_surprise:.2f} < {joint:.2f}"
    return line


def _measure(report: VerdictReport) -> str | None:
    """The measure the deciding rule held against its threshold, written out."""
    s, t = report.signals, report.thresholds
    rule = s.rule
    if rule == "coverage" and s.coverage is not None:
        return f"coverage {s.coverage:.3f} < {t.min_coverage:.3f}"
    if rule == "catalog" and s.catalog_best is not None and t.catalog_floor is not None:
        return f"closest page {s.catalog_best:.3f} <= catalog floor {t.catalog_floor:.3f}"
    if rule == "guest_name" and t.guest_floor is not None:
        near = ", ".join(f"{w} {c:.3f}" for w, c in (s.guest_cosines or {}).items())
        return f"guest names need {t.guest_floor:.3f} ({near})"
    if rule == "rerank" and t.rerank_floor is not None:
        return f"rerank score under {t.rerank_floor:.3f}"
    floor = t.planner_floor if rule == "dense" and t.planner_floor is not None else t.dense_floor
    if rule == "dense" and s.best_dense is not None and floor is not None:
        return f"best cosine {s.best_dense:.3f} <= floor {floor:.3f}"
    return None
