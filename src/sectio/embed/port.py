"""The Embedder port: text in, unit-length float32 vectors out.

Implementations: :class:`sectio.embed.minilm.MiniLMEmbedder` (default),
:class:`sectio.embed.e5.E5Embedder` (multilingual extra),
:class:`sectio.embed.fake.FakeEmbedder` (deterministic, for tests).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]
Vector = npt.NDArray[np.float32]
#: Texts -> for each, the character offsets where its tokens start (ascending). An
#: optional embedder capability (MiniLM has it) that makes chunking linear.
TokenStarts = Callable[[Sequence[str]], list[list[int]]]
#: Questions -> their query vectors in one model call (row i for question i). An
#: optional embedder capability (MiniLM and the fake have it): the server embeds
#: the questions of concurrent requests together.
QueryBatch = Callable[[Sequence[str]], Matrix]


@runtime_checkable
class Embedder(Protocol):
    """Turns text into vectors.

    Attributes:
        model_id: stable identity of the model and its settings; bound in manifests.
        dimensions: length of every vector.
        input_kind: what documents are embedded as (e.g. ``passage``); bound in manifests.
        max_length: tokens per input after truncation; bound in manifests.
    """

    model_id: str
    dimensions: int
    input_kind: str
    max_length: int

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        """Embed passages. Returns shape ``(len(texts), dimensions)``, same order as input."""
        ...

    def embed_query(self, text: str) -> Vector:
        """Embed one query. Returns shape ``(dimensions,)``."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens the model's tokenizer makes of ``text`` (no truncation)."""
        ...
