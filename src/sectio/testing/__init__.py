"""What a test of sectio, or of a backend written for it, needs: shipped as library code.

* :class:`FakeEmbedder`: deterministic hashed bag-of-words vectors, no model
  (also what ``SECTIO_EMBEDDER=fake`` selects);
* :class:`FakeReranker`: deterministic word overlap, can be told to fail or be
  slow (also what ``SECTIO_RERANK=fake`` selects);
* :mod:`sectio.testing.index_contract`: :class:`IndexContract`, the tests every
  index backend passes (needs pytest; import it from that module);
* :mod:`sectio.testing.corpus`: the synthetic corpus and Python oracle it uses;
* :mod:`sectio.testing.ops`: a throwaway PostgreSQL database, a silent server,
  a closed port, :class:`FakeClock`.

The fakes live with the adapters they stand in for (settings can select them);
this package is where tests import them from. Nothing in sectio imports it.

Example:
    >>> FakeReranker().rerank("kidney dose", ["liver", "kidney dose adjustment"])
    [0.0, 2.0]
"""

from sectio.embed.fake import FakeEmbedder
from sectio.rerank import FakeReranker
from sectio.testing.ops import FakeClock, closed_port, silent_server, throwaway_database

__all__ = [
    "FakeClock",
    "FakeEmbedder",
    "FakeReranker",
    "closed_port",
    "silent_server",
    "throwaway_database",
]
