"""The CLI starts light: what each command imports, checked in a fresh interpreter.

``sectio --version`` and ``--help`` import click and sectio's light modules
only; ``sectio info`` and ``sectio search --mode lexical`` never load the
embedding model (neither onnxruntime nor the tokenizer); a hybrid search does.
Each command runs in a subprocess (the test process has everything imported),
which writes the heavy modules it ended up with to a file. Speed itself is
measured by ``benchmarks/startup.py``, not asserted here.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sectio import Sectio, Settings
from tests.helpers import chunk, write_jsonl

#: Modules no start-up path may import (numpy, pydantic: the engine's; the rest: a command's).
HEAVY = (
    "alembic",
    "fastapi",
    "fastembed",
    "numpy",
    "onnxruntime",
    "opentelemetry",
    "pydantic",
    "pydantic_settings",
    "qdrant_client",
    "qdrant_edge",
    "sqlalchemy",
    "starlette",
    "tokenizers",
    "uvicorn",
)
#: The embedding model's runtime: loaded only by a command that embeds.
MODEL = ("fastembed", "onnxruntime", "tokenizers")

_PROBE = """
import json, sys
from sectio.cli import main
rc = main(sys.argv[2:])
loaded = sorted({m.split(".")[0] for m in sys.modules} & set(json.loads(sys.argv[1])))
with open(__import__("os").environ["PROBE_OUT"], "w") as f:
    json.dump({"rc": rc, "loaded": loaded}, f)
"""


def probe(tmp_path: Path, home: Path, *args: str) -> tuple[int, list[str], str]:
    """Run ``sectio ARGS`` in a fresh interpreter: (exit code, heavy modules loaded, stdout)."""
    out = tmp_path / "probe.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SECTIO_")}
    env.update(SECTIO_HOME=str(home), PROBE_OUT=str(out))
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(HEAVY), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.is_file(), proc.stderr
    result = json.loads(out.read_text())
    return int(result["rc"]), list(result["loaded"]), proc.stdout


@pytest.mark.parametrize(
    "args",
    [["--version"], ["--help"], ["search", "--help"], ["eval", "--help"], ["search"]],
    ids=["version", "help", "search-help", "eval-help", "usage-error"],
)
def test_start_up_imports_nothing_heavy(tmp_path: Path, args: list[str]) -> None:
    rc, loaded, _ = probe(tmp_path, tmp_path / "home", *args)
    assert rc == (2 if args == ["search"] else 0)
    assert loaded == []
    assert not (tmp_path / "home").exists()  # nor does it create SECTIO_HOME


def test_version_is_the_installed_distributions(tmp_path: Path) -> None:
    _, _, out = probe(tmp_path, tmp_path / "home", "--version")
    assert out.strip() == f"sectio, version {importlib.metadata.version('sectio')}"


def test_public_names_import_on_first_use() -> None:
    code = (
        "import sys, sectio\n"
        "assert 'sectio.engine' not in sys.modules and 'numpy' not in sys.modules\n"
        "assert sectio.Sectio.__module__ == 'sectio.engine' and 'Sectio' in dir(sectio)\n"
        "from sectio import telemetry, Settings\n"  # a submodule and a name, as before
        "try:\n    sectio.no_such_name\nexcept AttributeError as e:\n    print(e)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "module 'sectio' has no attribute 'no_such_name'"


@pytest.fixture(scope="module")
def minilm_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with one collection embedded by the real model (the default embedder) and a
    migrated operational store (the CLI traces every search)."""
    root = tmp_path_factory.mktemp("startup")
    corpus = write_jsonl(
        root / "c.jsonl",
        [
            chunk("metformin", "warnings", 0, "Lactic acidosis is a rare, serious complication."),
            chunk("aspirin", "warnings", 0, "Aspirin may cause stomach bleeding."),
        ],
    )
    home = root / "home"
    with Sectio(Settings(home=home, embedder="minilm")) as s:
        s.ingest(corpus, collection="labels")
        s.ops.migrate()
    return home


def test_info_loads_no_model(tmp_path: Path, minilm_home: Path) -> None:
    rc, loaded, out = probe(tmp_path, minilm_home, "info")
    assert rc == 0 and "labels: 2 points" in out
    assert not set(MODEL) & set(loaded), loaded
    assert "fastapi" not in loaded and "alembic" not in loaded


def test_lexical_search_loads_no_model_and_hybrid_does(tmp_path: Path, minilm_home: Path) -> None:
    args = ("search", "lactic acidosis", "-c", "labels", "--json")
    rc, loaded, out = probe(tmp_path, minilm_home, *args, "--mode", "lexical")
    assert rc == 0 and json.loads(out)["hits"][0]["doc_id"] == "metformin"
    assert not set(MODEL) & set(loaded), loaded
    assert "sqlalchemy" in loaded and "alembic" not in loaded  # traced; the store is at head
    rc, loaded, out = probe(tmp_path, minilm_home, *args)
    assert rc == 0 and json.loads(out)["hits"][0]["doc_id"] == "metformin"
    assert "onnxruntime" in loaded and "fastembed" not in loaded  # the model runs without it
