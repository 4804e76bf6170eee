"""What a caller asks: the question and its optional overrides (one model for every front door).

``turn_type`` values are defined here once; the CLI's choices, the HTTP model
and the router read :data:`TURN_TYPES` (and :data:`SEARCH_MODES`, the search
modes). The module imports nothing heavy: the CLI reads it at start-up.

Example:
    >>> AskRequest.of("  who should not take metformin ").question
    'who should not take metformin'
    >>> AskRequest.of("x", top_k=80).keep(6)
    50
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from sectio.errors import ConfigError

#: Kinds of turn a caller may force (``drug_overview`` is the seed's name for ``overview``).
TurnType = Literal["overview", "drug_overview", "section", "free_form", "lookup"]
TURN_TYPES: tuple[str, ...] = get_args(TurnType)
#: Turn types that ask for the overview route.
OVERVIEW_TURNS = frozenset({"overview", "drug_overview"})
#: The most evidence a ranked route keeps, whatever ``top_k`` asks.
TOP_K_MAX = 50
#: Search modes (``sectio search --mode``, the HTTP ``mode``): fused, dense only, BM25 only.
SearchMode = Literal["hybrid", "dense", "lexical"]
SEARCH_MODES: tuple[str, ...] = get_args(SearchMode)


@dataclass(frozen=True)
class AskRequest:
    """A question and what the caller forces.

    Attributes:
        question: the question, stripped (never empty).
        doc_id: force the document (overrides the resolver).
        section_key: force the section (overrides phrases; its absence is the answer).
        turn_type: one of :data:`TURN_TYPES`, or None.
        top_k: evidence a ranked route keeps (clamped to [1, 50]; None: the policy's).
        context_doc_id: the document of the conversation's previous turn: the
            subject when this question names none (a follow-up, "and its side
            effects?"); a question naming a document switches to it.
    """

    question: str
    doc_id: str | None = None
    section_key: str | None = None
    turn_type: str | None = None
    top_k: int | None = None
    context_doc_id: str | None = None

    @classmethod
    def of(
        cls,
        question: str,
        *,
        doc_id: str | None = None,
        section_key: str | None = None,
        turn_type: str | None = None,
        top_k: int | None = None,
        context_doc_id: str | None = None,
        empty: str = "the question is empty",
    ) -> AskRequest:
        """A validated request.

        Raises:
            ConfigError: an empty question (message ``empty``) or an unknown ``turn_type``.
        """
        text = question.strip()
        if not text:
            raise ConfigError(empty)
        if turn_type is not None and turn_type not in TURN_TYPES:
            raise ConfigError(f"unknown turn_type {turn_type!r} ({', '.join(TURN_TYPES)})")
        return cls(
            text, doc_id or None, section_key or None, turn_type, top_k, context_doc_id or None
        )

    @property
    def overview(self) -> bool:
        """The caller asked for an overview."""
        return self.turn_type in OVERVIEW_TURNS

    @property
    def free_form(self) -> bool:
        """The caller asked for a free-form answer (section phrases do not route)."""
        return self.turn_type == "free_form"

    def keep(self, default: int) -> int:
        """Evidence a ranked route keeps: ``top_k`` (or ``default``) clamped to [1, 50]."""
        return min(max(self.top_k or default, 1), TOP_K_MAX)
