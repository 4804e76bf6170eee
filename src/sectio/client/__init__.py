"""A Python client for ``sectio serve``: sync (:class:`SectioClient`) and async
(:class:`AsyncSectioClient`), over httpx.

Same result models as the library (:class:`~sectio.RetrievalResult`,
:class:`~sectio.SearchResult`), same exception tree (:mod:`sectio.errors`),
retries with backoff on 503 and connection errors (:class:`RetryPolicy`),
``X-Request-ID`` and ``traceparent`` on every request. The framework
retrievers' remote mode (:mod:`sectio.integrations`) uses it.

Example:
    >>> from sectio.client import SectioClient
    >>> client = SectioClient("http://127.0.0.1:8000", api_key="k-acme")  # doctest: +SKIP
    >>> client.search("aspirin bleeding", top_k=3).hits[0].chunk_id  # doctest: +SKIP
"""

from sectio.client._core import RetryPolicy
from sectio.client.aio import AsyncSectioClient
from sectio.client.sync import SectioClient

__all__ = ["AsyncSectioClient", "RetryPolicy", "SectioClient"]
