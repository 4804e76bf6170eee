"""Load test of ``sectio serve`` on loopback. Prints a table; never a test.

Starts the server (real MiniLM, the shipped demo corpus) in its own process,
then drives it from this process with concurrent keep-alive clients for a fixed
time per endpoint, reporting requests/s, p50/p99 latency, errors and the
server's RSS at start and after each row (flat RSS = no leak).

Two query mixes per endpoint: ``repeated`` (8 consumer questions in turn: the
query-vector LRU answers every repeat, as for an assistant's common questions)
and ``distinct`` (every request a question never asked before: the model embeds
each one).

Usage: ``python benchmarks/load.py [--seconds 30] [--concurrency 8] [--embedder minilm|fake]
[--client aiohttp|httpx]``
(``--seconds 150`` for the 10-minute RSS run: four rows of 150 s).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import print_table

QUESTIONS = [
    "what is metformin used for",
    "side effects of sertraline",
    "can I take warfarin with aspirin",
    "who should not take lisinopril",
    "how much ibuprofen can I take",
    "omeprazole interactions",
    "stomach bleeding risk",
    "dose of amoxicillin for children",
]


DRUGS = [
    "metformin",
    "sertraline",
    "warfarin",
    "aspirin",
    "lisinopril",
    "ibuprofen",
    "omeprazole",
    "amoxicillin",
]
TEMPLATES = [
    "what is {d} used for {m}",
    "side effects of {d} {m}",
    "who should not take {d} {m}",
    "how much {d} can I take {m}",
    "{d} interactions {m}",
    "is {d} safe {m}",
    "can {d} cause stomach bleeding {m}",
    "what happens if I miss a dose of {d} {m}",
]
MODIFIERS = ["in a {a} year old", "at age {a}", "if I weigh {a} kg", "after {a} days"]


def distinct_questions() -> list[str]:
    """18,432 different questions about the demo drugs (never two alike)."""
    return [
        t.format(d=d, m=m.format(a=a))
        for a in range(18, 90)
        for m in MODIFIERS
        for t in TEMPLATES
        for d in DRUGS
    ]


def fresh_questions() -> Iterator[str]:
    """Questions never asked before, without end (later rounds carry a case number)."""
    base = distinct_questions()
    yield from base
    for case in itertools.count(2):
        for q in base:
            yield f"{q}, case {case}"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.asynccontextmanager
async def _poster(
    client: str, url: str, path: str, concurrency: int
) -> AsyncIterator[Callable[[dict[str, Any]], Awaitable[int]]]:
    """An async ``post(body) -> status`` over ``concurrency`` keep-alive connections.

    ``aiohttp`` (default) costs the load generator ~5x less CPU per request than
    ``httpx`` (0.36 vs ~1.8 ms), and it shares the 2 cores with the server.
    """
    if client == "httpx":
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as hx:

            async def post_httpx(body: dict[str, Any]) -> int:
                return (await hx.post(path, json=body)).status_code

            yield post_httpx
        return
    connector = aiohttp.TCPConnector(limit=concurrency)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(url, connector=connector, timeout=timeout) as session:

        async def post_aiohttp(body: dict[str, Any]) -> int:
            async with session.post(path, json=body) as resp:
                await resp.read()
                return resp.status

        yield post_aiohttp


async def _drive(
    url: str, path: str, body_of, seconds: float, concurrency: int, client: str = "aiohttp"
) -> dict[str, float]:  # type: ignore[no-untyped-def]
    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + seconds
    async with _poster(client, url, path, concurrency) as post:

        async def worker(i: int) -> None:
            nonlocal errors
            n = i
            while time.perf_counter() < deadline:
                body = body_of(n)
                n += concurrency
                t = time.perf_counter()
                try:
                    if await post(body) != 200:
                        errors += 1
                except (TimeoutError, httpx.HTTPError, aiohttp.ClientError):
                    errors += 1
                latencies.append(time.perf_counter() - t)

        started = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(concurrency)))
        elapsed = time.perf_counter() - started
    latencies.sort()
    n = len(latencies)
    return {
        "requests": n,
        "rps": n / elapsed,
        "p50_ms": latencies[n // 2] * 1000 if n else 0.0,
        "p99_ms": latencies[min(n - 1, int(n * 0.99))] * 1000 if n else 0.0,
        "errors": errors,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--client", default="aiohttp", choices=["aiohttp", "httpx"])
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="sectio-load-"))
    env = {**os.environ, "SECTIO_HOME": str(home), "SECTIO_EMBEDDER": args.embedder}
    env.pop("SECTIO_API_KEYS", None)
    sectio = [sys.executable, "-m", "sectio.cli"]
    subprocess.run(
        [*sectio, "demo", "--collection", "default", "--json"],
        env=env,
        check=True,
        capture_output=True,
    )
    port = _port()
    server = subprocess.Popen(
        [*sectio, "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        proc = psutil.Process(server.pid)
        # warm up (model, caches) before measuring
        asyncio.run(_drive(url, "/v1/search", lambda n: {"query": QUESTIONS[n % 8]}, 2, 2))
        rss_start = proc.memory_info().rss / 2**20
        rows = []
        fresh = fresh_questions()
        for path, mix, body_of in (
            ("/v1/search", "repeated", lambda n: {"query": QUESTIONS[n % len(QUESTIONS)]}),
            ("/v1/search", "distinct", lambda n: {"query": next(fresh)}),
            ("/v1/retrieve", "repeated", lambda n: {"query": QUESTIONS[n % len(QUESTIONS)]}),
            ("/v1/retrieve", "distinct", lambda n: {"query": next(fresh)}),
        ):
            r = asyncio.run(_drive(url, path, body_of, args.seconds, args.concurrency, args.client))
            rows.append(
                [
                    path,
                    mix,
                    args.concurrency,
                    r["requests"],
                    r["rps"],
                    r["p50_ms"],
                    r["p99_ms"],
                    r["errors"],
                    proc.memory_info().rss / 2**20,
                ]
            )
        rss_end = proc.memory_info().rss / 2**20
    finally:
        server.terminate()
        server.wait(timeout=30)
    print_table(
        f"sectio serve on loopback, {args.embedder} embedder, {args.client} client, "
        f"{args.seconds:.0f} s per endpoint "
        f"(server RSS {rss_start:.0f} MiB at start, {rss_end:.0f} MiB at end)",
        [
            "endpoint",
            "questions",
            "concurrency",
            "requests",
            "req/s",
            "p50 ms",
            "p99 ms",
            "errors",
            "RSS MiB after",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
