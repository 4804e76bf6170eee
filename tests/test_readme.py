"""Every shell and Python block of README.md and docs/quickstart.md runs as written
(and those of the corpus guides, in a shell set up as the quickstart leaves it).

The blocks are read from the pages, not copied here, so an edit that breaks one
fails this test. Each page runs as one shell session, its blocks in order
(a Python block through ``python`` on the PATH the page's own lines set), in a
fresh clone: the repository's ``Makefile``, ``pyproject.toml`` and ``src/``
beside a ``.venv`` whose install stamps are fresh (``make demo`` then runs its
demo without reinstalling; the install itself is measured by
``benchmarks/install.py``), a fresh ``HOME``, no ``SECTIO_*`` variable and no
venv on ``PATH`` (as a user's shell is). Two things differ from a user's run:
the fake embedder stands in for MiniLM (routing is what the pages show; quality
is measured in benchmarks/), and port 8000 becomes a free port. One line is
not run: ``make test``, which is this suite.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "docs" / "quickstart.md"]
#: Guides whose blocks assume the quickstart's shell (the venv on PATH, a home set).
GUIDES = [ROOT / "docs" / "guides" / "chunk-files.md", ROOT / "docs" / "guides" / "markdown.md"]
QUICKSTART_SHELL = 'export PATH="$PWD/.venv/bin:$PATH"\nexport SECTIO_HOME="$PWD/.sectio"\n'
#: Lines of the pages that are not run, and why.
NOT_RUN = {"make test": "the test suite itself"}


def page_blocks(page: Path) -> list[tuple[str, str]]:
    """``(language, code)`` of each ```bash and ```python block of ``page``, in order."""
    text = page.read_text(encoding="utf-8")
    return [
        (lang, code)
        for lang, code in re.findall(r"^```(\w*)\n(.*?)^```", text, re.S | re.M)
        if lang in ("bash", "python")
    ]


def session_script(blocks: list[tuple[str, str]], port: int, prelude: str = "") -> str:
    """The page as one ``bash -e`` session: shell blocks verbatim, Python blocks as heredocs."""
    parts = ["set -e", prelude]
    for lang, code in blocks:
        if lang == "python":
            parts.append(f"python - <<'SECTIO_PAGE_PY'\n{code}SECTIO_PAGE_PY")
            continue
        kept = [line for line in code.splitlines() if line.split("#", 1)[0].strip() not in NOT_RUN]
        parts.append("\n".join(kept).replace("8000", str(port)))
    return "\n".join(parts) + "\n"


def fresh_clone(dest: Path) -> Path:
    """A clone's layout in ``dest``, with a ``.venv`` that is this venv, stamps fresh."""
    dest.mkdir()
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy2(ROOT / name, dest / name)
    (dest / "src").symlink_to(ROOT / "src")
    real = Path(sys.prefix).resolve()
    venv = dest / ".venv"
    (venv / "bin").mkdir(parents=True)
    shutil.copy2(real / "pyvenv.cfg", venv / "pyvenv.cfg")
    for entry in ("lib", "lib64", "include"):
        if (real / entry).exists():
            (venv / entry).symlink_to(real / entry)
    for exe in (real / "bin").iterdir():
        (venv / "bin" / exe.name).symlink_to(exe)
    for stamp in (".installed", ".installed-demo"):  # what `make demo` installs is there
        (venv / stamp).touch()
    return dest


def user_env(home: Path) -> dict[str, str]:
    """A user's fresh shell: no SECTIO_* variable, no venv on PATH; the fake embedder."""
    venv_bins = {str(Path(sys.executable).parent), str(Path(sys.prefix).resolve() / "bin")}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SECTIO_", "VIRTUAL_ENV"))}
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p not in venv_bins]
    env["PATH"] = os.pathsep.join(path)
    env["HOME"] = str(home)
    env["SECTIO_EMBEDDER"] = "fake"
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_page(page: Path, tmp_path: Path, prelude: str = "") -> tuple[Path, str]:
    """Run ``page`` in a fresh clone; its folder and stdout. Fails on a non-zero exit."""
    clone = fresh_clone(tmp_path / "clone")
    script = session_script(page_blocks(page), free_port(), prelude)
    proc = subprocess.Popen(
        ["bash", "-c", script],
        cwd=clone,
        env=user_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a server it leaves behind is killed with its group
    )
    try:
        out, err = proc.communicate(timeout=600)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, f"{page.name}: exit {proc.returncode}\n{err[-4000:]}"
    return clone, out


def json_answers(out: str) -> list[dict[str, Any]]:
    """Every JSON object in ``out`` that is a retrieval answer (curl prints no newline)."""
    decoder = json.JSONDecoder()
    found = []
    for match in re.finditer(r"\{\"", out):
        with contextlib.suppress(json.JSONDecodeError):
            value, _ = decoder.raw_decode(out, match.start())
            if isinstance(value, dict) and "decision" in value:
                found.append(value)
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_block_of_the_page_runs_as_written(page: Path, tmp_path: Path) -> None:
    blocks = page_blocks(page)
    assert {lang for lang, _ in blocks} == {"bash", "python"}
    clone, out = run_page(page, tmp_path)
    # make demo loaded its home; the tour's own collections and snapshot are there
    assert (clone / ".sectio-demo" / "collections").is_dir()
    assert (clone / "labels.tar").is_file()
    # the HTTP block: the curl line's answer
    answers = json_answers(out)
    assert answers, out[-2000:]
    answer = answers[-1]
    assert answer["decision"] == "ANSWERABLE", answer
    assert (answer["resolved_doc_id"], answer["tenant"]) == ("metformin", "default")
    assert answer["resolved_section_key"] == "contraindications"
    # the Python block: what the page says it prints
    assert "ANSWERABLE section contraindications" in out.splitlines()
    assert "https://open.fda.gov/apis/drug/label/" in out
    assert (clone / ".sectio" / "collections").is_dir()  # Settings(home=".sectio")
    assert not (clone / ".sectio" / "sectio.sqlite3").exists()  # no traces by default


@pytest.mark.parametrize("page", GUIDES, ids=lambda p: p.name)
def test_the_corpus_guides_run_as_written(page: Path, tmp_path: Path) -> None:
    assert page_blocks(page)
    clone, _ = run_page(page, tmp_path, QUICKSTART_SHELL)
    loaded = {"chunk-files.md": "notes", "markdown.md": "handbook"}[page.name]
    assert (clone / ".sectio" / "collections" / loaded).is_dir()


def test_the_page_blocks_are_what_the_test_runs() -> None:
    """The set-up block keeps its two commands; only ``make test`` is left out."""
    readme = page_blocks(PAGES[0])
    assert readme[0][0] == "bash"
    assert [line.split("#")[0].strip() for line in readme[0][1].splitlines()] == [
        "make demo",
        "make test",
    ]
    script = session_script(readme, 1234)
    assert "make demo" in script and "make test" not in script
    assert "8000" not in script and "--port 1234" in script
