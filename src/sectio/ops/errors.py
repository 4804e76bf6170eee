"""Errors of the operational store (all under :class:`sectio.errors.SectioError`).

The tree::

    SectioError
    └── StoreError              the operational store refused or failed an operation
        ├── StoreUnavailable    cannot connect, or a statement timed out
        ├── StoreNotMigrated    the schema is behind (or ahead of) this sectio: run `sectio migrate`
        ├── TraceNotFound       no such trace for this tenant
        └── InvalidInput        a value the store will not keep (rating, comment length, ids)

Trace writes on the retrieval path never raise these: they are logged and
counted instead (fail-open). Feedback, purge, listing and ``migrate`` raise.
"""

from __future__ import annotations

from sectio.errors import SectioError


class StoreError(SectioError):
    """The operational store refused or failed an operation."""


class StoreUnavailable(StoreError):
    """The database cannot be reached, or a statement ran past its timeout."""


class StoreNotMigrated(StoreError):
    """The database schema does not match this sectio's migrations."""


class TraceNotFound(StoreError):
    """No trace with this id for this tenant (another tenant's trace reads as unknown)."""


class InvalidInput(StoreError):
    """A value the store will not keep: an unknown rating, a comment too long, a bad id."""
