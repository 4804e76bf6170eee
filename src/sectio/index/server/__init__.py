"""The Qdrant server backend (also qdrant-client local mode, for tests): the scale-out path.

Chosen by :func:`sectio.index.factory.build_backend` when ``SECTIO_QDRANT_URL``
(a server or cluster; ``SECTIO_QDRANT_API_KEY`` for its key) or
``SECTIO_QDRANT_LOCATION`` (``:memory:`` or a folder: qdrant-client local
mode, pure Python, for tests, never for serving) is set.

* :mod:`.client`: the qdrant-client, and its errors as one-line ``IndexError_``;
* :mod:`.index`: one collection (the ``VectorIndex``), tenant shard keys;
* :mod:`.store`: collections, alias switch, sidecar manifest (the ``IndexBackend``);
* :mod:`.snapshot`: the server snapshot file.

Example:
    >>> from qdrant_client import QdrantClient
    >>> ServerBackend(QdrantClient(":memory:"), local=True).kind
    'qdrant-local'
"""

from sectio.index.server.index import SHARED_SHARD_KEY, ServerIndex, Sharding
from sectio.index.server.store import MANIFEST_POINT_ID, ServerBackend

__all__ = [
    "MANIFEST_POINT_ID",
    "SHARED_SHARD_KEY",
    "ServerBackend",
    "ServerIndex",
    "Sharding",
]
