"""Soak: a sick operational store must slow no one. Prints a table; never a test.

``sectio serve`` (its own process, loopback only, the fake embedder: the cost
measured is the serving path's, not the model's) over two tenants' drug labels.
2 tenants x 4 clients (in each tenant, 2 of the 4 send a ``conversation_id``)
ask for ``--seconds`` while PostgreSQL is:

* ``healthy``: a throwaway database on the local server (the reference);
* ``down``: a closed port (connections refused);
* ``black-holed``: a local listener that accepts and never answers;
* ``locked``: the throwaway database with ``conversation_turn`` and
  ``retrieval_trace`` held by ``LOCK TABLE ... IN ACCESS EXCLUSIVE MODE``
  from another session, released at two thirds of the run (the heal).

Columns: requests/s (and as % of healthy), p50/p99 latency of the requests
sent after the first store timeout had passed (the first
``SECTIO_DB_CONNECT_TIMEOUT_S`` + 0.5 s), errors (non-200), and for ``locked``
how long after the heal the first trace was written again.

    python benchmarks/soak_store.py --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

from sectio import Sectio, Settings
from sectio.ops import OpsStore
from sectio.testing import closed_port, silent_server, throwaway_database

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_table

KEYS = {"acme": "k-acme", "globex": "k-globex"}
QUESTIONS = [
    "what are the contraindications of aspirin",
    "what are the adverse reactions",
    "who should not take metformin",
    "is metformin used for diabetes",
]
RETRY_AFTER_S = 5.0
CONNECT_S = 2.0


def _home(root: Path) -> Path:
    rows = []
    for tenant in KEYS:
        for doc, sections in {
            "aspirin": {
                "contraindications": "Do not use aspirin with a bleeding disorder.",
                "adverse_reactions": "Stomach upset and bleeding may occur.",
            },
            "metformin": {
                "indications_and_usage": "Metformin treats type 2 diabetes.",
                "contraindications": "Do not use metformin in severe renal impairment.",
            },
        }.items():
            for key, text in sections.items():
                rows.append(
                    {
                        "chunk_id": f"{tenant}:{doc}#{key}",
                        "doc_id": doc,
                        "doc_title": doc.title(),
                        "section_key": key,
                        "part_index": 0,
                        "text": text,
                        "tenant": tenant,
                    }
                )
    path = root / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with Sectio(Settings(home=root / "home", embedder="fake", traces=False)) as s:
        s.ingest(path, profile="en_drug_label")
    return root / "home"


@contextlib.contextmanager
def _server(home: Path, database_url: str) -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {
        **os.environ,
        "SECTIO_HOME": str(home),
        "SECTIO_EMBEDDER": "fake",
        "SECTIO_API_KEYS": ",".join(f"{k}:{t}" for t, k in KEYS.items()),
        "SECTIO_DATABASE_URL": database_url,
        "SECTIO_DB_RETRY_AFTER_S": str(RETRY_AFTER_S),
        "SECTIO_DB_CONNECT_TIMEOUT_S": str(CONNECT_S),
        "SECTIO_DB_STATEMENT_TIMEOUT_S": str(CONNECT_S),
    }
    cmd = [sys.executable, "-m", "sectio.cli", "serve", "--port", str(port)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        else:
            raise SystemExit("server did not become ready")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


async def _client(url: str, tenant: str, n: int, until: float, out: list[tuple]) -> None:
    headers = {"Authorization": f"Bearer {KEYS[tenant]}"}
    conversation = f"{tenant}-{n}" if n % 2 == 0 else None
    questions = itertools.cycle(QUESTIONS)
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as http:
        while time.monotonic() < until:
            body: dict[str, Any] = {"query": next(questions)}
            if conversation:
                body["conversation_id"] = conversation
            t0 = time.monotonic()
            try:
                r = await http.post("/v1/retrieve", json=body)
                ok, traced = (
                    r.status_code == 200,
                    bool(r.status_code == 200 and r.json()["trace_id"]),
                )
            except httpx.HTTPError:
                ok, traced = False, False
            out.append((t0, time.monotonic() - t0, ok, traced))


async def _drive(url: str, seconds: float) -> list[tuple]:
    out: list[tuple] = []
    until = time.monotonic() + seconds
    await asyncio.gather(*(_client(url, t, n, until, out) for t in KEYS for n in range(4)))
    return out


def _row(name: str, samples: list[tuple], started: float, seconds: float) -> dict[str, Any]:
    after = [lat for t0, lat, _, _ in samples if t0 >= started + CONNECT_S + 0.5]
    after.sort()
    return {
        "scenario": name,
        "rps": len(samples) / seconds,
        "p50": statistics.median(after) * 1000 if after else 0.0,
        "p99": after[int(0.99 * (len(after) - 1))] * 1000 if after else 0.0,
        "errors": sum(1 for s in samples if not s[2]),
        "traced": sum(1 for s in samples if s[3]),
    }


def _run(home: Path, name: str, url: str, seconds: float, locker: Any = None) -> dict[str, Any]:
    with _server(home, url) as base:
        started = time.monotonic()
        if locker is None:
            samples = asyncio.run(_drive(base, seconds))
            return _row(name, samples, started, seconds)
        engine = sa.create_engine(locker, poolclass=sa.NullPool)
        with engine.connect() as conn:
            tx = conn.begin()
            conn.exec_driver_sql(
                "LOCK TABLE conversation_turn, retrieval_trace IN ACCESS EXCLUSIVE MODE"
            )
            loop = asyncio.new_event_loop()
            task = loop.create_task(_drive(base, seconds))
            heal_at = started + seconds * 2 / 3
            loop.run_until_complete(asyncio.sleep(max(0.0, heal_at - time.monotonic())))
            tx.rollback()
            healed = time.monotonic()
            samples = loop.run_until_complete(task)
            loop.close()
        engine.dispose()
        row = _row(name, samples, started, seconds)
        resumed = [t0 + lat for t0, lat, _, traced in samples if traced and t0 >= healed]
        row["resume_s"] = (min(resumed) - healed) if resumed else None
        return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="soak-"))
    home = _home(root)
    rows = []
    with throwaway_database(prefix="sectio_soak") as db:
        OpsStore(db).migrate()
        rows.append(_run(home, "healthy", db, args.seconds))
        rows.append(
            _run(home, "down", f"postgresql+psycopg://x@127.0.0.1:{closed_port()}/x", args.seconds)
        )
        with silent_server() as port:
            hole = f"postgresql+psycopg://x@127.0.0.1:{port}/x"
            rows.append(_run(home, "black-holed", hole, args.seconds))
        rows.append(_run(home, "locked", db, args.seconds, locker=db))
    base = rows[0]["rps"] or 1.0
    print_table(
        f"Sick operational store, 2 tenants x 4 clients (2 per tenant in a conversation), "
        f"{args.seconds:g} s each, sectio serve (fake embedder), "
        f"SECTIO_DB_RETRY_AFTER_S={RETRY_AFTER_S:g}",
        [
            "PostgreSQL",
            "req/s",
            "% of healthy",
            "p50 ms",
            "p99 ms",
            "errors",
            "traced",
            "traces resume after heal (s)",
        ],
        [
            [
                r["scenario"],
                r["rps"],
                100 * r["rps"] / base,
                r["p50"],
                r["p99"],
                r["errors"],
                r["traced"],
                "-" if r.get("resume_s") is None else round(r["resume_s"], 2),
            ]
            for r in rows
        ],
    )


if __name__ == "__main__":
    main()
