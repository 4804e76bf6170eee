"""A mean-pooled sentence encoder on onnxruntime: one tokenizer, one ONNX session per process.

What fastembed runs for ``sentence-transformers/all-MiniLM-L6-v2`` (its
``PooledNormalizedEmbedding``), without importing fastembed: fastembed pulls in
huggingface_hub, httpx, requests, rich and loguru (~0.5 s of CPU on a 2-core
machine, every cold ``sectio ask``) to run the same three steps:

1. tokenize (truncated to ``max_length``, padded to the batch's longest text);
2. run the ONNX graph (``input_ids``, ``attention_mask``, ``token_type_ids``
   as zeros) with every graph optimisation (``ORT_ENABLE_ALL``);
3. average the last hidden state over the real tokens (float64), L2-normalise,
   cast to float32.

The vectors are fastembed's, bit for bit (tests/test_embed_session.py checks
that against fastembed itself), so collections embedded before stay valid.

Encoders and sessions are shared (:func:`shared_encoder`,
:func:`shared_session`): the first embedder of a process loads the graph and
the tokenizer, every later one (another :class:`sectio.Sectio`, another
``SECTIO_HOME``, the server's threads) reuses them. A session's ``run`` and a
tokenizer's ``encode_batch`` are thread-safe, and neither changes after
loading, so this process-wide cache is the one exception to "no module-level
state" (STYLE.md).

Example:
    >>> enc = SentenceEncoder(model_dir, max_length=256)  # doctest: +SKIP
    >>> enc.encode(["aspirin"]).shape  # doctest: +SKIP
    (1, 384)
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sectio.embed.port import Matrix
from sectio.embed.runtime import onnx_environment
from sectio.errors import EmbeddingError

_sessions: dict[tuple[str, int | None], Any] = {}
_encoders: dict[tuple[str, int, int | None], SentenceEncoder] = {}
_lock = threading.RLock()


def shared_encoder(model_dir: Path, max_length: int, threads: int | None = None) -> SentenceEncoder:
    """The process's encoder of ``model_dir`` (one per weights file, length and thread count).

    Raises:
        EmbeddingError: the tokenizer or the model cannot be loaded.
    """
    key = (str((model_dir / "model.onnx").resolve()), max_length, threads)
    with _lock:
        encoder = _encoders.get(key)
        if encoder is None:
            encoder = _encoders[key] = SentenceEncoder(model_dir, max_length, threads)
    return encoder


def shared_session(model_file: Path, threads: int | None = None) -> Any:
    """The process's ONNX session of ``model_file`` (loaded once per file and thread count).

    Raises:
        EmbeddingError: onnxruntime cannot load the file.
    """
    key = (str(model_file.resolve()), threads)
    with _lock:
        session = _sessions.get(key)
        if session is None:
            session = _sessions[key] = _load_session(model_file, threads)
    return session


def loaded_sessions() -> int:
    """How many ONNX sessions this process has loaded (the tests read it)."""
    return len(_sessions)


def _load_session(model_file: Path, threads: int | None) -> Any:
    onnx_environment()  # before onnxruntime is first imported
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads is not None:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = threads
    try:
        return ort.InferenceSession(
            str(model_file), sess_options=options, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:
        raise EmbeddingError(f"cannot load the ONNX model {model_file}: {exc}") from exc


def load_tokenizer(model_dir: Path, max_length: int) -> Any:
    """The model's tokenizer, truncating to ``max_length`` and padding to the batch's longest.

    As fastembed prepares it: the special tokens of ``special_tokens_map.json``
    are registered and the pad token and id come from the tokenizer, its config
    or ``config.json``, in that order.

    Raises:
        EmbeddingError: a file is missing or unreadable.
    """
    from tokenizers import AddedToken, Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        config = _json(model_dir / "tokenizer_config.json")
        model_config = _json(model_dir / "config.json")
        special = _json(model_dir / "special_tokens_map.json")
    except Exception as exc:
        raise EmbeddingError(f"cannot load the tokenizer in {model_dir}: {exc}") from exc
    tokenizer.enable_truncation(max_length=max_length)
    for token in special.values():
        for one in token if isinstance(token, list) else [token]:
            tokenizer.add_special_tokens([AddedToken(**one) if isinstance(one, dict) else one])
    padding = tokenizer.padding or {}
    pad_token = padding.get("pad_token") or config.get("pad_token")
    pad_id = padding.get("pad_id", model_config.get("pad_token_id"))
    if pad_id is None and pad_token is not None:
        pad_id = tokenizer.token_to_id(pad_token)
    if pad_token is None or pad_id is None:
        raise EmbeddingError(f"no pad token for the tokenizer in {model_dir}")
    tokenizer.enable_padding(
        direction=config.get("padding_side") or padding.get("direction", "right"),
        pad_id=pad_id,
        pad_type_id=padding.get("pad_type_id", 0),
        pad_token=pad_token,
        pad_to_multiple_of=padding.get("pad_to_multiple_of"),
    )
    return tokenizer


def _json(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else {}


class SentenceEncoder:
    """Texts to unit vectors: tokenizer + shared ONNX session + mean pooling.

    Example:
        >>> SentenceEncoder(model_dir, max_length=256).encode(["a", "b"]).shape  # doctest: +SKIP
        (2, 384)
    """

    def __init__(self, model_dir: Path, max_length: int, threads: int | None = None) -> None:
        """Load the tokenizer and the (shared) session of ``model_dir/model.onnx``.

        Raises:
            EmbeddingError: the tokenizer or the model cannot be loaded.
        """
        self.tokenizer = load_tokenizer(model_dir, max_length)
        self.session = shared_session(model_dir / "model.onnx", threads)
        self._inputs = {i.name for i in self.session.get_inputs()}

    def encode(self, texts: Sequence[str]) -> Matrix:
        """One vector per text, in input order, from one model call (float32, unit length)."""
        encodings = self.tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feed)[0]
        return _mean_normalized(hidden, mask)


def _mean_normalized(hidden: Any, mask: Any) -> Matrix:
    """The mean of each row's real-token states (float64), L2-normalised, as float32."""
    total = np.sum(hidden, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
    pooled = total / np.maximum(np.sum(mask, axis=1, keepdims=True), 1e-9)
    norms = np.maximum(np.linalg.norm(pooled, ord=2, axis=1, keepdims=True), 1e-12)
    return np.asarray(pooled / norms).astype(hidden.dtype, copy=False)
