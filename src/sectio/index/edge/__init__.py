"""The Qdrant Edge backend (embedded, the default): :mod:`.index` (one shard, the
``VectorIndex``) and :mod:`.store` (collections under ``SECTIO_HOME``: versions,
manifests, snapshots; the ``IndexBackend``)."""

from sectio.index.edge.index import EdgeIndex
from sectio.index.edge.store import EdgeBackend

__all__ = ["EdgeBackend", "EdgeIndex"]
