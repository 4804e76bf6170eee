"""The index contract, run against every adapter: Qdrant Edge and qdrant-client local mode.

One fixture per adapter; the tests themselves ship in the package
(:mod:`sectio.testing.index_contract`), for anyone who writes a backend.
Local mode stands in for a Qdrant server here (none can be installed on these
machines): it runs the server adapter's code through the same client API.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from sectio.index.edge.store import EdgeBackend
from sectio.index.port import IndexBackend
from sectio.index.server.store import ServerBackend
from sectio.testing.index_contract import IndexContract


class TestEdgeContract(IndexContract):
    @pytest.fixture(scope="class")
    @classmethod
    def make_backend(cls) -> Callable[[Path], IndexBackend]:
        return lambda folder: EdgeBackend(folder / "collections")


class TestQdrantLocalContract(IndexContract):
    @pytest.fixture(scope="class")
    @classmethod
    def make_backend(cls) -> Callable[[Path], IndexBackend]:
        return lambda folder: ServerBackend(QdrantClient(":memory:"), local=True)
