"""The one place that chooses the index backend from settings."""

from __future__ import annotations

from sectio.errors import ConfigError
from sectio.index.edge_store import EdgeBackend
from sectio.index.port import IndexBackend
from sectio.settings import Settings


def build_backend(settings: Settings) -> IndexBackend:
    """Qdrant Edge under ``SECTIO_HOME`` unless a Qdrant server or local client is configured.

    Raises:
        ConfigError: more than one of ``SECTIO_QDRANT_URL`` / ``SECTIO_QDRANT_LOCATION`` is set.
    """
    chosen = [
        n
        for n, v in (
            ("qdrant_url", settings.qdrant_url),
            ("qdrant_location", settings.qdrant_location),
        )
        if v
    ]
    if len(chosen) > 1:
        raise ConfigError(
            "set only one of SECTIO_QDRANT_URL and SECTIO_QDRANT_LOCATION "
            "(neither selects the embedded Qdrant Edge)"
        )
    if chosen:
        try:
            from sectio.index.server import build_server_backend
        except ImportError as exc:
            raise ConfigError("the Qdrant server adapter is not available in this build") from exc
        return build_server_backend(settings)
    return EdgeBackend(settings.collections_dir)
