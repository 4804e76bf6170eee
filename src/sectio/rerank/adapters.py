"""The reranker adapters: a local cross-encoder (fastembed) and a Cohere-compatible HTTP API."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sectio.embed.runtime import onnx_cache_dir
from sectio.errors import ConfigError
from sectio.rerank.port import DEFAULT_TIMEOUT_S


class CrossEncoderReranker:
    """A local cross-encoder through fastembed (``TextCrossEncoder``, ``specific_model_path``).

    The folder must hold the ONNX model and its tokenizer files; ``model_name``
    names the fastembed model description it follows (input names, pooling).
    """

    def __init__(
        self,
        model_path: Path,
        model_name: str,
        *,
        cache_dir: Path,
        threads: int | None = None,
    ) -> None:
        if not Path(model_path).is_dir():
            raise ConfigError(f"rerank model folder {model_path} does not exist")
        fastembed_cache = onnx_cache_dir(cache_dir)  # before fastembed imports onnxruntime
        from fastembed.rerank.cross_encoder import TextCrossEncoder

        self.name = f"cross-encoder:{model_name}"
        self._model = TextCrossEncoder(
            model_name=model_name,
            specific_model_path=str(model_path),
            cache_dir=str(fastembed_cache),
            threads=threads,
        )

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        return [float(s) for s in self._model.rerank(query, list(documents))]


class HttpReranker:
    """A Cohere-compatible rerank API: ``POST {url}`` with ``query``, ``documents``, ``model``.

    The answer's ``results`` list (``index``, ``relevance_score``) is turned back
    into one score per document; documents the API leaves out score ``-inf``.
    """

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        model: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        transport: Any = None,
    ) -> None:
        import httpx

        self.name = f"http:{model or 'default'}"
        self.url = url
        self.model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout_s, headers=headers, transport=transport)

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        body: dict[str, Any] = {
            "query": query,
            "documents": list(documents),
            "top_n": len(documents),
        }
        if self.model:
            body["model"] = self.model
        response = self._client.post(self.url, json=body)
        response.raise_for_status()
        scores = [float("-inf")] * len(documents)
        for item in response.json().get("results", []):
            idx = int(item["index"])
            if 0 <= idx < len(documents):
                scores[idx] = float(item["relevance_score"])
        return scores

    def close(self) -> None:
        self._client.close()
