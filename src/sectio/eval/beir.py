"""BEIR-format evaluation inputs: ``queries.jsonl`` and a qrels TSV.

* queries: JSON Lines, one ``{"_id": ..., "text": ...}`` a line (other fields ignored);
* qrels: tab-separated ``query-id  corpus-id  score`` with an optional header
  line; ``score`` > 0 is relevant (graded relevance kept for nDCG).

The qrels define the query set: a query id in the qrels but absent from the
queries file is an error; queries without qrels are not evaluated.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q.tsv").write_text("query-id\\tcorpus-id\\tscore\\nq1\\td1\\t1\\n")
    >>> load_qrels(d / "q.tsv")
    {'q1': {'d1': 1}}
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sectio.errors import ContractError

Qrels = dict[str, dict[str, int]]


def query_lines(path: Path, noun: str, plural: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of a JSON Lines question file.

    Raises:
        ContractError: unreadable file, or a line that is not a JSON object with
            ``_id`` and ``text`` (``noun``/``plural`` name the lines in the message).
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ContractError(f"{path}: cannot read {plural}: {exc.strerror}") from exc
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ContractError(f"{path}:{lineno}: not valid JSON: {exc.msg}") from exc
        if not isinstance(data, dict) or "_id" not in data or not isinstance(data.get("text"), str):
            raise ContractError(f"{path}:{lineno}: a {noun} needs _id and text")
        yield lineno, data


def load_queries(path: str | Path) -> dict[str, str]:
    """Query id -> text, in file order.

    Raises:
        ContractError: unreadable file, a line that is not a JSON object with
            ``_id`` and ``text``, or no queries.
    """
    path = Path(path)
    out = {str(data["_id"]): data["text"] for _, data in query_lines(path, "query", "queries")}
    if not out:
        raise ContractError(f"{path}: no queries")
    return out


def load_qrels(path: str | Path) -> Qrels:
    """Query id -> {corpus id: relevance}; lines with relevance <= 0 are kept as judged.

    Raises:
        ContractError: unreadable file, a malformed line, or no judgements.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ContractError(f"{path}: cannot read qrels: {exc.strerror}") from exc
    qrels: Qrels = {}
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        parts = line.rstrip("\n").split("\t")
        if len(parts) == 4:  # TREC style: qid 0 docid rel
            parts = [parts[0], parts[2], parts[3]]
        if len(parts) != 3:
            raise ContractError(f"{path}:{lineno}: expected query-id<TAB>corpus-id<TAB>score")
        qid, cid, score = (p.strip() for p in parts)
        try:
            rel = int(float(score))
        except ValueError as exc:
            if lineno == 1:  # the header line
                continue
            raise ContractError(f"{path}:{lineno}: score {score!r} is not a number") from exc
        qrels.setdefault(qid, {})[cid] = rel
    if not qrels:
        raise ContractError(f"{path}: no judgements")
    return qrels


__all__ = ["Qrels", "load_qrels", "load_queries"]
