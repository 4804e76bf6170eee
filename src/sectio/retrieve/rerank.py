"""The Reranker port, its adapters, and fail-open reranking.

Adapters (chosen in one place, :func:`build_reranker`, from settings):

* :class:`CrossEncoderReranker`: a fastembed ``TextCrossEncoder`` loaded from a
  local model folder (``SECTIO_RERANK_MODEL_PATH``; nothing is downloaded, and
  no cross-encoder with bundled weights exists on PyPI);
* :class:`HttpReranker`: a Cohere-compatible ``/rerank`` HTTP API
  (``SECTIO_RERANK_URL``, ``SECTIO_RERANK_API_KEY``, ``SECTIO_RERANK_MODEL``);
* :class:`FakeReranker`: deterministic word overlap, library code for tests; it
  can be told to fail or to be slow.

The default is no reranker. Reranking is an ordering aid and always fails
open: an error or a timeout leaves the original order and is recorded in the
result's details; it never removes evidence and never lifts the token budget.

Example:
    >>> r = FakeReranker()
    >>> r.rerank("kidney dose", ["liver", "kidney dose adjustment"])
    [0.0, 2.0]
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from sectio.contract.diagnostics import RerankStatus
from sectio.embed.runtime import onnx_cache_dir
from sectio.errors import ConfigError
from sectio.retrieve.text import tokens

log = logging.getLogger(__name__)

T = TypeVar("T")


@runtime_checkable
class Reranker(Protocol):
    """Scores documents against a query; higher is more relevant.

    ``rerank`` returns one score per document, in the order given. It may raise
    anything: callers go through :func:`rerank_fail_open`.
    """

    name: str

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        """One relevance score per document, same order as ``documents``."""
        ...


class FakeReranker:
    """Deterministic reranker for tests: score = distinct query words found in the document.

    Args:
        fail: raise :class:`RuntimeError` on every call.
        delay_s: sleep this long before answering (to exercise timeouts).
    """

    name = "fake"

    def __init__(self, *, fail: bool = False, delay_s: float = 0.0) -> None:
        self.fail = fail
        self.delay_s = delay_s
        self.calls = 0

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        self.calls += 1
        if self.delay_s:
            time.sleep(self.delay_s)
        if self.fail:
            raise RuntimeError("fake reranker told to fail")
        wanted = set(tokens(query))
        return [float(len(wanted & set(tokens(doc)))) for doc in documents]


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
        timeout_s: float = 10.0,
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


@dataclass
class Reranked:
    """Items in their final order and what happened on the way."""

    items: list[Any]
    scores: list[float] | None
    status: RerankStatus = field(default_factory=lambda: RerankStatus(status="off"))

    @property
    def details(self) -> RerankStatus:
        """The status under its former name (it reads as a mapping: ``details["status"]``)."""
        return self.status


def rerank_fail_open(
    reranker: Reranker | None,
    query: str,
    items: Sequence[T],
    texts: Sequence[str],
    *,
    timeout_s: float = 10.0,
) -> Reranked:
    """``items`` reordered by ``reranker`` scores, or unchanged on error, timeout or no reranker.

    The call runs in a daemon thread so a hung reranker cannot hold the caller
    past ``timeout_s``. ``status.status`` is ``off``, ``ok``, ``error`` or
    ``timeout``.
    """
    if reranker is None:
        return Reranked(list(items), None, RerankStatus(status="off"))
    if not items:
        return Reranked([], [], RerankStatus(status="ok", reranker=reranker.name))
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["scores"] = reranker.rerank(query, list(texts))
        except BaseException as exc:  # any failure fails open
            box["error"] = exc

    started = time.perf_counter()
    thread = threading.Thread(target=work, name="sectio-rerank", daemon=True)
    thread.start()
    thread.join(timeout_s)
    elapsed = round((time.perf_counter() - started) * 1000, 3)
    name = reranker.name
    if thread.is_alive():
        log.warning(
            "reranker %s timed out after %.1f s; original order kept", reranker.name, timeout_s
        )
        status = RerankStatus(reranker=name, ms=elapsed, status="timeout", timeout_s=timeout_s)
        return Reranked(list(items), None, status)
    if "error" in box:
        exc = box["error"]
        log.warning("reranker %s failed (%s); original order kept", reranker.name, exc)
        error = f"{type(exc).__name__}: {exc}"
        return Reranked(
            list(items), None, RerankStatus(reranker=name, ms=elapsed, status="error", error=error)
        )
    scores = list(box.get("scores") or [])
    if len(scores) != len(items):
        return Reranked(
            list(items),
            None,
            RerankStatus(
                reranker=name,
                ms=elapsed,
                status="error",
                error=f"{len(scores)} scores for {len(items)} items",
            ),
        )
    order = sorted(range(len(items)), key=lambda i: (-scores[i], i))
    ok = RerankStatus(reranker=name, ms=elapsed, status="ok")
    return Reranked([items[i] for i in order], [scores[i] for i in order], ok)


def build_reranker(settings: Any) -> Reranker | None:
    """The configured reranker, or None (the default).

    Reads ``rerank`` (``none`` | ``cross_encoder`` | ``http`` | ``fake``) and the
    matching ``rerank_*`` settings.

    Raises:
        ConfigError: a reranker is asked for without what it needs.
    """
    kind = getattr(settings, "rerank", "none") or "none"
    if kind == "none":
        return None
    if kind == "fake":
        return FakeReranker()
    if kind == "cross_encoder":
        path = getattr(settings, "rerank_model_path", None)
        if not path:
            raise ConfigError(
                "rerank=cross_encoder needs SECTIO_RERANK_MODEL_PATH (a local model folder)"
            )
        return CrossEncoderReranker(
            Path(path),
            getattr(settings, "rerank_model_name", "Xenova/ms-marco-MiniLM-L-6-v2"),
            cache_dir=settings.cache_dir,
        )
    if kind == "http":
        url = getattr(settings, "rerank_url", None)
        if not url:
            raise ConfigError("rerank=http needs SECTIO_RERANK_URL")
        key = getattr(settings, "rerank_api_key", None)
        return HttpReranker(
            url,
            api_key=key.get_secret_value() if key is not None else None,
            model=getattr(settings, "rerank_model", None),
            timeout_s=float(getattr(settings, "rerank_timeout_s", 10.0)),
        )
    raise ConfigError(f"unknown reranker {kind!r} (none, cross_encoder, http, fake)")
