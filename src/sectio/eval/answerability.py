"""``sectio eval QUESTIONS --answerability``: does ``ask`` abstain when, and only when, it should?

Each question line is a JSON object with ``_id``, ``text`` and ``expect``
(``"answer"`` or ``"abstain"``; at the top level or in ``metadata``). Every
question goes through ``Sectio.ask`` (no trace written) and is scored:

* ``abstain_rate``: of the questions that expect ``abstain``, the share that abstained;
* ``answer_rate``: of the questions that expect ``answer``, the share that did not;

both overall and by route. The trade-off curve replays the main threshold,
the answerability stage's ``min_coverage``, over a grid: turns decided by an
earlier rule (a named document, a subject outside the corpus) keep their
decision; the others abstain when their coverage is under the threshold (or
their evidence is under the dense or rerank floor, as decided).

Example:
    >>> rows = [Row("a", "x", "abstain", "ABSTAIN", "r", "fallback_search", {}),
    ...         Row("b", "y", "answer", "ANSWERABLE", "g", "section", {})]
    >>> rates(rows)
    {'abstain_rate': 1.0, 'answer_rate': 1.0, 'unanswerable': 1, 'answerable': 1}
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field

from sectio.contract.result import RetrievalResult
from sectio.errors import ContractError
from sectio.eval.beir import query_lines


class Asker(Protocol):
    """What the eval needs of :class:`sectio.Sectio` (eval sits below the facade)."""

    def ask(
        self, question: str, *, collection: str, tenant: str, record: bool = ...
    ) -> RetrievalResult: ...


EXPECT = ("answer", "abstain")
#: The ``min_coverage`` values the curve replays.
GRID: tuple[float, ...] = tuple(round(0.1 * i, 1) for i in range(11))
#: Rules decided before coverage: the curve keeps their decision.
FIXED_RULES = frozenset(
    {"named_document", "lookup_keyword", "compound_name", "subject", "unknown_name"}
)
#: Rules decided after coverage: a turn that passed coverage and failed one of these abstains.
LATE_RULES = frozenset({"dense", "rerank", "guest_name"})


@dataclass(frozen=True)
class Question:
    """One labelled question."""

    qid: str
    text: str
    expect: str
    group: str | None = None


@dataclass(frozen=True)
class Row:
    """What ``ask`` did with one question."""

    qid: str
    text: str
    expect: str
    decision: str
    reason: str
    route: str
    answerability: dict[str, Any]
    group: str | None = None

    @property
    def abstained(self) -> bool:
        return self.decision == "ABSTAIN"

    @property
    def correct(self) -> bool:
        return self.abstained == (self.expect == "abstain")


class AnswerabilityReport(BaseModel):
    """The shares, by route and by group, and the trade-off curve."""

    collection: str
    tenant: str
    questions: int
    overall: dict[str, float | int]
    by_route: dict[str, dict[str, float | int]] = Field(default_factory=dict)
    by_group: dict[str, dict[str, float | int]] = Field(default_factory=dict)
    curve: list[dict[str, float]] = Field(default_factory=list)
    reasons: dict[str, int] = Field(default_factory=dict)


def load_questions(path: str | Path, *, group_key: str | None = None) -> list[Question]:
    """Labelled questions from JSON Lines (``expect`` at the top level or in ``metadata``).

    ``group_key`` names a metadata field to break the report down by (e.g. ``set``).

    Raises:
        ContractError: unreadable file, a bad line, an ``expect`` other than
            answer/abstain, or no questions.
    """
    path = Path(path)
    out: list[Question] = []
    for lineno, data in query_lines(path, "question", "questions"):
        raw = data.get("metadata")
        meta: dict[str, Any] = raw if isinstance(raw, dict) else {}
        expect = data.get("expect", meta.get("expect"))
        if expect not in EXPECT:
            raise ContractError(f"{path}:{lineno}: field expect: must be answer or abstain")
        group = meta.get(group_key) if group_key else None
        out.append(Question(str(data["_id"]), data["text"], expect, _str(group)))
    if not out:
        raise ContractError(f"{path}: no questions")
    return out


def _str(value: object) -> str | None:
    return None if value is None else str(value)


def rates(rows: Iterable[Row]) -> dict[str, float | int]:
    """``abstain_rate`` over expect=abstain, ``answer_rate`` (not abstained) over expect=answer."""
    rows = list(rows)
    neg = [r for r in rows if r.expect == "abstain"]
    pos = [r for r in rows if r.expect == "answer"]
    out: dict[str, float | int] = {}
    if neg:
        out["abstain_rate"] = round(sum(r.abstained for r in neg) / len(neg), 4)
    if pos:
        out["answer_rate"] = round(sum(not r.abstained for r in pos) / len(pos), 4)
    out["unanswerable"], out["answerable"] = len(neg), len(pos)
    return out


def replay(row: Row, min_coverage: float) -> bool:
    """Whether ``row`` abstains when ``min_coverage`` is the threshold (see the module doc)."""
    signals = row.answerability.get("signals") or {}
    rule = signals.get("rule")
    if rule is None or rule in FIXED_RULES:
        return row.abstained
    if row.reason not in ("subject_not_in_corpus", "weak_evidence") and row.abstained:
        return True  # abstained for another reason (no evidence, no provenance)
    if float(signals.get("coverage", 1.0)) < min_coverage:
        return True
    return rule in LATE_RULES


def curve(rows: Sequence[Row], grid: Sequence[float] = GRID) -> list[dict[str, float]]:
    """The shares at each ``min_coverage`` of ``grid``."""
    out = []
    for t in grid:
        neg = [r for r in rows if r.expect == "abstain"]
        pos = [r for r in rows if r.expect == "answer"]
        point: dict[str, float] = {"min_coverage": t}
        if neg:
            point["abstain_rate"] = round(sum(replay(r, t) for r in neg) / len(neg), 4)
        if pos:
            point["answer_rate"] = round(sum(not replay(r, t) for r in pos) / len(pos), 4)
        out.append(point)
    return out


def evaluate_answerability(
    sectio: Asker,
    questions: Sequence[Question],
    *,
    collection: str,
    tenant: str,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[AnswerabilityReport, list[Row]]:
    """Ask every question (no traces) and score the decisions."""
    rows: list[Row] = []
    for i, q in enumerate(questions, start=1):
        result = sectio.ask(q.text, collection=collection, tenant=tenant, record=False)
        rows.append(
            Row(
                q.qid,
                q.text,
                q.expect,
                result.decision,
                result.reason,
                result.route,
                dict(result.details.get("answerability") or {}),
                q.group,
            )
        )
        if progress is not None:
            progress(i, len(questions))
    by_route: dict[str, list[Row]] = defaultdict(list)
    by_group: dict[str, list[Row]] = defaultdict(list)
    reasons: dict[str, int] = defaultdict(int)
    for r in rows:
        by_route[r.route].append(r)
        if r.group is not None:
            by_group[r.group].append(r)
        if r.abstained:
            reasons[r.reason] += 1
    report = AnswerabilityReport(
        collection=collection,
        tenant=tenant,
        questions=len(rows),
        overall=rates(rows),
        by_route={k: rates(v) for k, v in sorted(by_route.items())},
        by_group={k: rates(v) for k, v in sorted(by_group.items())},
        curve=curve(rows),
        reasons=dict(sorted(reasons.items())),
    )
    return report, rows


def write_rows(path: str | Path, rows: Iterable[Row]) -> None:
    """Each question's decision, reason, route and signals as JSON Lines."""
    with Path(path).open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(asdict(r), ensure_ascii=False) + "\n")
