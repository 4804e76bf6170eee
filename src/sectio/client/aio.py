"""The asyncio client: :class:`AsyncSectioClient` (the same calls as :class:`SectioClient`)."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
from typing_extensions import Unpack

from sectio.client import calls
from sectio.client._core import Call, RetryPolicy, finish, should_retry
from sectio.contract.result import RetrievalResult, SearchResult


class AsyncSectioClient:
    """A client for ``sectio serve``: the library's result models and exception tree.

    Every call sends ``Authorization: Bearer <api_key>`` (the server takes the
    tenant from it), an ``X-Request-ID`` (yours, or a new one; the same on
    every retry) and a ``traceparent`` (yours, or the active OpenTelemetry
    span's). A 503 or a connection error is retried per ``retry``
    (:class:`RetryPolicy`); then the error is raised as the class of
    :mod:`sectio.errors` the server named (``CollectionNotFound``,
    ``StoreUnavailable``, ...), a :class:`~sectio.errors.RemoteError` for the
    HTTP-only ones (401, 413, 422), or
    :class:`~sectio.errors.ServiceUnreachable` when no answer came.

    Example:
        >>> client = AsyncSectioClient("http://127.0.0.1:8000", api_key="k-acme")  # doctest: +SKIP
        >>> async with client as c:  # doctest: +SKIP
        ...     (await c.ask("who should not take metformin")).decision
        'ANSWERABLE'
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = retry or RetryPolicy()
        self._api_key = api_key
        self._http = httpx.AsyncClient(
            base_url=self.base_url, timeout=timeout_s, transport=transport
        )

    def __repr__(self) -> str:
        return f"AsyncSectioClient({self.base_url!r})"

    async def _send(
        self, call: Call, *, retries: int | None = None, accept: tuple[int, ...] = ()
    ) -> Any:
        budget = self.retry.retries if retries is None else retries
        for attempt in range(budget + 1):
            response, exc = None, None
            try:
                response = await self._http.request(
                    call.method, call.path, json=call.body, headers=call.headers(self._api_key)
                )
            except httpx.TransportError as err:
                exc = err
            if attempt < budget and should_retry(response, exc):
                after = response.headers.get("retry-after") if response is not None else None
                await anyio.sleep(self.retry.delay(attempt, after))
                continue
            return finish(self.base_url, call, response, exc, attempt + 1, accept)

    async def ask(self, question: str, **options: Unpack[calls.AskOptions]) -> RetrievalResult:
        """``POST /v1/retrieve``: the routed ``ask`` (see :meth:`sectio.Sectio.ask`)."""
        return RetrievalResult.model_validate(await self._send(calls.ask(question, options)))

    async def search(self, query: str, **options: Unpack[calls.SearchOptions]) -> SearchResult:
        """``POST /v1/search`` (see :meth:`sectio.Sectio.search`)."""
        return SearchResult.model_validate(await self._send(calls.search(query, options)))

    async def lookup(self, phrase: str, **options: Unpack[calls.LookupOptions]) -> RetrievalResult:
        """``POST /v1/lookup``: phrase -> documents."""
        return RetrievalResult.model_validate(await self._send(calls.lookup(phrase, options)))

    async def feedback(
        self, trace_id: str, rating: str, **options: Unpack[calls.FeedbackOptions]
    ) -> dict[str, Any]:
        """``POST /v1/feedback``: rate an answer (``helpful`` | ``not_helpful``)."""
        return dict(await self._send(calls.feedback(trace_id, rating, options)))

    async def collections(self) -> list[dict[str, Any]]:
        """``GET /v1/collections``: what the server serves, with readiness."""
        return list((await self._send(calls.get("/v1/collections")))["collections"])

    async def collection(self, name: str) -> dict[str, Any]:
        """``GET /v1/collections/{name}``: manifest, points, the caller's points."""
        return dict(await self._send(calls.get(f"/v1/collections/{name}")))

    async def trace(self, trace_id: str) -> dict[str, Any]:
        """``GET /v1/traces/{trace_id}``: one retrieval trace of the caller's tenant."""
        return dict(await self._send(calls.get(f"/v1/traces/{trace_id}")))

    async def ready(self) -> dict[str, Any]:
        """``GET /readyz`` once, without retries: ``{"ready": bool, ...}`` (200 or 503)."""
        return dict(await self._send(calls.get("/readyz"), retries=0, accept=(503,)))

    async def close(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncSectioClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
