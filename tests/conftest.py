"""Shared fixtures: real Qdrant Edge on tmp_path, the fake embedder by default.

Tests that judge quality build their own ``Sectio`` with the real MiniLM
(``minilm_sectio``) and are marked ``slow``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

# the index contract suite ships in the package: rewrite its asserts like a test module's
pytest.register_assert_rewrite("sectio.testing")

from sectio import Sectio, Settings  # noqa: E402
from tests.helpers import chunk, write_jsonl  # noqa: E402


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
