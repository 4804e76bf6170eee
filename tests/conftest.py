"""Shared fixtures: real Qdrant Edge on tmp_path, the fake embedder by default.

Tests that judge quality build their own ``Sectio`` with the real MiniLM
(``minilm_sectio``) and are marked ``slow``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sectio import Sectio, Settings

SHARED = Path(__file__).resolve().parents[2] / "shared"
if not SHARED.is_dir():  # CI clones into a sibling folder of shared/
    SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DATA = SHARED / "data"


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write ``rows`` as JSON Lines and return ``path``."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def chunk(doc: str, section: str, part: int, text: str, **extra: Any) -> dict[str, Any]:
    """A valid chunk record with provenance."""
    row: dict[str, Any] = {
        "chunk_id": f"{doc}#{section}#{part}",
        "doc_id": doc,
        "section_key": section,
        "part_index": part,
        "text": text,
        "source_refs": [{"source": "test"}],
    }
    row.update(extra)
    return row


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings with SECTIO_HOME on tmp_path and the deterministic fake embedder."""
    return Settings(home=tmp_path / "home", embedder="fake")


@pytest.fixture
def sectio(settings: Settings) -> Iterator[Sectio]:
    """A Sectio over real Qdrant Edge in tmp_path with the fake embedder."""
    s = Sectio(settings)
    yield s
    s.close()


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    """Two documents, a few sections, parts in order."""
    rows = [
        chunk(
            "aspirin",
            "indications",
            0,
            "Aspirin relieves pain and reduces fever.",
            doc_title="Aspirin",
        ),
        chunk(
            "aspirin",
            "indications",
            1,
            "It also lowers the risk of heart attack.",
            doc_title="Aspirin",
        ),
        chunk("aspirin", "warnings", 0, "Aspirin may cause stomach bleeding.", doc_title="Aspirin"),
        chunk(
            "metformin",
            "indications",
            0,
            "Metformin treats type 2 diabetes.",
            doc_title="Metformin",
        ),
        chunk(
            "metformin",
            "warnings",
            0,
            "Lactic acidosis is a rare risk of metformin.",
            doc_title="Metformin",
        ),
    ]
    return write_jsonl(tmp_path / "corpus.jsonl", rows)


@pytest.fixture(scope="session")
def minilm_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One SECTIO_HOME per session for real-model tests (shares the embedding cache)."""
    return tmp_path_factory.mktemp("minilm-home")


@pytest.fixture
def minilm_sectio(minilm_home: Path) -> Iterator[Sectio]:
    """A Sectio with the real bundled MiniLM."""
    s = Sectio(Settings(home=minilm_home, embedder="minilm"))
    yield s
    s.close()
