"""``sectio.client`` against a hostile or broken server: only SectioError comes out.

A 200 that is not JSON, a JSON of the wrong shape, a redirect, a huge body, and a
server that trickles a byte at a time past the deadline. Fake services are
``httpx.MockTransport`` (the library's own test transport) and, for the
trickle, a real socket on loopback.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from sectio.client import AsyncSectioClient, RetryPolicy, SectioClient
from sectio.errors import RemoteError, SectioError, ServiceUnreachable

FAST = RetryPolicy(retries=3, backoff_s=0.01, max_backoff_s=0.02)


def _client(handler: Any, **options: Any) -> SectioClient:
    return SectioClient(
        "http://sectio", retry=FAST, transport=httpx.MockTransport(handler), **options
    )


@pytest.mark.parametrize(
    ("response", "match"),
    [
        (httpx.Response(200, content=b"<html>proxy error</html>"), "not JSON"),
        (httpx.Response(200, json={"hits": "nope"}), "not a SearchResult"),
        (httpx.Response(200, json=[1, 2, 3]), "not a SearchResult"),
        (httpx.Response(307, headers={"Location": "http://evil/v1/search"}), "redirect"),
        (httpx.Response(200, content=b"[" + b"0," * (30 * 2**20) + b"0]"), "over"),
    ],
    ids=["html", "wrong-shape", "array", "redirect", "60MB"],
)
def test_every_broken_answer_is_a_sectio_error(response: httpx.Response, match: str) -> None:
    client = _client(lambda request: response)
    with pytest.raises(RemoteError, match=match) as caught:
        client.search("aspirin")
    assert isinstance(caught.value, SectioError)


def test_a_streamed_body_over_the_cap_is_refused_without_a_length() -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(100):
            yield b"x" * 65536

    client = _client(
        lambda request: httpx.Response(200, content=chunks()), max_response_bytes=2**20
    )
    with pytest.raises(RemoteError, match="over 1048576 bytes"):
        client.collections()


def test_other_calls_check_their_shape_too() -> None:
    client = _client(lambda request: httpx.Response(200, json=["a"]))
    for call in (client.collections, lambda: client.collection("x"), client.ready):
        with pytest.raises(RemoteError, match="not a JSON object"):
            call()
    listed = _client(lambda request: httpx.Response(200, json={"collections": "x"}))
    with pytest.raises(RemoteError, match="list of collections"):
        listed.collections()


def test_the_async_client_maps_them_the_same_way() -> None:
    async def run() -> None:
        transport = httpx.MockTransport(lambda request: httpx.Response(200, content=b"oops"))
        async with AsyncSectioClient("http://sectio", retry=FAST, transport=transport) as c:
            with pytest.raises(RemoteError, match="not JSON"):
                await c.ask("q")
        redirect = httpx.MockTransport(
            lambda request: httpx.Response(302, headers={"Location": "/elsewhere"})
        )
        async with AsyncSectioClient("http://sectio", retry=FAST, transport=redirect) as c:
            with pytest.raises(RemoteError, match="redirect"):
                await c.lookup("pain")

    asyncio.run(run())


def test_the_timeout_is_a_total_deadline_with_retries_included() -> None:
    def always_503(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, headers={"Retry-After": "1"})

    slow_retries = RetryPolicy(retries=10, backoff_s=1.0, max_backoff_s=1.0)
    client = SectioClient(
        "http://sectio",
        retry=slow_retries,
        timeout_s=1.5,
        transport=httpx.MockTransport(always_503),
    )
    started = time.monotonic()
    with pytest.raises(ServiceUnreachable):
        client.search("aspirin")
    assert time.monotonic() - started < 3.0  # not 10 tries x 1 s


@pytest.fixture
def trickle() -> Iterator[int]:
    """A loopback HTTP server that sends its headers, then one body byte every 0.2 s."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.1)
    stop = threading.Event()

    def serve_one(conn: socket.socket) -> None:
        try:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
            conn.sendall(b"Content-Length: 1000\r\n\r\n")
            while not stop.is_set():
                conn.sendall(b" ")
                time.sleep(0.2)
        except OSError:
            pass
        finally:
            conn.close()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=serve_one, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(timeout=2)
        listener.close()


def test_a_trickling_server_cannot_stretch_a_call_past_its_timeout(trickle: int) -> None:
    client = SectioClient(f"http://127.0.0.1:{trickle}", retry=FAST, timeout_s=1.0)
    started = time.monotonic()
    with pytest.raises(ServiceUnreachable, match="within 1s"):
        client.search("aspirin")
    assert time.monotonic() - started < 2.0

    async def run() -> float:
        async with AsyncSectioClient(f"http://127.0.0.1:{trickle}", retry=FAST, timeout_s=1.0) as c:
            t0 = time.monotonic()
            with pytest.raises(ServiceUnreachable):
                await c.search("aspirin")
            return time.monotonic() - t0

    assert asyncio.run(run()) < 2.0
