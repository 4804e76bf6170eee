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
"""

from __future__ import annotations

from sectio.contract.result import Evidence
from sectio.retrieve.intent import IntentClassifier, IntentReading
from sectio.retrieve.resolve_section import substitute_names
from sectio.retrieve.routes.base import Outcome, Turn
from sectio.retrieve.routes.section import section_evidence
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
        """The intent reading of a named document's question with no section (None: no step)."""
        res, settings = turn.resolved, scope.profile.intent
        if not settings.enabled or not res.doc_id or res.section_key or turn.request.overview:
            return None
        classifier = self.classifier(scope)
        if classifier is None:
            return None
        masked = " ".join(substitute_names(tokens(turn.question), list(res.spans)))
        return classifier.read(scope.query_vector(masked), settings, res.sections_of_doc or None)

    def run(self, scope: ReadScope, turn: Turn) -> Outcome | None:
        res = turn.resolved
        reading = turn.intent = self.read(scope, turn)
        if reading is None:
            return None
        turn.details["intent"] = reading.as_details()
        if not reading.chosen or turn.request.free_form:
            return None
        assert res.doc_id is not None  # read() needs a document
        evidence: list[Evidence] = []
        for key in reading.chosen:
            evidence += section_evidence(scope, res.doc_id, key)
        for i, e in enumerate(evidence, start=1):
            e.rank = i
        return Outcome(
            self.name,
            evidence,
            {"intent": reading.as_details()},
            doc_id=res.doc_id,
            section_key=reading.chosen[0],
        )
