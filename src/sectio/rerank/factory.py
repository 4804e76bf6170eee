"""The one place a reranker is chosen: from settings (``SECTIO_RERANK*``)."""

from __future__ import annotations

from pathlib import Path

from sectio.errors import ConfigError
from sectio.rerank.adapters import CrossEncoderReranker, HttpReranker
from sectio.rerank.fake import FakeReranker
from sectio.rerank.port import Reranker
from sectio.settings import Settings


def build_reranker(settings: Settings) -> Reranker | None:
    """The configured reranker, or None (the default).

    Reads ``rerank`` (``none`` | ``cross_encoder`` | ``http`` | ``fake``) and the
    matching ``rerank_*`` settings.

    Raises:
        ConfigError: a reranker is asked for without what it needs.
    """
    kind = settings.rerank
    if kind == "none":
        return None
    if kind == "fake":
        return FakeReranker()
    if kind == "cross_encoder":
        path = settings.rerank_model_path
        if not path:
            raise ConfigError(
                "rerank=cross_encoder needs SECTIO_RERANK_MODEL_PATH (a local model folder)"
            )
        return CrossEncoderReranker(
            Path(path),
            settings.rerank_model_name,
            cache_dir=settings.cache_dir,
        )
    if kind == "http":
        url = settings.rerank_url
        if not url:
            raise ConfigError("rerank=http needs SECTIO_RERANK_URL")
        key = settings.rerank_api_key
        return HttpReranker(
            url,
            api_key=key.get_secret_value() if key is not None else None,
            model=settings.rerank_model,
            timeout_s=settings.rerank_timeout_s,
        )
    raise ConfigError(f"unknown reranker {kind!r} (none, cross_encoder, http, fake)")
