"""The README's examples run as written: the "From Python" block and the HTTP block.

The blocks are read from README.md, not copied here, so an edit that breaks
one fails this test. The fake embedder stands in for MiniLM (routing is what
these examples show; quality is measured elsewhere) and the HTTP block gets a
free port instead of 8000 (other processes may hold it).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_block(heading: str, lang: str) -> str:
    """The first ``lang`` fenced block after the line ``heading`` in README.md."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    match = re.compile(rf"```{lang}\n(.*?)```", re.S).search(text, start)
    assert match is not None, f"no {lang} block after {heading!r}"
    return match.group(1)


def commands(block: str) -> list[str]:
    """Shell command lines of ``block``, backslash continuations joined."""
    return [c.strip() for c in block.replace("\\\n", " ").splitlines() if c.strip()]


def user_env(tmp_path: Path) -> dict[str, str]:
    """A user's shell: ``sectio`` on PATH (the venv's bin), the fake embedder, no home set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SECTIO_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["SECTIO_EMBEDDER"] = "fake"
    env["HOME"] = str(tmp_path)
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_from_python_block_runs_as_written(tmp_path: Path) -> None:
    code = readme_block("### From Python", "python")
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=user_env(tmp_path),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "ANSWERABLE section contraindications"
    assert lines[1].startswith("0 ") and lines[1].endswith("https://open.fda.gov/apis/drug/label/")
    assert len(lines) >= 5
    assert (tmp_path / ".sectio" / "collections").is_dir()  # Settings(home=".sectio")
    assert not (tmp_path / ".sectio" / "sectio.sqlite3").exists()  # no traces by default


def test_http_block_runs_as_written(tmp_path: Path) -> None:
    """``sectio demo``, ``sectio serve ... &``, then the curl line: an ANSWERABLE answer."""
    port = free_port()
    lines = commands(
        readme_block("### HTTP service (`sectio serve`)", "bash").replace("8000", str(port))
    )
    assert [line.split()[0] for line in lines][-1] == "curl"
    env = user_env(tmp_path)
    server: subprocess.Popen[str] | None = None
    outputs: list[str] = []
    try:
        for line in lines:
            if line.endswith("&"):  # the server, in the background
                server = subprocess.Popen(
                    ["bash", "-c", line.removesuffix("&")],
                    cwd=tmp_path,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                    start_new_session=True,
                )
                wait_ready(f"http://127.0.0.1:{port}", server)
                continue
            proc = subprocess.run(
                ["bash", "-c", line],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert proc.returncode == 0, (line, proc.stderr)
            outputs.append(proc.stdout)
    finally:
        if server is not None:  # bash and the server it started: one process group
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    answer = json.loads(outputs[-1])
    assert answer["decision"] == "ANSWERABLE", answer
    assert (answer["resolved_doc_id"], answer["tenant"]) == ("metformin", "default")
    assert answer["resolved_section_key"] == "contraindications"


def wait_ready(url: str, server: subprocess.Popen[str]) -> None:
    for _ in range(600):
        try:
            if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if server.poll() is not None:
            pytest.fail(f"server exited: {server.stderr.read() if server.stderr else ''}")
        time.sleep(0.1)
    pytest.fail("server did not become ready")
