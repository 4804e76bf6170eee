"""MiniLM on onnxruntime directly: fastembed's vectors bit for bit, one session per process;
fixed question banks embedded once per home."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from sectio import Sectio, Settings
from sectio.embed import encoder
from sectio.embed.cache import CachedEmbedder
from sectio.embed.minilm import MiniLMEmbedder
from sectio.retrieve.calibration import bank
from sectio.testing import FakeEmbedder
from tests.helpers import chunk, write_jsonl

TEXTS = [
    "aspirin",
    "who should not take metformin?",
    "word " * 600,  # past the 256-token truncation
    "Lactic acidosis: see boxed warning. " * 12,
    "é ü 漢字 🙂",
]


@pytest.fixture(scope="module")
def minilm(tmp_path_factory: pytest.TempPathFactory) -> MiniLMEmbedder:
    return MiniLMEmbedder(tmp_path_factory.mktemp("cache"), max_length=256)


def test_vectors_are_fastembeds_bit_for_bit(minilm: MiniLMEmbedder, tmp_path: Path) -> None:
    # What sectio ran before (fastembed's TextEmbedding over the same folder,
    # truncated to 256): collections embedded then must still match new queries.
    from fastembed import TextEmbedding

    reference = TextEmbedding(
        model_name="sentence-transformers/all-MiniLM-L6-v2",
        specific_model_path=str(minilm._model_dir),
        cache_dir=str(tmp_path / "fastembed"),
        lazy_load=False,
    )
    reference.model.tokenizer.enable_truncation(max_length=256)
    expected = np.asarray(list(reference.embed(TEXTS, batch_size=len(TEXTS))), dtype=np.float32)
    assert np.array_equal(minilm.embed_queries(TEXTS), expected)
    assert np.array_equal(minilm.embed_query(TEXTS[1]), expected[1])
    one_by_one = np.stack([next(iter(reference.embed([t]))) for t in TEXTS]).astype(np.float32)
    assert np.array_equal(minilm.embed_documents(TEXTS), one_by_one)


def test_embedders_of_one_process_share_one_session(minilm: MiniLMEmbedder, tmp_path: Path) -> None:
    minilm.embed_query("warm")
    loaded = encoder.loaded_sessions()
    other = MiniLMEmbedder(tmp_path / "another-home-cache", max_length=256)
    vector = other.embed_query("aspirin")
    assert other.encoder is minilm.encoder  # tokenizer and session alike
    assert encoder.loaded_sessions() == loaded  # the second home's embedder loaded nothing
    assert np.array_equal(vector, minilm.embed_query("aspirin"))


def test_another_thread_count_is_another_session(minilm: MiniLMEmbedder, tmp_path: Path) -> None:
    one = MiniLMEmbedder(tmp_path / "c", max_length=256, threads=1)
    assert one.encoder.session is not minilm.encoder.session
    short = MiniLMEmbedder(tmp_path / "d", max_length=128)  # another tokenizer, the same graph
    assert short.encoder is not minilm.encoder
    assert short.encoder.session is minilm.encoder.session
    assert np.allclose(one.embed_query("aspirin"), minilm.embed_query("aspirin"), atol=1e-6)


def test_nothing_loads_before_it_is_needed(tmp_path: Path) -> None:
    fresh = MiniLMEmbedder(tmp_path / "c", max_length=256)
    assert fresh._counter is None and fresh._encoder is None
    assert fresh.count_tokens("two words") == 2
    assert fresh._counter is not None and fresh._encoder is None  # counting needs no model


class _PrefixedQueries(FakeEmbedder):
    """A fake whose query vectors differ from its passage vectors (as e5's do); counts calls."""

    def __init__(self) -> None:
        super().__init__(dimensions=16)
        self.batches: list[list[str]] = []

    def embed_query(self, text: str) -> np.ndarray:
        return super().embed_query(f"query: {text}")

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return np.stack([self.embed_query(t) for t in texts])


def test_a_question_bank_is_embedded_once_per_home(tmp_path: Path) -> None:
    bank = ["how tall is everest", "who wrote hamlet", "how tall is everest"]
    first = _PrefixedQueries()
    cache = CachedEmbedder(first, tmp_path / "e.sqlite")
    cache.embed_documents(["who wrote hamlet"])  # the same text as a passage: another vector
    vectors = cache.embed_query_bank(bank)
    assert first.batches == [["how tall is everest", "who wrote hamlet"]]  # one call, no repeat
    assert np.array_equal(vectors, np.stack([first.embed_query(q) for q in bank]))
    cache.close()
    second = _PrefixedQueries()  # a new process: the bank comes from the file
    again = CachedEmbedder(second, tmp_path / "e.sqlite")
    assert np.array_equal(again.embed_query_bank(bank), vectors)
    assert second.batches == []
    assert not np.array_equal(again.embed_documents(["who wrote hamlet"])[0], vectors[1])
    assert again.embed_query_bank([]).shape == (0, 16)


def test_a_cold_ask_reads_the_calibration_bank_from_the_home(tmp_path: Path) -> None:
    # What made a cold `sectio ask` on a docs collection take seconds: every process
    # embedded the 256 calibration questions of the answerability floor again.
    corpus = write_jsonl(
        tmp_path / "c.jsonl",
        [
            chunk("aspirin", "warnings", i, f"Aspirin warning {i}: stomach bleeding.")
            for i in range(4)
        ],
    )
    settings = Settings(home=tmp_path / "home", embedder="fake")
    loader = _PrefixedQueries()
    with Sectio(settings, embedder=loader) as s:
        s.ingest(corpus)  # the calibration is measured here and stored with the collection
    assert [len(b) for b in loader.batches] == [len(bank())]
    question = "is stomach bleeding common"  # no document named: ranked search, calibrated
    first = _PrefixedQueries()
    with Sectio(settings, embedder=first) as s:
        assert s.ask(question).details["answerability"]["thresholds"]["dense_floor"] is not None
    assert first.batches == []  # the stored calibration: no bank to embed at all
    again = _PrefixedQueries()
    with Sectio(settings, embedder=again) as s:
        s.ask(question)
    assert again.batches == []  # the bank came from SECTIO_HOME's cache
