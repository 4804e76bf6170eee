"""Real servers for the integration tests: a free loopback port and a subprocess that is ready."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from sectio import Sectio, Settings
from tests.helpers import write_jsonl
from tests.helpers.api import KEYS, label_rows

#: A question per kind of answer on the label corpus (tenant acme).
QUESTIONS = {
    "section": "who should not take aspirin",
    "overview": "aspirin",
    "fallback": "what is the boiling point of mercury",
    "abstain": "quantum chromodynamics lattice",
}


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_label_home(home: Path) -> Path:
    """A SECTIO_HOME with the drug-label rows of tenants acme and globex (fake embedder)."""
    corpus = write_jsonl(home.parent / "labels.jsonl", label_rows("acme") + label_rows("globex"))
    with Sectio(Settings(home=home, embedder="fake")) as s:
        s.ingest(corpus, profile="en_drug_label")
    return home


def server_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a sectio subprocess over ``home``: fake embedder, the test keys."""
    return {
        **os.environ,
        "SECTIO_HOME": str(home),
        "SECTIO_EMBEDDER": "fake",
        "SECTIO_API_KEYS": KEYS,
        **extra,
    }


@contextlib.contextmanager
def running(args: list[str], env: dict[str, str], ready_url: str) -> Iterator[None]:
    """``python -m sectio.cli ARGS`` until the block ends; yields once ``ready_url`` answers
    (any HTTP status below 500, or 503 from a not-yet-ready /readyz is waited out)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sectio.cli", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(300):
            try:
                if httpx.get(ready_url, timeout=1).status_code < 500:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"server exited: {proc.stderr.read() if proc.stderr else ''}")
            time.sleep(0.1)
        else:
            raise RuntimeError(f"{args[0]} did not become ready")
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=20)
