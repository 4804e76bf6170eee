"""Point ids: uuid5 of the chunk id under a fixed project namespace.

Derived, never random, so a re-load converges instead of doubling. The
namespace is a constant of the project, not a tunable: changing it re-ids
every corpus and orphans every loaded point.

Example:
    >>> point_id_for("metformin#indications_and_usage#0")
    '58420271-f4b3-5202-bf4a-69fff8e8dea7'
"""

from __future__ import annotations

import uuid

POINT_NAMESPACE = uuid.UUID("6f0d6d1e-4c2a-5f6b-9a3d-2f8e1c7b4a90")


def point_id_for(chunk_id: str) -> str:
    """The point id of a chunk: ``uuid5(POINT_NAMESPACE, chunk_id)`` as a string."""
    return str(uuid.uuid5(POINT_NAMESPACE, chunk_id))
