"""``sectio search`` and ``sectio eval`` on the command line: --json shapes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sectio.cli import main
from tests.helpers import chunk, write_jsonl


@pytest.fixture
def home(tmp_path: Path, small_corpus: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "clihome"
    monkeypatch.setenv("SECTIO_HOME", str(home))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    assert main(["ingest", str(small_corpus), "--json"]) == 0
    return home


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, object]:
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], code: int) -> str:
    capsys.readouterr()
    assert main(argv) == code
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    return lines[0]


@pytest.mark.parametrize("mode", ["hybrid", "dense", "lexical"])
def test_search_json_shape(home: Path, capsys: pytest.CaptureFixture[str], mode: str) -> None:
    out = _json(
        capsys, ["search", "aspirin stomach bleeding", "--json", "--mode", mode, "--top-k", "3"]
    )
    for key in (
        "query",
        "mode",
        "collection",
        "tenant",
        "top_k_requested",
        "top_k",
        "clamped",
        "hits",
        "details",
        "timings_ms",
    ):
        assert key in out
    assert out["mode"] == mode and out["top_k"] == 3 and out["clamped"] is False
    hits = out["hits"]
    assert isinstance(hits, list) and 0 < len(hits) <= 3
    for i, hit in enumerate(hits, start=1):
        for key in (
            "chunk_id",
            "doc_id",
            "section_key",
            "part_index",
            "text",
            "score",
            "source_refs",
            "rank",
            "tenant",
        ):
            assert key in hit
        assert hit["rank"] == i
    if mode == "hybrid":
        assert isinstance(out["details"], dict) and out["details"]["rrf_k"] >= 1
        assert out["details"]["pool"] >= 3


def test_search_clamp_filters_and_tenant(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["search", "aspirin", "--json", "--top-k", "99"])
    assert (out["top_k_requested"], out["top_k"], out["clamped"]) == (99, 50, True)
    out = _json(
        capsys,
        [
            "search",
            "risk",
            "--json",
            "--filter",
            "doc_id=metformin",
            "--filter",
            "section_key=warnings",
        ],
    )
    assert [h["chunk_id"] for h in out["hits"]] == ["metformin#warnings#0"]  # type: ignore[union-attr]
    out = _json(capsys, ["search", "aspirin", "--json", "--tenant", "nobody"])
    assert out["hits"] == [] and out["tenant"] == "nobody"


def test_search_human_output(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["search", "aspirin", "--top-k", "80", "--mode", "lexical"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "(top-k 80 clamped to 50)"
    assert lines[1].split() == ["#", "bm25", "doc", "/", "section", "#part"]
    assert lines[2].split()[0] == "1" and lines[2].split()[2] == "#1"  # BM25 score, rank 1
    assert lines[-1].startswith("(bm25 = BM25 score; #n = rank in that list")


def _cells(place: dict[str, Any] | None, fusion: bool = False) -> list[str]:
    if place is None:
        return ["-"]
    return [f"{place['score']:.3f}"] + ([] if fusion else [f"#{place['rank']}"])


def test_search_table_shows_what_ranked_each_hit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hybrid: a column per list (fusion value, cosine and rank, BM25 and rank), '-' where
    a hit was not among a list's candidates; the same numbers as ``--json``."""
    monkeypatch.setenv("SECTIO_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SECTIO_EMBEDDER", "fake")
    monkeypatch.setenv("SECTIO_HYBRID_POOL_MIN", "3")
    monkeypatch.setenv("SECTIO_HYBRID_POOL_FACTOR", "1")
    # dense (the fake embedder counts stopwords) favours the stopword-heavy chunks;
    # BM25 sees only "zebra": with pools of 3, the zebra chunks are BM25-only hits
    rows = [chunk(f"s{i}", "body", 0, "the of and " * (i + 1) + f"filler{i}") for i in range(5)]
    rows.append(chunk("zebra", "body", 0, "zebra stripes grassland savanna herd migration"))
    rows.append(chunk("zebra2", "body", 0, "a zebra and the plains of africa and more words"))
    assert main(["ingest", str(write_jsonl(tmp_path / "z.jsonl", rows)), "-c", "z"]) == 0
    argv = ["search", "the of and zebra", "-c", "z", "-k", "3"]
    hits = _json(capsys, [*argv, "--json"])["hits"]
    assert isinstance(hits, list)
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["#", "fusion", "cosine", "bm25", "doc", "/", "section", "#part"]
    table = lines[1:-1:2]  # each hit's row (its text follows it)
    assert len(table) == len(hits) == 3
    for hit, row in zip(hits, table, strict=True):
        s = hit["scores"]
        cells = [str(hit["rank"]), *_cells(s["fusion"], fusion=True), *_cells(s["dense"])]
        cells += [*_cells(s["bm25"]), hit["doc_id"], "/", "body", "#0"]
        assert row.split() == cells
    bm25_only = [r for r, h in zip(table, hits, strict=True) if h["scores"]["dense"] is None]
    assert bm25_only and all(
        r.split()[2] == "-" and r.split()[4].startswith("#") for r in bm25_only
    )
    assert "cosine = dense similarity" in lines[-1] and "bm25 = BM25 score" in lines[-1]


