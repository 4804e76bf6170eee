"""What the sync and async clients share: requests, headers, retries, error mapping.

Nothing here does I/O: :mod:`sectio.client.sync` and :mod:`sectio.client.aio`
send the :class:`Call` and hand each response (or transport error) back here.

Every failure is a :class:`~sectio.errors.SectioError`: a body that is not
JSON, or not the shape a call expects, is a :class:`~sectio.errors.RemoteError`
(never ``json.JSONDecodeError`` or pydantic's ``ValidationError``); a redirect
is not followed (a :class:`~sectio.errors.RemoteError` names where it pointed);
a body over ``max_response_bytes`` is refused as it streams in; and
``timeout_s`` is a **total** deadline per call, every retry and backoff
included (:class:`Deadline`), not a per-read timeout.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import AsyncIterable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from sectio._version import __version__
from sectio.errors import (
    HTTP_ERRORS,
    RemoteError,
    SectioError,
    ServiceUnreachable,
)
from sectio.telemetry import current_traceparent

M = TypeVar("M", bound=BaseModel)

#: The largest response body a client reads (a bigger one is refused as it streams in).
MAX_RESPONSE_BYTES = 32 * 2**20

#: Transport errors after which nothing reached the server's handler: safe to retry.
#: A read timeout is not among them (the server may still be answering).
RETRYABLE_ERRORS: tuple[type[httpx.TransportError], ...] = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
    httpx.WriteError,
)

#: Codes the HTTP layer also answers with for its own reasons (a query over the length
#: cap is 422 ``invalid_request``, not a store's ``InvalidInput``): they stay
#: :class:`RemoteError`, as does a bare 500 ``internal_error``.
HTTP_LAYER_CODES = frozenset({"internal_error", "invalid_request"})

#: ``error.code`` -> the first class of :data:`sectio.errors.HTTP_ERRORS` answered with it
#: (the most general one: ``index_error`` -> ``IndexError_``).
CODE_TO_ERROR: dict[str, type[SectioError]] = {}
for _cls, (_status, _code) in HTTP_ERRORS.items():
    if _code not in HTTP_LAYER_CODES and not issubclass(_cls, RemoteError):
        CODE_TO_ERROR.setdefault(_code, _cls)


@dataclass(frozen=True)
class RetryPolicy:
    """Retries on a 503 or a connection error, with capped exponential backoff and jitter.

    Try ``n`` (0-based) waits ``min(max_backoff_s, backoff_s * 2**n)`` times a
    random factor in [0.5, 1]; a ``Retry-After`` header (seconds) is honoured
    up to ``max_backoff_s``. ``retries=0`` sends once.

    Example:
        >>> RetryPolicy(retries=2, backoff_s=0.1).delay(1, None, jitter=1.0)
        0.2
    """

    retries: int = 3
    backoff_s: float = 0.25
    max_backoff_s: float = 4.0

    def delay(self, attempt: int, retry_after: str | None, *, jitter: float | None = None) -> float:
        """Seconds to wait before retry ``attempt`` (0-based)."""
        if retry_after is not None and retry_after.strip().isdigit():
            return min(float(retry_after.strip()), self.max_backoff_s)
        factor = random.uniform(0.5, 1.0) if jitter is None else jitter
        return min(self.max_backoff_s, self.backoff_s * 2**attempt) * factor


@dataclass(frozen=True)
class Call:
    """One API call: method, path, JSON body and the correlation headers."""

    method: str
    path: str
    body: dict[str, Any] | None = None
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    traceparent: str | None = None

    def headers(self, api_key: str | None) -> dict[str, str]:
        """``Authorization``, ``X-Request-ID`` (the same on every retry), ``traceparent``."""
        headers = {"X-Request-ID": self.request_id, "User-Agent": f"sectio-client/{__version__}"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        if self.traceparent:
            headers["traceparent"] = self.traceparent
        return headers


def make_call(
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    *,
    request_id: str | None = None,
    traceparent: str | None = None,
) -> Call:
    """A :class:`Call`; ``traceparent`` defaults to the active OpenTelemetry span's."""
    tp = traceparent if traceparent is not None else current_traceparent()
    body = {k: v for k, v in (body or {}).items() if v is not None} if body is not None else None
    if request_id:
        return Call(method, path, body, request_id, tp)
    return Call(method, path, body, traceparent=tp)


def should_retry(response: httpx.Response | None, exc: Exception | None) -> bool:
    """A 503, or a transport error before the request reached the handler."""
    if exc is not None:
        return isinstance(exc, RETRYABLE_ERRORS)
    return response is not None and response.status_code == 503


def error_for(response: httpx.Response, call: Call) -> SectioError:
    """The exception of an error response: the class its ``error.code`` names, else
    :class:`RemoteError` (:class:`ServiceUnreachable` for a 503 without a sectio body).

    The message is the server's; a note says status, code and request id.
    """
    status = response.status_code
    try:
        err = response.json().get("error") or {}
        code, message = str(err.get("code", "")), str(err.get("message", ""))
    except (ValueError, AttributeError):
        code, message = "", response.text[:200]
    message = message or f"HTTP {status}"
    cls = CODE_TO_ERROR.get(code)
    exc: SectioError
    if cls is not None:
        exc = cls(message)
    elif status == 503 and not code:
        exc = ServiceUnreachable(message, status=status, code=code, request_id=call.request_id)
    else:
        exc = RemoteError(message, status=status, code=code, request_id=call.request_id)
    exc.add_note(f"HTTP {status} {code or '-'} on {call.method} {call.path}, {call.request_id}")
    return exc


def unreachable(base_url: str, call: Call, exc: Exception, tries: int) -> ServiceUnreachable:
    """The error after the last transport failure."""
    return ServiceUnreachable(
        f"sectio at {base_url} unreachable after {tries} tries: {type(exc).__name__}: {exc}",
        request_id=call.request_id,
    )


