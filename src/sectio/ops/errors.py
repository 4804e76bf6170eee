"""Errors of the operational store, re-exported from :mod:`sectio.errors` (one tree).

``StoreError`` and its four kinds (``StoreUnavailable``, ``StoreNotMigrated``,
``TraceNotFound``, ``InvalidInput``) are defined, drawn and given their HTTP
status in :mod:`sectio.errors`; this module keeps the store's imports short.
"""

from sectio.errors import (
    InvalidInput,
    SectioError,
    StoreError,
    StoreNotMigrated,
    StoreUnavailable,
    TraceNotFound,
)


def public_message(exc: SectioError) -> str:
    """What a remote caller (HTTP, MCP) may read of ``exc``: a store's own failure names no
    URL, user, host, port, database or driver message (the server's log has them).

    Example:
        >>> public_message(StoreUnavailable("operational store postgresql://u@h:5432/d down"))
        'operational store unavailable; try again shortly'
    """
    if isinstance(exc, StoreUnavailable):
        return "operational store unavailable; try again shortly"
    if isinstance(exc, StoreNotMigrated):
        return "operational store not migrated; the operator must run `sectio migrate`"
    if isinstance(exc, StoreError) and not isinstance(exc, InvalidInput | TraceNotFound):
        return "operational store error; see the server log"
    return str(exc)


__all__ = [
    "InvalidInput",
    "StoreError",
    "StoreNotMigrated",
    "StoreUnavailable",
    "TraceNotFound",
    "public_message",
]
