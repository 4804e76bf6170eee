"""Hybrid weights calibrated per collection and tenant: a model that cannot read the
corpus loses its dense weight; one that can keeps it; each tenant is measured on its own
chunks; the setting turns it off."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import numpy as np
import pytest

from sectio import Sectio, Settings
from sectio.embed.port import Vector
from sectio.retrieve.calibration import PSEUDO_WORDS, pseudo_queries
from sectio.retrieve.fusion import FusionParams
from sectio.retrieve.policy import EvidencePolicy
from sectio.retrieve.scope import ReadScope
from sectio.testing import FakeEmbedder
from tests.helpers import chunk, write_jsonl

VOCAB = [f"w{i}" for i in range(400)]


class BlindEmbedder(FakeEmbedder):
    """A model that cannot read the corpus: each whole text gets its own random direction,
    so a few words of a chunk are no closer to it than to any other chunk."""

    def _one(self, text: str) -> Vector:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "big")
        vec = np.random.default_rng(seed).standard_normal(self.dimensions).astype(np.float32)
        return vec / np.linalg.norm(vec)


def _rows(tenant: str, n: int = 60, words: int = 30) -> list[dict[str, object]]:
    rng = random.Random(tenant)
    return [
        chunk(f"{tenant}-d{i}", "body", 0, " ".join(rng.choices(VOCAB, k=words)), tenant=tenant)
        for i in range(n)
    ]


def _load(home: Path, tmp: Path, embedder: FakeEmbedder, **settings: object) -> Sectio:
    """acme: 60 chunks of 30 words; globex: 5 chunks too short for a pseudo-query."""
    short = [chunk(f"g{i}", "body", 0, "w1 w2 w3", tenant="globex") for i in range(5)]
    s = Sectio(Settings(home=home, **settings), embedder=embedder)  # type: ignore[arg-type]
    s.ingest(write_jsonl(tmp / "c.jsonl", _rows("acme") + short), collection="c")
    return s


def test_a_model_that_cannot_read_the_corpus_loses_its_dense_weight(tmp_path: Path) -> None:
    with _load(tmp_path / "h", tmp_path, BlindEmbedder()) as s:
        params = s.fusion("c", "acme")
        result = s.search("w1 w2 w3", collection="c", tenant="acme")
    assert params.dense_scale == pytest.approx(0.1)
    assert result.details["weights"] == pytest.approx([0.1, 1.2])
    shown = result.details["fusion_calibration"]
    assert shown["dense_scale"] == pytest.approx(0.1) and shown["pseudo_queries"] > 20
    assert shown["dense_mrr"] < 0.2 < 0.9 < shown["lexical_mrr"]


def test_a_model_that_reads_the_corpus_keeps_the_tuned_weights(tmp_path: Path) -> None:
    with _load(tmp_path / "h", tmp_path, FakeEmbedder()) as s:
        scope = ReadScope(s.collection("c"), "acme", s.tenant_guard, EvidencePolicy(), s.embedder)
        params, reliability = s.fusion_calibration.measure(scope)
        result = s.search("w1 w2 w3", collection="c", tenant="acme")
    assert reliability is not None and reliability.queries > 20
    assert reliability.dense_mrr > 0.9 and reliability.lexical_mrr > 0.9
    assert params.dense_scale == 1.0
    assert result.details["weights"] == pytest.approx([1.0, 1.2])


def test_each_tenant_is_measured_on_its_own_chunks(tmp_path: Path) -> None:
    with _load(tmp_path / "h", tmp_path, BlindEmbedder()) as s:
        # globex's chunks are too short for a pseudo-query: nothing measured, weights kept
        assert s.fusion("c", "globex").dense_scale == 1.0
        assert s.fusion("c", "acme").dense_scale == pytest.approx(0.1)


def test_calibration_off_keeps_the_configured_weights(tmp_path: Path) -> None:
    with _load(tmp_path / "h", tmp_path, BlindEmbedder(), hybrid_calibrate=False) as s:
        result = s.search("w1 w2 w3", collection="c", tenant="acme")
    assert result.details["weights"] == pytest.approx([1.0, 1.2])
    assert "fusion_calibration" not in result.details


def test_the_dense_scale_falls_with_the_sixth_power_of_the_shortfall() -> None:
    p = FusionParams(reliability_reference=0.5)
    scales = [p.calibrated(r).dense_scale for r in (0.0, 0.1, 0.3, 0.4, 0.5, 0.9)]
    assert scales == sorted(scales)
    assert scales[0] == 0.1 and scales[-2:] == [1.0, 1.0]
    assert p.calibrated(0.4).weights(sparse_names=("bm25",)) == pytest.approx([0.2621, 1.2])


def test_pseudo_queries_are_middle_windows_of_long_enough_texts() -> None:
    texts = ["short text", " ".join(VOCAB[:20]), " ".join(VOCAB[100:124])]
    picked = pseudo_queries(texts, n=5)
    assert [i for i, _ in picked] == [1, 2]
    assert all(len(q.split()) == PSEUDO_WORDS for _, q in picked)
    assert picked[0][1].split()[0] == VOCAB[2]  # (20 - 16) // 2
