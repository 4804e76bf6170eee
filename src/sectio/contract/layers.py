"""The index layers of a docs collection: the value is each point's ``layer`` field.

Defined in the contract so every layer above can spell a layer by name: ingest
writes them (D0 the doc chunks, D1-D5 the derived records of
:mod:`sectio.ingest.md_layers`), retrieve and the docs planner read them.

Example:
    >>> Layer.D1_DOCUMENT_CATALOG.value, Layer("D0") is Layer.D0_DOC_CHUNKS
    ('D1', True)
"""

from __future__ import annotations

from enum import StrEnum


class Layer(StrEnum):
    """Index layers of a docs collection; the value is the points' ``layer`` field."""

    D0_DOC_CHUNKS = "D0"
    D1_DOCUMENT_CATALOG = "D1"
    D2_FACT_INDEX = "D2"
    D3_ENTITY_CATALOG = "D3"
    D4_WORKFLOW_INDEX = "D4"
    D5_RELATION_GRAPH = "D5"


__all__ = ["Layer"]
