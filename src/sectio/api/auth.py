"""API keys -> tenants. Keys are held hashed and compared in constant time.

``SECTIO_API_KEYS`` is a comma-separated list of ``key:tenant`` pairs;
``SECTIO_API_KEYS_FILE`` names a file with one ``key:tenant`` a line (``#``
comments allowed). With no keys configured the service serves tenant
``default`` (and ``sectio serve`` refuses to bind beyond loopback).

Example:
    >>> ring = KeyRing.parse("k1:acme, k2:globex")
    >>> ring.tenant_for("k2"), ring.tenant_for("nope")
    ('globex', None)
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

from sectio.errors import ConfigError
from sectio.settings import Settings


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


class KeyRing:
    """The configured keys (as sha256 digests) and their tenants."""

    def __init__(self, entries: list[tuple[bytes, str]]) -> None:
        self._entries = entries

    @property
    def enabled(self) -> bool:
        """Whether any key is configured (auth required)."""
        return bool(self._entries)

    @classmethod
    def parse(cls, text: str, origin: str = "SECTIO_API_KEYS") -> KeyRing:
        """Parse ``key:tenant`` pairs separated by commas or newlines.

        Raises:
            ConfigError: a pair without ``:``, an empty key or tenant, a key given twice.
        """
        entries: list[tuple[bytes, str]] = []
        seen: set[bytes] = set()
        for raw in text.replace("\n", ",").split(","):
            item = raw.strip()
            if not item or item.startswith("#"):
                continue
            key, sep, tenant = item.rpartition(":")
            key, tenant = key.strip(), tenant.strip()
            if not sep or not key or not tenant:
                raise ConfigError(f"{origin}: expected key:tenant, got an entry without both parts")
            digest = _digest(key)
            if digest in seen:
                raise ConfigError(f"{origin}: a key is listed twice")
            seen.add(digest)
            entries.append((digest, tenant))
        return cls(entries)

    @classmethod
    def from_settings(cls, settings: Settings) -> KeyRing:
        """Keys from ``SECTIO_API_KEYS`` and ``SECTIO_API_KEYS_FILE`` (both may be set)."""
        ring = cls([])
        if settings.api_keys is not None:
            ring._entries += cls.parse(settings.api_keys.get_secret_value())._entries
        if settings.api_keys_file is not None:
            path = Path(settings.api_keys_file)
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise ConfigError(f"SECTIO_API_KEYS_FILE {path}: {exc.strerror}") from exc
            ring._entries += cls.parse(text, origin=str(path))._entries
        digests = [d for d, _ in ring._entries]
        if len(set(digests)) != len(digests):
            raise ConfigError("a key is listed twice across SECTIO_API_KEYS and its file")
        return ring

    def tenant_for_header(self, authorization: str | None) -> str | None:
        """The tenant of an ``Authorization`` header's ``Bearer <key>``, or None."""
        scheme, _, token = (authorization or "").partition(" ")
        return self.tenant_for(token.strip()) if scheme.lower() == "bearer" else None

    def tenant_for(self, presented: str | None) -> str | None:
        """The tenant of ``presented``, or None. Every entry is compared (constant time)."""
        if presented is None:
            return None
        digest = _digest(presented)
        found: str | None = None
        for stored, tenant in self._entries:
            if hmac.compare_digest(stored, digest):
                found = tenant
        return found
