"""Overview route: a bare document name gets the profile's intro sections, in book order.

Only the intro sections (``intro = true`` in the profile; every section when a
profile marks none) of the document's prose chunks, ordered by the profile's
section order, then ``part_index``. The first chunk of each section opens with
the document's display name in a marker (``【Metformin】 ...``) so a reader
(or a generator) sees which document each part belongs to. Without the intro
split a bare name sends the whole document as evidence: wrong retrieval, and
long enough to break generation. The pipeline packs the result to the token
budget.

"Bare" means nothing is left of the question once the document's name and a
few filler words ("what is", "tell me about", "thuốc ... là gì") are removed.
"""

from __future__ import annotations

from collections.abc import Iterable

from sectio.contract.result import Evidence
from sectio.retrieve.routes.base import Outcome, Turn
from sectio.retrieve.scan import book_order, mark_section_starts, section_points
from sectio.retrieve.scope import ReadScope
from sectio.retrieve.text import tokens

OVERVIEW_SCORE = 1.0

#: Words that do not ask for anything in particular next to a document name.
# fmt: off
FILLER_WORDS = frozenset(
    {
        "a", "an", "the", "what", "whats", "is", "are", "was", "it", "its", "this", "that",
        "about", "tell", "me", "us", "give", "show", "info", "information", "overview", "summary",
        "summarize", "summarise", "explain", "describe", "details", "detail", "on", "of", "for",
        "please", "drug", "drugs", "medicine", "medicines", "medication", "medications", "pill",
        "pills", "tablet", "tablets", "called", "known", "as", "you", "know", "do", "thuốc", "là",
        "gì", "về", "cho", "tôi", "biết", "thông", "tin", "tổng", "quan", "giới", "thiệu", "hãy",
        "nói", "loại", "này",
    }
)
# fmt: on


def is_bare(question: str, name_spans: Iterable[tuple[int, int]]) -> bool:
    """Whether ``question`` is only a document name plus filler words."""
    words = tokens(question)
    covered = {i for start, end in name_spans for i in range(start, end)}
    if not covered:
        return False
    return all(i in covered or w in FILLER_WORDS for i, w in enumerate(words))


def overview_evidence(scope: ReadScope, doc_id: str, display_name: str) -> list[Evidence]:
    """The intro sections of ``doc_id``, book order, each section's first chunk marked."""
    profile = scope.profile
    intro = list(profile.intro_sections) or None
    points = section_points(scope, doc_id, intro, route="overview")
    evidence = book_order(
        [Evidence.from_payload(p.payload, OVERVIEW_SCORE) for p in points], profile
    )
    for i, item in enumerate(evidence):
        item.rank = i + 1
    mark_section_starts(evidence, display_name)
    return evidence


class OverviewRoute:
    """A document asked for by name alone (or ``turn_type="overview"``): its intro sections."""

    name = "overview"
    needs_resolution = True

    def run(self, scope: ReadScope, turn: Turn) -> Outcome | None:
        res, request = turn.resolved, turn.request
        if not res.doc_id:
            return None
        bare = (
            not request.free_form
            and res.section_key is None
            and is_bare(request.question, res.spans)
        )
        if not (request.overview or bare):
            return None
        evidence = overview_evidence(scope, res.doc_id, res.display_name or res.doc_id)
        return Outcome(self.name, evidence, finish="pack", doc_id=res.doc_id)
