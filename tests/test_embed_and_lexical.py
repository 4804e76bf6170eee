"""The bundled model loads offline; the cache; BM25 vectors match Qdrant's own Bm25."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from qdrant_edge import Bm25, Bm25Config

from sectio.contract.profile import LexicalSettings
from sectio.embed.cache import CachedEmbedder
from sectio.embed.fake import FakeEmbedder
from sectio.embed.minilm import MODEL_ID, MiniLMEmbedder, prepare_model_dir
from sectio.index.lexical import LexicalEncoder


@pytest.fixture(scope="module")
def minilm(tmp_path_factory: pytest.TempPathFactory) -> MiniLMEmbedder:
    return MiniLMEmbedder(tmp_path_factory.mktemp("cache"), max_length=256)


def test_minilm_loads_offline_and_embeds_sensibly(
    minilm: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert minilm.model_id == MODEL_ID and minilm.dimensions == 384
    docs = minilm.embed_documents(
        ["Metformin lowers blood sugar in type 2 diabetes.", "The Eiffel Tower is in Paris."]
    )
    assert docs.shape == (2, 384) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    q = minilm.embed_query("diabetes medicine")
    assert float(q @ docs[0]) > float(q @ docs[1]) + 0.2


def test_minilm_order_is_preserved_despite_length_sorting(minilm: MiniLMEmbedder) -> None:
    texts = ["a much longer text about kidneys and blood pressure and more", "short", "medium text"]
    together = minilm.embed_documents(texts)
    alone = np.stack([minilm.embed_documents([t])[0] for t in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_minilm_truncation_and_token_count(minilm: MiniLMEmbedder) -> None:
    long = "word " * 1000
    assert minilm.count_tokens(long) == 1000  # counting is never truncated
    assert minilm.embed_documents([long]).shape == (1, 384)


def test_weights_are_verified_before_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sectio.embed.minilm as m

    fake_weights = tmp_path / "model.onnx"
    fake_weights.write_bytes(b"not the model")
    monkeypatch.setattr(m, "_weights_path", lambda: fake_weights)
    from sectio.errors import EmbeddingError

    with pytest.raises(EmbeddingError, match="sha256 mismatch"):
        prepare_model_dir(tmp_path / "cache")


def test_cache_is_keyed_by_model_and_text(tmp_path: Path) -> None:
    db = tmp_path / "e.sqlite"
    a = CachedEmbedder(FakeEmbedder(dimensions=8, model_id="m1"), db)
    a.embed_documents(["x", "y", "x"])
    assert (a.stats.computed, a.stats.cached) == (2, 1)
    b = CachedEmbedder(FakeEmbedder(dimensions=8, model_id="m2"), db)
    b.embed_documents(["x"])
    assert b.stats.computed == 1  # another model never reads m1's vectors
    c = CachedEmbedder(FakeEmbedder(dimensions=8, model_id="m1"), db)
    out = c.embed_documents(["y", "x"])
    assert c.stats.computed == 0
    assert np.array_equal(out, FakeEmbedder(dimensions=8).embed_documents(["y", "x"]))


@pytest.mark.parametrize("language", ["english", "russian"])
def test_bm25_weights_equal_qdrant_bm25_with_measured_avg_len(language: str) -> None:
    texts = [
        "the cats cats cats running dogs dog",
        "cats and dogs are nice animals in the house tonight",
        "кошки и собаки живут в доме",
    ]
    settings = LexicalSettings(language=language, k=1.2, b=0.75)
    enc = LexicalEncoder(settings)
    ours = enc.fit_documents(texts)
    ref = Bm25(Bm25Config(language=language, k=1.2, b=0.75, avg_len=enc.avg_len["bm25"]))
    for text, vec in zip(texts, ours, strict=True):
        expected = ref.embed_document(text)
        assert list(vec["bm25"].indices) == list(expected.indices)
        assert np.allclose(vec["bm25"].values, expected.values, atol=1e-5)


def test_folded_variant_matches_without_diacritics() -> None:
    enc = LexicalEncoder(
        LexicalSettings(
            language="none",
            stemming=False,
            stopwords=False,
            tokenizer="multilingual",
            fold_diacritics=True,
        )
    )
    assert enc.names == ("bm25", "bm25_folded")
    exact = enc.encode_query("chống chỉ định")
    plain = enc.encode_query("chong chi dinh")
    assert exact["bm25_folded"].indices == plain["bm25_folded"].indices
    assert exact["bm25"].indices != plain["bm25"].indices