class DeadlineExceeded(Exception):
    """The call's total deadline passed (internal: the clients raise ServiceUnreachable)."""


@dataclass
class Deadline:
    """A call's total time budget: every try, read and backoff counts against it.

    Example:
        >>> Deadline(30.0).remaining() > 29
        True
    """

    seconds: float
    started: float = field(default_factory=time.monotonic)

    def remaining(self) -> float:
        """Seconds left (0 when spent)."""
        return max(0.0, self.started + self.seconds - time.monotonic())

    def check(self) -> float:
        """Seconds left.

        Raises:
            DeadlineExceeded: none are.
        """
        left = self.remaining()
        if left <= 0:
            raise DeadlineExceeded()
        return left

    def timeout(self) -> httpx.Timeout:
        """The per-operation timeout of the next try: what is left of the budget."""
        return httpx.Timeout(self.check())

    def error(self, base_url: str, call: Call, tries: int) -> ServiceUnreachable:
        """The error of a spent budget."""
        return ServiceUnreachable(
            f"sectio at {base_url}: no complete answer within {self.seconds:g}s "
            f"({tries} {'try' if tries == 1 else 'tries'}; timeout_s is per call, "
            "retries included)",
            request_id=call.request_id,
        )


def check_head(response: httpx.Response, call: Call, cap: int) -> None:
    """Refuse a redirect, or a body declared over ``cap``, before reading it.

    Raises:
        RemoteError: a 3xx (not followed), or a ``Content-Length`` over ``cap``.
    """
    status = response.status_code
    if 300 <= status < 400:
        where = response.headers.get("location", "?")
        raise RemoteError(
            f"HTTP {status} redirect to {where[:200]} not followed (point the client at it)",
            status=status,
            code="redirect",
            request_id=call.request_id,
        )
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise too_large(call, cap, status)


def too_large(call: Call, cap: int, status: int) -> RemoteError:
    """The error of a body over ``cap`` bytes."""
    return RemoteError(
        f"response body over {cap} bytes (max_response_bytes); not read",
        status=status,
        code="response_too_large",
        request_id=call.request_id,
    )


class _Capped:
    """A body being read: refused past ``cap`` bytes or past the deadline."""

    def __init__(self, call: Call, cap: int, deadline: Deadline, status: int) -> None:
        self.call, self.cap, self.deadline, self.status = call, cap, deadline, status
        self.parts: list[bytes] = []
        self.size = 0

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size > self.cap:
            raise too_large(self.call, self.cap, self.status)
        self.parts.append(chunk)
        self.deadline.check()


def read_capped(
    chunks: Iterable[bytes], call: Call, cap: int, deadline: Deadline, status: int
) -> bytes:
    """The body from ``chunks``, refused past ``cap`` bytes or past the deadline.

    Raises:
        RemoteError: over ``cap``. DeadlineExceeded: the budget ran out mid-body.
    """
    body = _Capped(call, cap, deadline, status)
    for chunk in chunks:
        body.add(chunk)
    return b"".join(body.parts)


async def aread_capped(
    chunks: AsyncIterable[bytes], call: Call, cap: int, deadline: Deadline, status: int
) -> bytes:
    """:func:`read_capped` for an async body."""
    body = _Capped(call, cap, deadline, status)
    async for chunk in chunks:
        body.add(chunk)
    return b"".join(body.parts)


def finish(
    base_url: str,
    call: Call,
    response: httpx.Response | None,
    exc: Exception | None,
    tries: int,
    accept: tuple[int, ...] = (),
) -> Any:
    """The JSON body of a final response, or the error it stands for.

    Raises:
        ServiceUnreachable: no response (``exc``), or a 503 without a sectio body.
        SectioError: the class an error body's code names (see :func:`error_for`).
        RemoteError: a success whose body is not JSON.
    """
    if response is None:
        assert exc is not None
        raise unreachable(base_url, call, exc, tries) from exc
    if response.status_code >= 400 and response.status_code not in accept:
        raise error_for(response, call)
    try:
        return json.loads(response.content)
    except (ValueError, UnicodeDecodeError) as err:
        raise RemoteError(
            f"HTTP {response.status_code} from {call.method} {call.path} is not JSON: {err}",
            status=response.status_code,
            code="invalid_response",
            request_id=call.request_id,
        ) from None


def shape_error(call: Call, what: str, detail: str) -> RemoteError:
    """A body that is JSON but not what the call answers."""
    return RemoteError(
        f"{call.method} {call.path}: the body is not {what}: {detail[:300]}",
        code="invalid_response",
        request_id=call.request_id,
    )


def as_model(model: type[M], data: Any, call: Call) -> M:
    """``data`` validated as ``model``.

    Raises:
        RemoteError: it is not one (the first problem named).
    """
    try:
        return model.model_validate(data)
    except ValidationError as err:
        problems = err.errors()
        where = ".".join(str(p) for p in problems[0]["loc"]) if problems else ""
        msg = problems[0]["msg"] if problems else str(err)
        raise shape_error(call, f"a {model.__name__}", f"{where or 'body'}: {msg}") from None


def as_object(data: Any, call: Call, key: str | None = None) -> Any:
    """``data`` if it is a JSON object (and has ``key``), else the error; ``data[key]``
    when ``key`` is given.

    Raises:
        RemoteError: not an object, or no ``key``.
    """
    if not isinstance(data, dict):
        raise shape_error(call, "a JSON object", type(data).__name__)
    if key is None:
        return data
    if key not in data:
        raise shape_error(call, f"an object with {key!r}", ", ".join(map(str, data))[:100])
    return data[key]