def test_search_errors_are_one_line(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = _one_line_error(capsys, ["search", "x", "--filter", "colour=red"], 1)
    assert "unknown filter key 'colour'" in line
    _one_line_error(capsys, ["search", "x", "--filter", "doc_id"], 1)
    line = _one_line_error(capsys, ["search", "x", "--mode", "semantic"], 2)
    assert "semantic" in line
    line = _one_line_error(capsys, ["search", "x", "--collection", "nope"], 1)
    assert "nope" in line


@pytest.fixture
def eval_files(tmp_path: Path) -> tuple[Path, Path]:
    queries = write_jsonl(
        tmp_path / "queries.jsonl",
        [
            {"_id": "q1", "text": "stomach bleeding aspirin"},
            {"_id": "q2", "text": "type 2 diabetes treatment"},
        ],
    )
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\nq1\taspirin\t1\nq2\tmetformin\t1\n")
    return queries, qrels


def test_eval_json_and_per_query(
    home: Path, tmp_path: Path, eval_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    queries, qrels = eval_files
    per_query = tmp_path / "pq.jsonl"
    out = _json(
        capsys,
        [
            "eval",
            str(queries),
            str(qrels),
            "--json",
            "--per-query",
            str(per_query),
            "--mode",
            "lexical",
            "--level",
            "doc",
            "--top-k",
            "100",
        ],
    )
    for key in (
        "collection",
        "mode",
        "level",
        "top_k",
        "queries",
        "metrics",
        "seconds",
        "queries_per_s",
    ):
        assert key in out
    assert out["queries"] == 2 and out["top_k"] == 100
    metrics = out["metrics"]
    assert isinstance(metrics, dict)
    assert set(metrics) == {"nDCG@10", "Recall@10", "Recall@100", "MRR@10", "hit@1"}
    assert metrics["hit@1"] == 1.0
    rows = [json.loads(line) for line in per_query.read_text().splitlines()]
    assert [r["query_id"] for r in rows] == ["q1", "q2"]
    capsys.readouterr()
    assert main(["eval", str(queries), str(qrels)]) == 0
    assert "nDCG@10" in capsys.readouterr().out


@pytest.mark.parametrize("mode", ["routed", "hybrid"])
def test_eval_writes_no_traces(
    home: Path, eval_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    """An evaluation is not traffic: the store stays empty, while ``ask`` is traced."""
    queries, qrels = eval_files
    assert _json(capsys, ["eval", str(queries), str(qrels), "--mode", mode, "--json"])["queries"]
    assert _json(capsys, ["traces", "--json"]) == []  # type: ignore[comparison-overlap]
    assert _json(capsys, ["ask", "aspirin warnings", "--json"])["trace_id"]
    assert len(_json(capsys, ["traces", "--json"])) == 1


def test_eval_errors_are_one_line(
    home: Path, tmp_path: Path, eval_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    queries, qrels = eval_files
    _one_line_error(capsys, ["eval", str(tmp_path / "none.jsonl"), str(qrels)], 1)
    _one_line_error(capsys, ["eval", str(queries), str(qrels), "--level", "page"], 2)
    _one_line_error(capsys, ["eval", str(queries), str(qrels), "--top-k", "0"], 1)
    (tmp_path / "q3.tsv").write_text("q3\tx\t1\n")
    line = _one_line_error(capsys, ["eval", str(queries), str(tmp_path / "q3.tsv")], 1)
    assert "not in the queries file" in line


def test_eval_compare_prints_the_three_lists_side_by_side(
    home: Path, eval_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    queries, qrels = eval_files
    out = _json(capsys, ["eval", str(queries), str(qrels), "--compare", "--json"])
    assert isinstance(out, dict)
    modes, best = out["modes"], out["best_single"]
    assert set(modes) == {"hybrid", "dense", "lexical"}
    for mode in ("hybrid", "dense", "lexical"):
        alone = _json(capsys, ["eval", str(queries), str(qrels), "--mode", mode, "--json"])
        assert modes[mode]["metrics"] == alone["metrics"], mode
    for metric, row in best.items():
        single = max(modes["dense"]["metrics"][metric], modes["lexical"]["metrics"][metric])
        assert row["value"] == single
        assert row["hybrid_minus_best"] == pytest.approx(
            modes["hybrid"]["metrics"][metric] - single
        )
    capsys.readouterr()
    assert main(["eval", str(queries), str(qrels), "--compare"]) == 0
    text = capsys.readouterr().out
    assert "hybrid - best single" in text and "nDCG@10" in text
