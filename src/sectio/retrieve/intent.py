"""Section intent: which section a question asks for when no profile phrase says.

The profile's sections carry example questions (``examples``, the document's
name written as "it"). The question, its document name replaced by "it" too,
is embedded with the collection's own model and compared with every example
(cosine); a section's score is the mean of its ``k`` nearest examples. The
reading ranks the sections the document has, best first, and chooses:

* ``section``: the best scores at least ``min_score`` and leads the next by
  ``margin`` or more: that section, whole;
* ``sections``: the two best are within ``margin`` of each other (both at
  least ``min_score``, ``both_within`` on): both, whole, in that order (a
  question asking two things, or one the examples cannot tell apart);
* ``free_form``: the best is under ``min_score``: nothing is chosen, the
  free-form route ranks the document's chunks.

A section the document lacks lends its examples to its stand-in, the first
of its ``stand_in`` sections the document has (``storage_and_handling`` ->
``how_supplied``; ``dosage_forms_and_strengths`` -> ``how_supplied``, else
``dosage_and_administration``): the stand-in is scored on its own examples
and the absent section's together, as the phrase route answers the absent
section's phrases there.

Phrases win: this step runs only when no phrase (and no caller flag) named a
section. Adding an example is a profile edit, never a code edit.

Example:
    >>> import numpy as np
    >>> c = IntentClassifier(("a", "a", "b"), np.eye(3, dtype=np.float32), k=1)
    >>> c.rank(np.array([0.0, 0.0, 1.0], dtype=np.float32))
    [('b', 1.0), ('a', 0.0)]
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from sectio.contract.diagnostics import IntentReport, SectionScore
from sectio.contract.profile import CorpusProfile, IntentSettings

Choice = Literal["section", "sections", "free_form"]


@dataclass(frozen=True)
class IntentReading:
    """The sections ranked by intent score, and what was chosen (see the module doc)."""

    ranked: tuple[tuple[str, float], ...]
    choice: Choice
    chosen: tuple[str, ...]
    settings: IntentSettings

    def as_details(self) -> IntentReport:
        """What ``details.intent`` shows: the choice and the three best sections."""
        return IntentReport(
            choice=self.choice,
            chosen=list(self.chosen),
            ranked=[SectionScore(section_key=k, score=round(s, 4)) for k, s in self.ranked[:3]],
            min_score=self.settings.min_score,
            margin=self.settings.margin,
        )


class IntentClassifier:
    """Nearest example questions per section, in one embedding space."""

    def __init__(
        self,
        labels: Sequence[str],
        vectors: npt.NDArray[np.float32],
        *,
        k: int = 2,
        stand_ins: Mapping[str, str | Sequence[str]] | None = None,
    ):
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self.labels = tuple(labels)
        self.vectors = vectors / np.maximum(norms, 1e-12)
        self.k = k
        self.stand_ins = {
            key: (keys,) if isinstance(keys, str) else tuple(keys)
            for key, keys in (stand_ins or {}).items()
        }
        self._rows = {key: np.flatnonzero(np.asarray(self.labels) == key) for key in set(labels)}

    @classmethod
    def from_profile(
        cls,
        profile: CorpusProfile,
        embed: Callable[[Sequence[str]], npt.NDArray[np.float32]],
    ) -> IntentClassifier | None:
        """The profile's examples embedded as queries (``embed``: texts -> rows, in order,
        e.g. :meth:`ReadScope.query_vectors`); None when it has none."""
        labels = [s.key for s in profile.sections for _ in s.examples]
        if not labels:
            return None
        texts = [q for s in profile.sections for q in s.examples]
        vectors = np.asarray(embed(texts), dtype=np.float32)
        return cls(labels, vectors, k=profile.intent.k, stand_ins=profile.stand_ins)

    def _groups(self, allowed: Collection[str] | None) -> dict[str, npt.NDArray[np.intp]]:
        """Example rows per section scored: ``allowed`` ones, each with what it stands in for."""
        if allowed is None:
            return self._rows
        groups: dict[str, list[npt.NDArray[np.intp]]] = {}
        for key, rows in self._rows.items():
            present = [k for k in self.stand_ins.get(key, ()) if k in allowed]
            target = key if key in allowed else next(iter(present), None)
            if target is not None:
                groups.setdefault(target, []).append(rows)
        return {key: np.concatenate(parts) for key, parts in groups.items()}

    def rank(
        self, query: npt.NDArray[np.float32], allowed: Collection[str] | None = None
    ) -> list[tuple[str, float]]:
        """Sections (only ``allowed`` ones when given, each with the examples of the absent
        sections it stands in for) by the mean of their k best cosines; ties by key."""
        q = query / max(float(np.linalg.norm(query)), 1e-12)
        sims = self.vectors @ q
        out = []
        for key, rows in self._groups(allowed).items():
            best = np.sort(sims[rows])[::-1][: self.k]
            out.append((key, float(best.mean())))
        out.sort(key=lambda kv: (-kv[1], kv[0]))
        return out

    def read(
        self,
        query: npt.NDArray[np.float32],
        settings: IntentSettings,
        allowed: Collection[str] | None = None,
    ) -> IntentReading:
        """Rank the sections and choose (the rules of the module doc)."""
        ranked = self.rank(query, allowed)
        if not ranked or ranked[0][1] < settings.min_score:
            return IntentReading(tuple(ranked), "free_form", (), settings)
        if (
            settings.both_within
            and len(ranked) > 1
            and ranked[1][1] >= settings.min_score
            and ranked[0][1] - ranked[1][1] < settings.margin
        ):
            return IntentReading(tuple(ranked), "sections", (ranked[0][0], ranked[1][0]), settings)
        return IntentReading(tuple(ranked), "section", (ranked[0][0],), settings)
