"""Score a collection against BEIR queries and qrels: nDCG@10, Recall@10/100, MRR@10, hit@1.

Levels (what a qrels ``corpus-id`` names):

* ``doc`` (default): a ``doc_id``. The chunk ranking is de-duplicated to
  documents, first occurrence wins (a document ranks where its best chunk
  ranks).
* ``section``: ``doc_id#section_key``, de-duplicated the same way.
* ``chunk``: a ``chunk_id``.

Modes: ``hybrid``, ``dense``, ``lexical`` run :func:`sectio.retrieve.search.search`
with an internal depth past the public top-k clamp (``--top-k 100`` needs
100 items; at ``doc``/``section`` level twice as many chunks are read so the
de-duplicated ranking can still fill the depth). ``routed`` evaluates what
``ask`` returns (its evidence in order), when this build has ``Sectio.ask``.

Metrics come from ``ir_measures``; the mean is over every query in the qrels
that is also in the queries file (a query with no results scores 0, it is not
dropped).

Example:
    >>> dedupe_ranking(["d1", "d2", "d1", "d3"])
    ['d1', 'd2', 'd3']
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import ir_measures
from ir_measures import RR, Success, nDCG
from ir_measures import R as Recall
from pydantic import BaseModel, Field

from sectio.contract.result import Evidence
from sectio.errors import ConfigError, ContractError, NotAvailable
from sectio.eval.beir import Qrels
from sectio.eval.choices import EVAL_MODES, LEVELS
from sectio.retrieve.search import LIMIT_MAX, FusionParams
from sectio.retrieve.search import search as run_search

#: Reported name -> ir_measures measure.
MEASURES: dict[str, Any] = {
    "nDCG@10": nDCG @ 10,
    "Recall@10": Recall @ 10,
    "Recall@100": Recall @ 100,
    "MRR@10": RR @ 10,
    "hit@1": Success @ 1,
}
#: Chunks read per ranked item at doc/section level (de-duplication shrinks the list).
OVERFETCH = 2

ProgressFn = Callable[[int, int], None]


class EvalReport(BaseModel):
    """What ``sectio eval`` reports."""

    collection: str
    tenant: str
    mode: str
    level: str
    top_k: int
    queries: int
    metrics: dict[str, float]
    queries_without_results: int = 0
    seconds: float = 0.0
    queries_per_s: float = 0.0
    search_details: dict[str, Any] = Field(default_factory=dict)


def item_key(evidence: Evidence, level: str) -> str:
    """The id a qrels line uses for this evidence at ``level``."""
    if level == "doc":
        return evidence.doc_id
    if level == "section":
        return f"{evidence.doc_id}#{evidence.section_key}"
    return evidence.chunk_id


def dedupe_ranking(keys: Iterable[str]) -> list[str]:
    """Keys in order, each once; the first occurrence keeps its place."""
    return list(dict.fromkeys(keys))


def score_rankings(
    rankings: Mapping[str, Sequence[str]], qrels: Qrels
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Mean and per-query metrics of ranked id lists against ``qrels``.

    Every query of ``qrels`` counts; one with no (or no ranked) results scores 0.
    """
    run = {
        qid: {doc: float(len(ranked) - i) for i, doc in enumerate(ranked)}
        for qid, ranked in rankings.items()
        if ranked
    }
    per_query: dict[str, dict[str, float]] = {qid: dict.fromkeys(MEASURES, 0.0) for qid in qrels}
    names = {str(m): name for name, m in MEASURES.items()}
    judged = {qid: rels for qid, rels in qrels.items() if qid in run}
    if judged:
        for metric in ir_measures.iter_calc(list(MEASURES.values()), judged, run):
            per_query[metric.query_id][names[str(metric.measure)]] = float(metric.value)
    n = len(per_query) or 1
    mean = {name: sum(q[name] for q in per_query.values()) / n for name in MEASURES}
    return mean, per_query


