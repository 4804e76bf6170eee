"""Where the learned vocabulary joins the resolve step (one call from ``resolve``).

Order (the profile wins where it speaks):

1. a caller's ``section_key``, else a profile phrase (``via: profile_phrase``);
2. else a numbered reference, then a title phrase, of the collection's own
   sections (``via: learned_number`` / ``learned_title``);
3. a learned section (a document's own number or title) names its document
   when the question names none (``doc_resolution.how: section``), so the
   answer is that section, whole (``route: section``). A profile phrase never
   names a document here; a tenant's only document is implied by the resolver
   afterwards when nothing else is named (``doc_resolution.how: implied``;
   "the maximum dose of Paxil" in a tenant holding one other label must still
   abstain, :meth:`~sectio.retrieve.resolve.Resolver.resolve`).

The intent step (``via: intent``) runs later, in its route, when none of these chose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sectio.contract.request import AskRequest
from sectio.retrieve.learned.vocabulary import LearnedVocabulary
from sectio.retrieve.resolve_doc import DocCatalog
from sectio.retrieve.resolve_section import SectionMatch


@dataclass(frozen=True)
class Reading:
    """The section match after the learned step, and the document it names (None: none)."""

    match: SectionMatch | None
    doc_id: str | None = None


def learned_reading(
    learned: LearnedVocabulary | None,
    catalog: DocCatalog,
    request: AskRequest,
    spans: Sequence[tuple[int, int]],
    docs_named: Sequence[str],
    match: SectionMatch | None,
) -> Reading:
    """The profile's ``match`` kept, else the vocabulary's; the document a section names.

    ``docs_named``: the documents the question (or caller) names.
    """
    if request.section_key or request.free_form:
        return Reading(match)
    if match is None and learned is not None:
        found = learned.match(request.question, spans, docs_named)
        if found is not None:
            match = SectionMatch(found.key, found.phrase, 0, 0, via=found.via)
            if not docs_named and found.doc_id is not None:
                return Reading(match, found.doc_id)
    return Reading(match)
