"""The Qdrant Edge backend (embedded, the default): :mod:`.index` (one shard, the
``VectorIndex``) and :mod:`.store` (collections under ``SECTIO_HOME``: versions,
manifests, snapshots; the ``IndexBackend``).

Names are imported on first use (:mod:`sectio._lazy`): the store reads manifests
and recorded counts (:mod:`.tally`) without loading Qdrant Edge or numpy.
"""

from typing import TYPE_CHECKING

from sectio._lazy import exports

if TYPE_CHECKING:
    from sectio.index.edge.index import EdgeIndex
    from sectio.index.edge.store import EdgeBackend

__getattr__, __dir__ = exports(
    __name__,
    {"EdgeBackend": "sectio.index.edge.store", "EdgeIndex": "sectio.index.edge.index"},
)

__all__ = ["EdgeBackend", "EdgeIndex"]
