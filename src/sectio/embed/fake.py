"""A deterministic fake embedder for tests that do not judge quality.

Vectors are a hashed bag of words: texts sharing words are close, the same
text always gives the same vector, no model is loaded.

Example:
    >>> e = FakeEmbedder(dimensions=8)
    >>> bool((e.embed_query("a b") == e.embed_documents(["a b"])[0]).all())
    True
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from sectio.embed.port import Matrix, Vector

_WORD = re.compile(r"\w+", re.UNICODE)


class FakeEmbedder:
    """Hashed bag-of-words vectors, unit length."""

    input_kind = "passage"

    def __init__(self, dimensions: int = 384, model_id: str = "fake-hash-bow") -> None:
        self.dimensions = dimensions
        self.model_id = model_id
        self.max_length = 512
        self.calls = 0
        self.texts_embedded = 0

    def _one(self, text: str) -> Vector:
        vec = np.zeros(self.dimensions, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            slot = int.from_bytes(digest[:4], "little") % self.dimensions
            sign = 1.0 if digest[4] & 1 else -1.0
            vec[slot] += sign
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            vec[0] = 1.0
            return vec
        return vec / norm

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        self.calls += 1
        self.texts_embedded += len(texts)
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.stack([self._one(t) for t in texts])

    def embed_query(self, text: str) -> Vector:
        return self._one(text)

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        self.calls += 1
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.stack([self._one(t) for t in texts])

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(text))