def _retriever(
    sectio: Any, collection: str, tenant: str, mode: str, depth: int
) -> Callable[[str], tuple[list[Evidence], dict[str, Any]]]:
    if mode == "routed":
        ask = getattr(sectio, "ask", None)
        if ask is None:
            raise NotAvailable("--mode routed needs Sectio.ask, which this build does not have")

        def routed(text: str) -> tuple[list[Evidence], dict[str, Any]]:
            result = ask(text, collection=collection, tenant=tenant, record=False)  # no traces
            return list(result.evidence), {"route": result.route}

        return routed

    coll = sectio.collection(collection)
    fusion = getattr(sectio, "fusion", None)
    params = (
        fusion(collection, tenant)
        if callable(fusion) and mode == "hybrid"
        else FusionParams.from_settings(sectio.settings)
    )

    def searched(text: str) -> tuple[list[Evidence], dict[str, Any]]:
        result = run_search(
            coll,
            sectio.embedder,
            text,
            tenant=tenant,
            mode=mode,
            params=params,
            guard=sectio.tenant_guard,
            limit=depth,
        )
        return result.hits, result.details.model_dump()

    return searched


def evaluate(
    sectio: Any,
    queries: dict[str, str],
    qrels: Qrels,
    *,
    collection: str,
    tenant: str = "default",
    mode: str = "hybrid",
    level: str = "doc",
    top_k: int = 100,
    progress: ProgressFn | None = None,
) -> tuple[EvalReport, list[dict[str, Any]]]:
    """Run every judged query and score the rankings; returns the report and per-query rows.

    ``sectio`` is a :class:`sectio.Sectio`. Per-query rows hold the metrics, the
    first 10 ranked ids and the relevant ids. No retrieval trace is written
    (an evaluation is not traffic: a run of SciFact would add 300 traces).

    Raises:
        ConfigError: an unknown mode or level, or a top-k outside [1, 1000].
        ContractError: a judged query id is missing from ``queries``.
        NotAvailable: ``routed`` without ``Sectio.ask``.
    """
    if mode not in EVAL_MODES:
        raise ConfigError(f"unknown eval mode {mode!r}; use one of: {', '.join(EVAL_MODES)}")
    if level not in LEVELS:
        raise ConfigError(f"unknown level {level!r}; use one of: {', '.join(LEVELS)}")
    if not 1 <= top_k <= LIMIT_MAX:
        raise ConfigError(f"--top-k must be within 1..{LIMIT_MAX}, got {top_k}")
    missing = [qid for qid in qrels if qid not in queries]
    if missing:
        raise ContractError(
            f"{len(missing)} judged query id(s) are not in the queries file, e.g. {missing[0]!r}"
        )
    depth = top_k if level == "chunk" else min(LIMIT_MAX, top_k * OVERFETCH)
    retrieve = _retriever(sectio, collection, tenant, mode, depth)
    rankings: dict[str, list[str]] = {}
    first_details: dict[str, Any] = {}
    started = time.perf_counter()
    qids = list(qrels)
    for i, qid in enumerate(qids):
        hits, details = retrieve(queries[qid])
        if not first_details:
            first_details = details
        rankings[qid] = dedupe_ranking(item_key(h, level) for h in hits)[:top_k]
        if progress:
            progress(i + 1, len(qids))
    seconds = time.perf_counter() - started
    mean, per_query = score_rankings(rankings, qrels)
    report = EvalReport(
        collection=collection,
        tenant=tenant,
        mode=mode,
        level=level,
        top_k=top_k,
        queries=len(qids),
        metrics={k: round(v, 4) for k, v in mean.items()},
        queries_without_results=sum(1 for r in rankings.values() if not r),
        seconds=round(seconds, 3),
        queries_per_s=round(len(qids) / seconds, 1) if seconds else 0.0,
        search_details={k: v for k, v in first_details.items() if k != "lexical_only_hits"},
    )
    rows = [
        {
            "query_id": qid,
            "query": queries[qid],
            **{k: round(v, 4) for k, v in per_query[qid].items()},
            "ranking": rankings[qid][:10],
            "relevant": sorted(c for c, rel in qrels[qid].items() if rel > 0),
        }
        for qid in qids
    ]
    return report, rows


def write_per_query(path: str | Path, rows: Iterable[dict[str, Any]]) -> None:
    """Per-query rows as JSON Lines.

    Raises:
        ContractError: the file cannot be written.
    """
    path = Path(path)
    try:
        with path.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise ContractError(f"{path}: cannot write per-query results: {exc.strerror}") from exc


__all__ = [
    "EVAL_MODES",
    "LEVELS",
    "MEASURES",
    "EvalReport",
    "dedupe_ranking",
    "evaluate",
    "item_key",
    "score_rankings",
    "write_per_query",
]
