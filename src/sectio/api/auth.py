"""API keys -> tenants. Keys are held hashed and compared in constant time.

``SECTIO_API_KEYS`` is a comma-separated list of ``key:tenant`` pairs;
``SECTIO_API_KEYS_FILE`` names a file with one ``key:tenant`` a line (``#``
comments allowed). A ``key:tenant:admin`` entry is an **admin key**: it also
writes its tenant's documents (``/v1/admin/...``); a plain ``key:tenant`` (or
``key:tenant:read``) only reads, and a write with it is refused (403). An admin
key writes only its own tenant. With no keys configured the service serves
tenant ``default`` (and ``sectio serve`` refuses to bind beyond loopback); its
admin endpoints then answer loopback clients only.

A key holding ``:`` is read from the right: ``a:b:acme`` is key ``a:b`` of tenant
``acme``, and ``a:acme:admin`` is always an admin key (name a tenant ``admin``
with ``key:admin:read``).

Example:
    >>> ring = KeyRing.parse("k1:acme, k2:globex, k3:globex:admin")
    >>> ring.tenant_for("k2"), ring.tenant_for("nope")
    ('globex', None)
    >>> ring.grant_for("k2"), ring.grant_for("k3")
    (Grant(tenant='globex', admin=False), Grant(tenant='globex', admin=True))
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from pathlib import Path

from sectio.errors import ConfigError
from sectio.settings import Settings


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


#: The role suffixes of a key entry (``key:tenant:admin``, ``key:tenant:read``).
ROLES = ("admin", "read")


@dataclass(frozen=True)
class Grant:
    """What a key may do: read ``tenant``, and write it too when ``admin``."""

    tenant: str
    admin: bool = False


def _split_entry(item: str, origin: str) -> tuple[str, Grant]:
    """``key:tenant[:admin|:read]`` -> (key, grant).

    Raises:
        ConfigError: an entry without both a key and a tenant.
    """
    head, sep, last = item.rpartition(":")
    admin = False
    if sep and last.strip() in ROLES and ":" in head:
        admin = last.strip() == "admin"
        head, sep, last = head.rpartition(":")
    key, tenant = head.strip(), last.strip()
    if not sep or not key or not tenant:
        raise ConfigError(
            f"{origin}: expected key:tenant (or key:tenant:admin), got an entry without both parts"
        )
    return key, Grant(tenant, admin)


class KeyRing:
    """The configured keys (as sha256 digests) and their grants."""

    def __init__(self, entries: list[tuple[bytes, str]], admins: set[bytes] | None = None) -> None:
        self._entries = entries
        self._admins: set[bytes] = set(admins or ())

    @property
    def enabled(self) -> bool:
        """Whether any key is configured (auth required)."""
        return bool(self._entries)

    @classmethod
    def parse(cls, text: str, origin: str = "SECTIO_API_KEYS") -> KeyRing:
        """Parse ``key:tenant`` (or ``key:tenant:admin``) entries separated by commas or
        newlines.

        Raises:
            ConfigError: a pair without ``:``, an empty key or tenant, a key given twice.
        """
        entries: list[tuple[bytes, str]] = []
        admins: set[bytes] = set()
        for raw in text.replace("\n", ",").split(","):
            item = raw.strip()
            if not item or item.startswith("#"):
                continue
            key, grant = _split_entry(item, origin)
            digest = _digest(key)
            if any(d == digest for d, _ in entries):
                raise ConfigError(f"{origin}: a key is listed twice")
            entries.append((digest, grant.tenant))
            if grant.admin:
                admins.add(digest)
        return cls(entries, admins)

    @classmethod
    def from_settings(cls, settings: Settings) -> KeyRing:
        """Keys from ``SECTIO_API_KEYS`` and ``SECTIO_API_KEYS_FILE`` (both may be set)."""
        ring = cls([])
        if settings.api_keys is not None:
            ring._merge(cls.parse(settings.api_keys.get_secret_value()))
        if settings.api_keys_file is not None:
            path = Path(settings.api_keys_file)
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise ConfigError(f"SECTIO_API_KEYS_FILE {path}: {exc.strerror}") from exc
            ring._merge(cls.parse(text, origin=str(path)))
        digests = [d for d, _ in ring._entries]
        if len(set(digests)) != len(digests):
            raise ConfigError("a key is listed twice across SECTIO_API_KEYS and its file")
        return ring

    def _merge(self, other: KeyRing) -> None:
        self._entries += other._entries
        self._admins |= other._admins

    def grant_for_header(self, authorization: str | None) -> Grant | None:
        """The grant of an ``Authorization`` header's ``Bearer <key>``, or None."""
        scheme, _, token = (authorization or "").partition(" ")
        return self.grant_for(token.strip()) if scheme.lower() == "bearer" else None

    def grant_for(self, presented: str | None) -> Grant | None:
        """The tenant and role of ``presented``, or None (constant time, as
        :meth:`tenant_for`)."""
        tenant = self.tenant_for(presented)
        if tenant is None or presented is None:
            return None
        return Grant(tenant, _digest(presented) in self._admins)

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
