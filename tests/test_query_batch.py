"""Concurrent questions are embedded together: batch vectors, LRU hand-over, the batcher."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from sectio import Sectio, Settings
from sectio.api.app import create_app
from sectio.api.batching import Batcher
from sectio.embed.cache import CachedEmbedder
from sectio.embed.minilm import MiniLMEmbedder
from sectio.testing import FakeEmbedder
from tests.helpers import write_jsonl
from tests.helpers.api import ACME, label_rows


def test_minilm_query_batch_rows_equal_single_queries(tmp_path: Path) -> None:
    minilm = MiniLMEmbedder(tmp_path / "cache", max_length=256)
    questions = [
        "aspirin",
        "what are the side effects of ibuprofen in children under twelve?",
        "Does metformin interact with alcohol",
        "dose",
    ]
    together = minilm.embed_queries(questions)
    alone = np.stack([minilm.embed_query(q) for q in questions])
    assert together.shape == (4, 384) and together.dtype == np.float32
    # Padding to the longest question must not move a vector (a search ranks by it).
    assert np.allclose(together, alone, atol=1e-6)
    assert minilm.embed_queries([]).shape == (0, 384)


class _BatchCounting(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__(dimensions=8)
        self.batches: list[list[str]] = []
        self.single: list[str] = []

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return super().embed_queries(texts)

    def embed_query(self, text: str) -> np.ndarray:
        self.single.append(text)
        return super().embed_query(text)


def test_prefetch_fills_the_lru_once_and_counts_each_vector_once(tmp_path: Path) -> None:
    inner = _BatchCounting()
    c = CachedEmbedder(inner, tmp_path / "e.sqlite", query_cache_size=3)
    c.embed_query("a")
    assert c.prefetch_queries(["a", "b", "c", "b"]) == 2  # "a" is known, "b" asked twice
    assert inner.batches == [["b", "c"]]
    b = c.embed_query("b")
    assert np.array_equal(b, FakeEmbedder(dimensions=8).embed_query("b"))
    assert inner.single == ["a"]  # "b" came from the batch
    # a, b, c computed once each; the first use of a prefetched vector is not a hit
    assert (c.stats.queries_computed, c.stats.queries_cached) == (3, 0)
    c.embed_query("b")
    assert c.stats.queries_cached == 1
    with pytest.raises(ValueError):
        b[0] = 1.0  # shared, read-only


def test_prefetched_vector_evicted_before_use_is_computed_again(tmp_path: Path) -> None:
    inner = _BatchCounting()
    c = CachedEmbedder(inner, tmp_path / "e.sqlite", query_cache_size=1)
    c.prefetch_queries(["a", "b"])  # "a" is evicted by "b" at once
    c.embed_query("a")
    assert inner.single == ["a"]
    assert (c.stats.queries_computed, c.stats.queries_cached) == (3, 0)


def test_prefetch_does_nothing_without_lru_or_batch_capability(tmp_path: Path) -> None:
    off = CachedEmbedder(_BatchCounting(), tmp_path / "a.sqlite", query_cache_size=0)
    assert off.prefetch_queries(["a"]) == 0

    class NoBatch:
        model_id, dimensions, input_kind, max_length = "nb", 4, "passage", 16

        def embed_query(self, text: str) -> np.ndarray:
            return np.ones(4, dtype=np.float32) / 2

    nb = CachedEmbedder(NoBatch(), tmp_path / "b.sqlite")  # type: ignore[arg-type]
    assert nb.prefetch_queries(["a"]) == 0
    assert nb.stats.queries_computed == 0


def test_batcher_runs_a_lone_question_at_once_and_coalesces_the_ones_behind_it() -> None:
    release = threading.Event()
    seen: list[list[str]] = []

    def prefetch(texts: Sequence[str]) -> None:
        seen.append(list(texts))
        if len(seen) == 1:
            release.wait(5)  # the first batch is busy while the others arrive

    async def scenario() -> None:
        batcher: Batcher[str] = Batcher("query", prefetch, max_batch=3)
        first = asyncio.create_task(batcher.submit("q0"))
        await asyncio.sleep(0.05)
        rest = [asyncio.create_task(batcher.submit(f"q{i}")) for i in range(1, 6)]
        await asyncio.sleep(0.05)
        release.set()
        await asyncio.wait_for(asyncio.gather(first, *rest), 5)
        assert batcher.batch_sizes == [1, 3, 2]

    asyncio.run(scenario())
    assert seen == [["q0"], ["q1", "q2", "q3"], ["q4", "q5"]]  # arrival order


def test_batcher_failure_lets_requests_go_on() -> None:
    def broken(texts: Sequence[str]) -> None:
        raise RuntimeError("model gone")

    async def scenario() -> None:
        batcher: Batcher[str] = Batcher("query", broken)
        await asyncio.wait_for(asyncio.gather(*(batcher.submit(str(i)) for i in range(3))), 5)

    asyncio.run(scenario())
    with pytest.raises(ValueError):
        Batcher("query", broken, max_batch=0)


def test_concurrent_http_searches_embed_and_trace_together_and_answer_as_the_library(
    tmp_path: Path,
) -> None:
    # the hybrid weight calibration embeds pseudo-queries of its own: counted apart here
    settings = Settings(
        home=tmp_path / "home", embedder="fake", api_keys="key-acme:acme", hybrid_calibrate=False
    )
    corpus = write_jsonl(tmp_path / "labels.jsonl", label_rows("acme"))
    questions = [f"aspirin {w}" for w in ("pain", "fever", "bleeding", "heart", "stomach")] * 4
    with Sectio(settings) as s:
        s.ingest(corpus, profile="en_drug_label")
        expected = {
            q: [h.chunk_id for h in s.search(q, tenant="acme").hits] for q in set(questions)
        }

    def ask(i: int) -> tuple[str, dict[str, Any]]:
        headers = {**ACME, "X-Request-ID": f"req-{i}"}
        return questions[i], client.post(
            "/v1/search", json={"query": questions[i]}, headers=headers
        ).json()

    with TestClient(create_app(settings)) as client:
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(ask, range(len(questions))))
        api = client.app.state.api  # type: ignore[attr-defined]
        stats = api.engine.embedder.stats
        embedded = sum(api.queries.batch_sizes)
        lexical = client.post("/v1/search", json={"query": "x y", "mode": "lexical"}, headers=ACME)
        assert lexical.status_code == 200
        assert sum(api.queries.batch_sizes) == embedded  # a lexical search needs no vector
        # every response names its own written trace, with its own request id
        for i, (q, body) in enumerate(answers):
            trace = client.get(f"/v1/traces/{body['trace_id']}", headers=ACME).json()
            assert (trace["query_text"], trace["correlation_id"]) == (q, f"req-{i}")
        assert sum(api.traces.batch_sizes) == len(questions) + 1
    assert all(expected.values())  # every question has hits to compare
    for q, body in answers:
        assert [h["chunk_id"] for h in body["hits"]] == expected[q]
    assert embedded == len(questions)  # every dense question went through the batcher
    assert stats.queries_computed == len(set(questions))  # each distinct question once


def test_engine_calls_can_leave_the_trace_to_the_caller(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder="fake")
    corpus = write_jsonl(tmp_path / "labels.jsonl", label_rows("acme"))
    with Sectio(settings) as s:
        s.ingest(corpus, profile="en_drug_label")
        result = s.search("aspirin pain", tenant="acme", record=False)
        assert result.trace_id is None and s.ops.store.list_traces() == []
        entries = [s.ops.trace_entry("search", result, correlation_id="r1")]
        entries.append(s.ops.trace_entry("ask", s.ask("aspirin", tenant="acme", record=False)))
        s.ops.record_entries(entries)
        assert result.trace_id is not None and entries[1].result.trace_id is not None
        assert {t.trace_id for t in s.ops.store.list_traces()} == {
            e.result.trace_id for e in entries
        }
        assert s.ops.store.get_trace(result.trace_id)["correlation_id"] == "r1"  # type: ignore[index]


def test_server_runs_the_model_on_one_thread_unless_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(Settings(home=tmp_path / "a", embedder="fake"))
    assert app.state.api.engine.settings.embed_threads == 1
    monkeypatch.setenv("SECTIO_EMBED_THREADS", "2")
    app = create_app(Settings(home=tmp_path / "b", embedder="fake"))
    assert app.state.api.engine.settings.embed_threads == 2
