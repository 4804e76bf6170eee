"""The planner's data: intents, anchors, the route, signals, layers and the retrieval plan.

Example:
    >>> route = DocsIntent(question="where is sync-waves.md?", intent=Intent.DOCS_LOOKUP,
    ...               subintent=Subintent.FIND_FILES,
    ...               anchors=Anchors(file_names=("sync-waves.md",)))
    >>> route.anchors.file_names
    ('sync-waves.md',)
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sectio.contract.layers import Layer


class Intent(StrEnum):
    """What kind of question it is."""

    GENERAL_QA = "GENERAL_QA"
    DOCS_SUMMARY = "DOCS_SUMMARY"
    DOCS_LOOKUP = "DOCS_LOOKUP"


class Subintent(StrEnum):
    """A finer reading of the question (``FIND_FILES`` changes the plan's branch)."""

    FIND_FILES = "FIND_FILES"
    OVERVIEW = "OVERVIEW"
    SUMMARIZE = "SUMMARIZE"
    EXPLAIN = "EXPLAIN"
    HOW_TO = "HOW_TO"
    TROUBLESHOOT = "TROUBLESHOOT"
    REFERENCE = "REFERENCE"
    LOOKUP = "LOOKUP"


class Signal(StrEnum):
    """Anchor signals that pick the summary profile and the path preferences."""

    FIND_FILES = "FIND_FILES"
    API_ENDPOINT = "API_ENDPOINT"
    ARCHITECTURE = "ARCHITECTURE"
    LOGIC_FLOW = "LOGIC_FLOW"
    DOMAIN_ENTITY = "DOMAIN_ENTITY"


class PlanProfile(StrEnum):
    """The plan profiles (each fixes layers and limit)."""

    GENERAL_QA = "general_qa_grounded_summary"
    FILE_LOOKUP = "file_lookup"
    SUMMARY_API_ENDPOINT = "docs_summary_api_endpoint"
    SUMMARY_LOGIC_FLOW = "docs_summary_logic_flow"
    SUMMARY_DOMAIN_ENTITY = "docs_summary_domain_entity"
    SUMMARY_ARCHITECTURE = "docs_summary_architecture"
    SUMMARY_GENERIC = "docs_summary_generic"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Anchors(_Frozen):
    """What the question names, found in its text and in the collection's catalogs."""

    entity_names: tuple[str, ...] = ()
    file_names: tuple[str, ...] = ()
    endpoint_paths: tuple[str, ...] = ()
    target_doc_hints: tuple[str, ...] = ()
    matched_aliases: tuple[str, ...] = ()
    process_domain: str | None = None
    process_subdomain: str | None = None


class DocsIntent(_Frozen):
    """The router's reading of a question. ``notes`` says which rule produced what."""

    question: str
    intent: Intent
    subintent: Subintent
    anchors: Anchors = Field(default_factory=Anchors)
    target_terms: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


#: The former name of :class:`DocsIntent` (it collided with the pipeline's route protocol).
Route = DocsIntent


class RetrievalPlan(_Frozen):
    """One retrieval plan: profile, layers (in priority order), row limit and filters.

    ``filters`` keys: hard ``path_prefixes``, ``metadata.domain``,
    ``metadata.subdomain`` (and ``exclude_path_prefixes``,
    ``exclude_like_patterns`` when a profile sets them); soft
    ``prefer_path_prefixes``, ``prefer_like_patterns`` (SQL-like ``%term%``),
    ``prefer_non_tests``; and ``target_doc_hints`` for exact-path seeding.
    """

    profile: PlanProfile
    layers: tuple[Layer, ...]
    limit: int = Field(ge=1)
    filters: dict[str, Any] = Field(default_factory=dict)


__all__ = [
    "Anchors",
    "DocsIntent",
    "Intent",
    "Layer",
    "PlanProfile",
    "RetrievalPlan",
    "Route",
    "Signal",
    "Subintent",
]
