"""Errors of the operational store, re-exported from :mod:`sectio.errors` (one tree).

``StoreError`` and its four kinds (``StoreUnavailable``, ``StoreNotMigrated``,
``TraceNotFound``, ``InvalidInput``) are defined, drawn and given their HTTP
status in :mod:`sectio.errors`; this module keeps the store's imports short.
"""

from sectio.errors import (
    InvalidInput,
    StoreError,
    StoreNotMigrated,
    StoreUnavailable,
    TraceNotFound,
    public_message,
)

__all__ = [
    "InvalidInput",
    "StoreError",
    "StoreNotMigrated",
    "StoreUnavailable",
    "TraceNotFound",
    "public_message",
]
