"""The one place that chooses an index backend: from settings, or from a named endpoint.

Endpoints (what ``sectio export --to`` and ``sectio import FROM`` accept):

=======================  ===========================================================
``http(s)://host:6333``  a Qdrant server (the API key: ``SECTIO_QDRANT_API_KEY``)
``local:PATH``           qdrant-client local mode storage at PATH (``local::memory:``)
``edge:PATH`` or ``PATH``  another ``SECTIO_HOME``: its Qdrant Edge store
                         (``PATH/collections``)
=======================  ===========================================================

The server adapter is imported only when a server is chosen: qdrant-client
(with grpc) takes seconds to import, and the embedded default never needs it.

Example:
    >>> parse_endpoint("http://qdrant:6333").kind, parse_endpoint("/srv/home").kind
    ('server', 'edge')
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from sectio.errors import ConfigError
from sectio.index.edge.store import EdgeBackend
from sectio.index.port import IndexBackend
from sectio.settings import Settings

if TYPE_CHECKING:
    from sectio.index.server.store import ServerBackend

EndpointKind = Literal["server", "local", "edge"]


def build_backend(settings: Settings) -> IndexBackend:
    """Qdrant Edge under ``SECTIO_HOME`` unless a Qdrant server or local client is configured.

    Raises:
        ConfigError: more than one of ``SECTIO_QDRANT_URL`` / ``SECTIO_QDRANT_LOCATION`` is
            set, or custom sharding is asked of local mode.
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
        return server_backend(settings)
    return EdgeBackend(settings.collections_dir, check_space=settings.space_check)


def server_backend(settings: Settings) -> ServerBackend:
    """A server backend for ``settings.qdrant_url`` or ``settings.qdrant_location``.

    Raises:
        ConfigError: both or neither are set; custom sharding asked of local mode.
    """
    # imported here, not at the top: see the module docstring (import time, not a cycle)
    from sectio.index.server.client import build_client
    from sectio.index.server.store import ServerBackend

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
        lock_root=server_lock_root(settings),
    )


def server_lock_root(settings: Settings) -> Path | None:
    """Where writes to the configured server (or local-mode folder) take their locks:
    ``SECTIO_HOME/locks/qdrant/<endpoint>-<hash>``; None for ``:memory:``."""
    endpoint = settings.qdrant_url or settings.qdrant_location or ""
    if not endpoint or endpoint == ":memory:":
        return None
    if not settings.qdrant_url:
        endpoint = str(Path(endpoint).expanduser().absolute())
    slug = re.sub(r"[^A-Za-z0-9.]+", "_", endpoint).strip("_")[-60:]
    digest = hashlib.sha256(endpoint.encode()).hexdigest()[:12]
    return settings.home / "locks" / "qdrant" / f"{slug}-{digest}"


@dataclass(frozen=True)
class Endpoint:
    """Where a copy reads or writes: a server URL, a local-mode location or an edge home."""

    kind: EndpointKind
    target: str

    def __str__(self) -> str:
        return self.target if self.kind == "server" else f"{self.kind}:{self.target}"


def parse_endpoint(text: str) -> Endpoint:
    """Parse ``http(s)://...``, ``local:PATH``, ``edge:PATH`` or a plain path.

    Raises:
        ConfigError: empty, or a path that is a file (a snapshot file is ``sectio restore``'s).
    """
    text = text.strip()
    if not text:
        raise ConfigError("empty endpoint: give http(s)://host:port, local:PATH or a SECTIO_HOME")
    if text.startswith(("http://", "https://")):
        return Endpoint("server", text.rstrip("/"))
    if text.startswith("local:"):
        location = text[len("local:") :]
        if not location:
            raise ConfigError("local: needs a folder (or :memory:)")
        return Endpoint("local", location)
    path = text[len("edge:") :] if text.startswith("edge:") else text
    if Path(path).is_file():
        raise ConfigError(f"{path} is a file; restore a snapshot file with `sectio restore`")
    return Endpoint("edge", str(Path(path).expanduser()))


def backend_for(endpoint: Endpoint, settings: Settings) -> IndexBackend:
    """The backend behind ``endpoint`` (server options and API key from ``settings``)."""
    if endpoint.kind == "edge":
        return EdgeBackend(Path(endpoint.target) / "collections", check_space=settings.space_check)
    update: dict[str, object] = {"qdrant_url": None, "qdrant_location": None}
    update["qdrant_url" if endpoint.kind == "server" else "qdrant_location"] = endpoint.target
    return server_backend(settings.model_copy(update=update))


@contextmanager
def opened(endpoint: Endpoint, settings: Settings) -> Iterator[IndexBackend]:
    """:func:`backend_for`, closed afterwards (local mode holds a lock on its folder)."""
    backend = backend_for(endpoint, settings)
    try:
        yield backend
    finally:
        close = getattr(backend, "close", None)
        if callable(close):
            close()
