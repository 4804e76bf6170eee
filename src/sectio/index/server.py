"""The Qdrant server adapter (also qdrant-client local mode, for tests): the scale-out path.

Chosen by :func:`sectio.index.factory.build_backend` when ``SECTIO_QDRANT_URL``
(a server or cluster; ``SECTIO_QDRANT_API_KEY`` for its key) or
``SECTIO_QDRANT_LOCATION`` (``:memory:`` or a folder: qdrant-client local
mode, pure Python, for tests, never for serving) is set.

* :mod:`sectio.index.server_index`: one collection (the ``VectorIndex``).
* :mod:`sectio.index.server_store`: collections, alias switch, sidecar manifest,
  snapshots (the ``IndexBackend``).

Example:
    >>> from sectio.settings import Settings
    >>> backend = build_server_backend(Settings(qdrant_location=":memory:"))
    >>> backend.kind
    'qdrant-local'
"""

from __future__ import annotations

from sectio.errors import ConfigError
from sectio.index.server_index import SHARED_SHARD_KEY, ServerIndex, Sharding
from sectio.index.server_store import MANIFEST_POINT_ID, ServerBackend, build_client
from sectio.settings import Settings


def build_server_backend(settings: Settings) -> ServerBackend:
    """A :class:`ServerBackend` for ``settings.qdrant_url`` or ``settings.qdrant_location``.

    Raises:
        ConfigError: both or neither are set; custom sharding asked of local mode.
    """
    if bool(settings.qdrant_url) == bool(settings.qdrant_location):
        raise ConfigError("set exactly one of SECTIO_QDRANT_URL and SECTIO_QDRANT_LOCATION")
    local = not settings.qdrant_url
    if local and settings.qdrant_tenant_shards:
        raise ConfigError(
            "SECTIO_QDRANT_TENANT_SHARDS needs a Qdrant server (custom sharding); "
            "qdrant-client local mode has no shard keys"
        )
    api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
    client = build_client(
        url=settings.qdrant_url,
        api_key=api_key,
        location=settings.qdrant_location,
        timeout_s=settings.qdrant_timeout_s,
    )
    return ServerBackend(
        client,
        local=local,
        url=settings.qdrant_url,
        api_key=api_key,
        tenant_shards=tuple(settings.qdrant_tenant_shards),
        shard_number=settings.qdrant_shard_number,
        replication_factor=settings.qdrant_replication_factor,
        timeout_s=float(max(settings.qdrant_timeout_s, 300)),
    )


__all__ = [
    "MANIFEST_POINT_ID",
    "SHARED_SHARD_KEY",
    "ServerBackend",
    "ServerIndex",
    "Sharding",
    "build_server_backend",
]
