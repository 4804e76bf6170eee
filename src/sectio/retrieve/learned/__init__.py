"""Section routing learned from the corpus: numbers, titles and shared keys of the records.

See :mod:`sectio.retrieve.learned.vocabulary` (what is learned and how it
matches) and :mod:`sectio.retrieve.learned.numbers` (numbered references).
"""

from __future__ import annotations

from sectio.retrieve.learned.vocabulary import LearnedMatch, LearnedSection, LearnedVocabulary

__all__ = ["LearnedMatch", "LearnedSection", "LearnedVocabulary"]
