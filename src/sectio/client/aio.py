"""The asyncio client: :class:`AsyncSectioClient` (the same calls as :class:`SectioClient`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio
import httpx
from typing_extensions import Unpack

from sectio.client import calls
from sectio.client._core import (
    MAX_RESPONSE_BYTES,
    Call,
    Deadline,
    DeadlineExceeded,
    RetryPolicy,
    aread_capped,
    as_model,
    as_object,
    check_head,
    finish,
    shape_error,
    should_retry,
)
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
    :class:`~sectio.errors.ServiceUnreachable` when no answer came. ``timeout_s``
    bounds each call as a whole, retries and backoff included; a redirect is
    not followed, a body over ``max_response_bytes`` is refused, and a body that
    is not the expected JSON is a :class:`~sectio.errors.RemoteError`: every
    failure is a :class:`~sectio.errors.SectioError`.

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
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = retry or RetryPolicy()
        self.timeout_s = timeout_s
        self.max_response_bytes = max_response_bytes
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
        deadline = Deadline(self.timeout_s)
        attempt = 0
        try:
            for attempt in range(budget + 1):
                response, exc = None, None
                try:
                    response = await self._request(call, deadline)
                except httpx.TransportError as err:
                    exc = err
                if attempt < budget and should_retry(response, exc):
                    after = response.headers.get("retry-after") if response is not None else None
                    wait = self.retry.delay(attempt, after)
                    if wait < deadline.remaining():
                        await anyio.sleep(wait)
                        continue
                return finish(self.base_url, call, response, exc, attempt + 1, accept)
        except DeadlineExceeded:
            raise deadline.error(self.base_url, call, attempt + 1) from None

    async def _request(self, call: Call, deadline: Deadline) -> httpx.Response:
        """One try, its body read whole (capped) within what is left of the deadline."""
        headers = call.headers(self._api_key)
        try:
            with anyio.fail_after(deadline.check()):
                async with self._http.stream(
                    call.method,
                    call.path,
                    json=call.body,
                    headers=headers,
                    timeout=deadline.timeout(),
                ) as r:
                    check_head(r, call, self.max_response_bytes)
                    cap, status = self.max_response_bytes, r.status_code
                    body = await aread_capped(r.aiter_bytes(), call, cap, deadline, status)
        except TimeoutError:
            raise DeadlineExceeded() from None
        return httpx.Response(r.status_code, headers=r.headers, content=body, request=r.request)

    async def ask(self, question: str, **options: Unpack[calls.AskOptions]) -> RetrievalResult:
        """``POST /v1/retrieve``: the routed ``ask`` (see :meth:`sectio.Sectio.ask`)."""
        call = calls.ask(question, options)
        return as_model(RetrievalResult, await self._send(call), call)

    async def search(self, query: str, **options: Unpack[calls.SearchOptions]) -> SearchResult:
        """``POST /v1/search`` (see :meth:`sectio.Sectio.search`)."""
        call = calls.search(query, options)
        return as_model(SearchResult, await self._send(call), call)

    async def lookup(self, phrase: str, **options: Unpack[calls.LookupOptions]) -> RetrievalResult:
        """``POST /v1/lookup``: phrase -> documents."""
        call = calls.lookup(phrase, options)
        return as_model(RetrievalResult, await self._send(call), call)

    async def feedback(
        self, trace_id: str, rating: str, **options: Unpack[calls.FeedbackOptions]
    ) -> dict[str, Any]:
        """``POST /v1/feedback``: rate an answer (``helpful`` | ``not_helpful``)."""
        call = calls.feedback(trace_id, rating, options)
        return dict(as_object(await self._send(call), call))

    async def upsert_documents(
        self, records: Sequence[Mapping[str, Any]], **options: Unpack[calls.AdminOptions]
    ) -> dict[str, Any]:
        """``POST /v1/admin/documents/upsert`` (an admin key): add documents, replace changed
        ones by doc id; the report counts ``added``, ``changed``, ``unchanged``."""
        call = calls.documents("upsert", records, options)
        return dict(as_object(await self._send(call), call))

    async def sync_documents(
        self, records: Sequence[Mapping[str, Any]], **options: Unpack[calls.AdminOptions]
    ) -> dict[str, Any]:
        """``POST /v1/admin/documents/sync``: make the key's tenant equal to ``records``."""
        call = calls.documents("sync", records, options)
        return dict(as_object(await self._send(call), call))

    async def delete_documents(
        self, doc_ids: Sequence[str], **options: Unpack[calls.AdminOptions]
    ) -> dict[str, Any]:
        """``POST /v1/admin/documents/delete``: remove documents of the key's tenant."""
        call = calls.delete_documents(doc_ids, options)
        return dict(as_object(await self._send(call), call))

    async def replace_tenant(
        self, records: Sequence[Mapping[str, Any]], **options: Unpack[calls.AdminOptions]
    ) -> dict[str, Any]:
        """``POST /v1/admin/tenant/replace``: a new version of the key's tenant, switched."""
        call = calls.documents("replace", records, options)
        return dict(as_object(await self._send(call), call))

    async def collections(self) -> list[dict[str, Any]]:
        """``GET /v1/collections``: what the server serves, with readiness."""
        call = calls.get("/v1/collections")
        listed = as_object(await self._send(call), call, "collections")
        if not isinstance(listed, list):
            raise shape_error(call, "a list of collections", type(listed).__name__)
        return listed

    async def collection(self, name: str) -> dict[str, Any]:
        """``GET /v1/collections/{name}``: manifest, points, the caller's points."""
        call = calls.get(f"/v1/collections/{name}")
        return dict(as_object(await self._send(call), call))

    async def trace(self, trace_id: str) -> dict[str, Any]:
        """``GET /v1/traces/{trace_id}``: one retrieval trace of the caller's tenant."""
        call = calls.get(f"/v1/traces/{trace_id}")
        return dict(as_object(await self._send(call), call))

    async def ready(self) -> dict[str, Any]:
        """``GET /readyz`` once, without retries: ``{"ready": bool, ...}`` (200 or 503)."""
        call = calls.get("/readyz")
        return dict(as_object(await self._send(call, retries=0, accept=(503,)), call))

    async def close(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncSectioClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
