"""Section-intent route: a named document, no section phrase: the section its examples say.

Runs after the phrase routes (a phrase or a caller's flag always wins) and
before free-form: the question (its document name read as "it") is compared
with the profile's example questions (:mod:`sectio.retrieve.intent`). A clear
winner is answered whole, like a phrase's section; two close sections are
both answered whole, each chunk carrying its own section; a weak reading
declines, and the free-form route answers. ``details.intent`` says which.

The reading is kept on the turn (``turn.intent``) whatever the choice, and is
also taken for a caller's free-form turn (``turn_type="free_form"``), which it
never routes: the free-form route orders the document's chunks with it.

A question that names several documents and no section phrase ("is Dexilant
different from Nexium?") is read the same way over every section any of them
has (the first :data:`~sectio.retrieve.routes.section.MAX_SECTION_DOCS`
named): a chosen section is answered for each document that has it, in the
order they are named, as a phrase's section is for several documents
(``details.documents`` lists them); a weak reading declines, and the
fallback search answers as before.
"""

from __future__ import annotations

from sectio.contract.diagnostics import Diagnostics, SectionFacts
from sectio.contract.result import Evidence
from sectio.retrieve.intent import IntentClassifier, IntentReading
from sectio.retrieve.resolve_section import substitute_names
from sectio.retrieve.routes.base import Outcome, Resolution, Turn
from sectio.retrieve.routes.section import MAX_SECTION_DOCS, section_evidence
from sectio.retrieve.scope import ReadScope
from sectio.retrieve.text import tokens


class IntentRoute:
    """The section (or two) a named document's question asks for, by example questions."""

    name = "section"
    needs_resolution = True

    def __init__(self) -> None:
        self._classifier: IntentClassifier | None = None
        self._built = False

    def classifier(self, scope: ReadScope) -> IntentClassifier | None:
        """The profile's examples, embedded once per collection (None: the profile has none)."""
        if not self._built:
            self._classifier = IntentClassifier.from_profile(scope.profile, scope.query_vectors)
            self._built = True
        return self._classifier

    def read(self, scope: ReadScope, turn: Turn) -> IntentReading | None:
        """The intent reading of a question with a document and no section (None: no step)."""
        res, settings = turn.resolved, scope.profile.intent
        docs = reading_documents(res)
        if not settings.enabled or not docs or res.section_key or turn.request.overview:
            return None
        classifier = self.classifier(scope)
        if classifier is None:
            return None
        allowed = frozenset().union(*(keys for _, keys in docs))
        masked = " ".join(substitute_names(tokens(turn.question), list(res.spans)))
        return classifier.read(scope.query_vector(masked), settings, allowed or None)

    def run(self, scope: ReadScope, turn: Turn) -> Outcome | None:
        reading = turn.intent = self.read(scope, turn)
        if reading is None:
            return None
        turn.details.intent = reading.as_details()
        if not reading.chosen or turn.request.free_form:
            return None
        docs = reading_documents(turn.resolved)
        evidence: list[Evidence] = []
        for key in reading.chosen:
            for doc_id, keys in docs:
                if key in keys or len(docs) == 1:
                    evidence += section_evidence(scope, doc_id, key)
        for i, e in enumerate(evidence, start=1):
            e.rank = i
        details = Diagnostics(intent=reading.as_details())
        details.section_resolution = SectionFacts(
            section_key=reading.chosen[0], how="intent", via="intent"
        )
        if len(docs) > 1:
            details.documents = [doc_id for doc_id, _ in docs]
        return Outcome(
            self.name,
            evidence,
            details,
            doc_id=turn.resolved.doc_id,
            section_key=reading.chosen[0],
        )


def reading_documents(res: Resolution) -> list[tuple[str, frozenset[str]]]:
    """The documents an intent reading answers for, each with its sections, in order.

    The named (or forced) document; else, when the question names several
    documents (ambiguous), the first :data:`MAX_SECTION_DOCS` of them; else none.
    The sections of a document the catalog does not know are empty (every
    section is then ranked, as before).
    """
    if res.doc_id:
        return [(res.doc_id, res.sections_of_doc)]
    if not res.ambiguous:
        return []
    pairs = list(zip(res.docs_named, res.sections_named, strict=False))
    return pairs[:MAX_SECTION_DOCS]
