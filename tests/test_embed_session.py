"""MiniLM on onnxruntime directly: fastembed's vectors bit for bit, one session per process."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sectio.embed import encoder
from sectio.embed.minilm import MiniLMEmbedder

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
    assert other.encoder.session is minilm.encoder.session
    assert encoder.loaded_sessions() == loaded  # the second home's embedder loaded nothing
    assert np.array_equal(vector, minilm.embed_query("aspirin"))


def test_another_thread_count_is_another_session(minilm: MiniLMEmbedder, tmp_path: Path) -> None:
    one = MiniLMEmbedder(tmp_path / "c", max_length=256, threads=1)
    assert one.encoder.session is not minilm.encoder.session
    assert np.allclose(one.embed_query("aspirin"), minilm.embed_query("aspirin"), atol=1e-6)


def test_nothing_loads_before_it_is_needed(tmp_path: Path) -> None:
    fresh = MiniLMEmbedder(tmp_path / "c", max_length=256)
    assert fresh._counter is None and fresh._encoder is None
    assert fresh.count_tokens("two words") == 2
    assert fresh._counter is not None and fresh._encoder is None  # counting needs no model
