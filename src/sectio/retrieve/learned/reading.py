"""Where the learned vocabulary joins the resolve step (one call from ``resolve``).

Order (the profile wins where it speaks):

1. a caller's ``section_key``, else a profile phrase (``via: profile_phrase``);
2. else a numbered reference, then a title phrase, of the collection's own
   sections (``via: learned_number`` / ``learned_title``);
3. a second numbered reference to another section of the same document
   ("compare article 5 and article 6"), or a second title the question names
   beside the first ("toEqual vs toStrictEqual", :attr:`LearnedMatch.also`), is
   a second section, answered whole after the first (``Resolution.also``, as a
   profile's joined phrases are);
4. a learned section (a document's own number or title) names its document
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
from sectio.retrieve.learned.vocabulary import LearnedMatch, LearnedVocabulary
from sectio.retrieve.resolve_doc import DocCatalog
from sectio.retrieve.resolve_section import SectionMatch


@dataclass(frozen=True)
class Reading:
    """The section match after the learned step, the document it names (None: none) and
    a second section the question names in that document by number or title (None:
    none)."""

    match: SectionMatch | None
    doc_id: str | None = None
    also: SectionMatch | None = None


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
            also = _second_number(learned, request.question, docs_named, found) or _second_title(
                found
            )
            if not docs_named and found.doc_id is not None:
                return Reading(match, found.doc_id, also)
            return Reading(match, also=also)
    return Reading(match)


def _second_number(
    learned: LearnedVocabulary, question: str, docs_named: Sequence[str], first: LearnedMatch
) -> SectionMatch | None:
    """The next numbered reference after ``first`` that names another section of its
    document (None: none, or ``first`` was no number)."""
    if first.via != "learned_number" or first.doc_id is None:
        return None
    for m in learned.by_numbers(question, docs_named or [first.doc_id]):
        if m.doc_id == first.doc_id and m.key != first.key:
            return SectionMatch(m.key, m.phrase, 0, 0, via=m.via)
    return None


def _second_title(first: LearnedMatch) -> SectionMatch | None:
    """The second of two titles the question names together (None: none)."""
    also = first.also
    return None if also is None else SectionMatch(also.key, also.phrase, 0, 0, via=also.via)
