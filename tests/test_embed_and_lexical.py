"""The bundled model loads offline; the cache; BM25 vectors match Qdrant's own Bm25."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from qdrant_edge import Bm25, Bm25Config

from sectio.contract.profile import LexicalSettings
from sectio.embed.cache import CachedEmbedder
from sectio.embed.minilm import MODEL_ID, MiniLMEmbedder, prepare_model_dir
from sectio.index.lexical import LexicalEncoder
from sectio.testing import FakeEmbedder


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


class _CountingEmbedder(FakeEmbedder):
    """The fake embedder, counting the queries that reach the model."""

    def __init__(self) -> None:
        super().__init__(dimensions=8)
        self.query_calls: list[str] = []

    def embed_query(self, text: str) -> np.ndarray:
        self.query_calls.append(text)
        return super().embed_query(text)


def test_query_lru_serves_repeats_and_evicts_least_recently_used(tmp_path: Path) -> None:
    inner = _CountingEmbedder()
    c = CachedEmbedder(inner, tmp_path / "e.sqlite", query_cache_size=2)
    a1 = c.embed_query("a")
    c.embed_query("b")
    a2 = c.embed_query("a")  # hit: "a" is now the most recent
    assert np.array_equal(a1, a2)
    assert np.array_equal(a2, FakeEmbedder(dimensions=8).embed_query("a"))
    c.embed_query("c")  # evicts "b", the least recently used
    c.embed_query("a")  # still cached
    c.embed_query("b")  # recomputed
    assert inner.query_calls == ["a", "b", "c", "b"]
    assert (c.stats.queries_computed, c.stats.queries_cached) == (4, 2)
    with pytest.raises(ValueError):
        a2[0] = 1.0  # a cached vector is shared: it cannot be changed in place


def test_query_lru_off_embeds_every_query(tmp_path: Path) -> None:
    inner = _CountingEmbedder()
    c = CachedEmbedder(inner, tmp_path / "e.sqlite", query_cache_size=0)
    c.embed_query("a")
    c.embed_query("a")
    assert inner.query_calls == ["a", "a"]
    assert c.stats.queries_computed == 2


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


def test_a_comparisons_vs_is_no_query_term() -> None:
    """ "toEqual vs toStrictEqual" asks about two matchers; as a BM25 term its "vs" finds the
    one place a docs tree writes it ("VS Code"), at the query's highest weight."""
    enc = LexicalEncoder(LexicalSettings())
    compared = enc.encode_query("toEqual vs toStrictEqual: when to use which?")["bm25"]
    assert (
        compared.indices
        == enc.encode_query("toEqual toStrictEqual: when to use which?")["bm25"].indices
    )
    assert enc.encode_query("When should I use a hash versus. encryption")["bm25"].indices == (
        enc.encode_query("When should I use a hash encryption")["bm25"].indices
    )
    vs_code = enc.encode_query("Debugging in VS Code")["bm25"].indices
    assert set(vs_code) > set(enc.encode_query("Debugging in Code")["bm25"].indices)
    assert enc.terms("toEqual vs toStrictEqual") > enc.terms("toEqual toStrictEqual")


def test_chunking_by_token_offsets_equals_counting(minilm: MiniLMEmbedder) -> None:
    """The offsets path (one batched tokenization) must cut exactly where counting cuts."""
    import json

    from sectio.ingest.chunking import split_text

    corpus = Path(__file__).resolve().parents[1].parent / "shared/data/scifact/corpus.jsonl"
    if corpus.exists():
        with corpus.open() as fh:
            texts = [json.loads(next(fh))["text"] for _ in range(60)]
    else:  # a clean clone without the shared data: long prose of our own
        texts = [
            " ".join(f"Claim {i}: beta-blockers (e.g. 5 mg) reduce risk." for i in range(n))
            for n in (3, 40, 90)
        ]
    run_on = "x" * 5 + " word" * 300  # one sentence over the limit: cut on words
    texts += [run_on, "  Leading space.\n\nAnd a paragraph.  ", "Ünïcödé façade, naïve café."]
    starts = minilm.token_starts(texts)
    for limit in (16, 64, 256):
        for text, text_starts in zip(texts, starts, strict=True):
            by_count = split_text(text, limit, minilm.count_tokens)
            by_offsets = split_text(text, limit, starts=text_starts)
            assert by_offsets == by_count
            assert all(minilm.count_tokens(c) <= limit for c in by_offsets if " " in c)


def test_packing_never_exceeds_the_limit_when_a_tokenizer_merges_across_spaces() -> None:
    from sectio.ingest.chunking import split_text

    def merging(text: str) -> int:  # not additive: every space costs a token of its own
        return len(text.split()) + text.count(" ")

    # each sentence is 1 token, so their sum (4) fits, but joined they make 7
    chunks = split_text("a. b. c. d.", max_tokens=5, count=merging)
    assert chunks == ["a. b. c.", "d."]


def test_token_batches_respect_the_padded_budget() -> None:
    from sectio.embed.minilm import _token_batches

    sizes = [10, 10, 10, 40, 40, 300, 12]
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    batches = _token_batches(order, sizes, budget=80, most=3)
    assert [i for b in batches for i in b] == order  # every text once, in size order
    for b in batches:
        assert len(b) <= 3
        assert len(b) == 1 or len(b) * max(sizes[i] for i in b) <= 80
    assert [300] in [[sizes[i] for i in b] for b in batches]  # wider than the budget: alone


def test_minilm_token_budget_batches_give_the_same_vectors(minilm: MiniLMEmbedder) -> None:
    texts = ["short", "a somewhat longer sentence about renal dosing " * 6, "medium text here"]
    wide = MiniLMEmbedder(minilm._model_dir.parent.parent, batch_tokens=100_000, batch_size=64)
    assert np.allclose(minilm.embed_documents(texts), wide.embed_documents(texts), atol=1e-5)
