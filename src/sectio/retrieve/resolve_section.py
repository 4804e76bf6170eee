"""Section resolver: which section does a question name? Profile phrases, longest wins.

All phrases of all sections are matched on word boundaries (token runs) and the
longest match wins across sections, so "chống chỉ định" beats "chỉ định",
"quá liều" beats "liều" and "contraindications" beats "indications". No match
returns ``None``: the caller falls back to similarity, this layer never guesses.
A second, diacritic-insensitive pass runs only when the exact pass finds
nothing ("chong chi dinh" typed without accents), and a typo pass after both
(``known`` given): a word the collection and the model's vocabulary do not
know, one edit from exactly one phrase word of at least :data:`TYPO_MIN`
letters with the same first letter, is read as that word ("strenths" ->
"strengths"; the match says ``typo``). The document's name, once
resolved, reads as "it" (so "can I take Zoloft with" matches "can i take it
with"). Adding a phrasing is a profile edit, never a code edit.

Example:
    >>> from sectio.contract.profile import load_profile
    >>> r = SectionResolver(load_profile("vi_drug_monograph"))
    >>> r.resolve("Paracetamol chống chỉ định cho ai?").key
    'chong_chi_dinh'
    >>> r.resolve("quá liều paracetamol").key
    'qua_lieu_va_xu_tri'
    >>> r.resolve("hello") is None
    True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sectio.contract.profile import CorpusProfile
from sectio.retrieve.text import Tokens, edit_distance, find_phrase, folded_tokens, tokens

#: What a document name reads as when phrases are matched: profile phrases say "it".
NAME_PLACEHOLDER = "it"
#: The shortest phrase word the typo pass reads a misspelt word as.
TYPO_MIN = 6


def substitute_names(words: Tokens, spans: list[tuple[int, int]]) -> Tokens:
    """``words`` with each name span replaced by one :data:`NAME_PLACEHOLDER`."""
    if not spans:
        return words
    out: list[str] = []
    i = 0
    for start, end in spans:
        if start < i:
            continue  # overlapping spans: the first one already covered this
        out.extend(words[i:start])
        out.append(NAME_PLACEHOLDER)
        i = end
    out.extend(words[i:])
    return tuple(out)


@dataclass(frozen=True)
class SectionMatch:
    """A resolved section: the key, the phrase that named it, where, and how.

    ``via``: what chose it (``profile_phrase``; the learned vocabulary's
    ``learned_number`` or ``learned_title``, :mod:`sectio.retrieve.learned`).
    """

    key: str
    phrase: str
    start: int
    end: int
    folded: bool = False
    typo: tuple[tuple[str, str], ...] = ()
    via: str = "profile_phrase"


@dataclass(frozen=True)
class _Phrase:
    text: str
    key: str
    order: int
    exact: Tokens
    folded: Tokens

    @property
    def weight(self) -> int:
        return len(" ".join(self.exact))


class SectionResolver:
    """Compiled routing phrases of one profile."""

    def __init__(self, profile: CorpusProfile) -> None:
        phrases: list[_Phrase] = []
        for order, spec in enumerate(profile.sections):
            for text in spec.phrases:
                exact = tokens(text)
                if exact:
                    phrases.append(_Phrase(text, spec.key, order, exact, folded_tokens(text)))
        # Longest first; ties by token count, then profile order.
        phrases.sort(key=lambda p: (-p.weight, -len(p.exact), p.order))
        self._phrases = tuple(phrases)
        self._exact_words = frozenset(w for p in phrases for w in p.exact)
        self._typo_targets = sorted(w for w in self._exact_words if len(w) >= TYPO_MIN)

    @property
    def phrase_count(self) -> int:
        return len(self._phrases)

    def vocabulary(self) -> set[str]:
        """Every token of every routing phrase (exact and folded forms)."""
        vocab: set[str] = set()
        for p in self._phrases:
            vocab.update(p.exact)
            vocab.update(p.folded)
        return vocab

    def resolve(
        self, question: str, exclude: Iterable[tuple[int, int]] = ()
    ) -> SectionMatch | None:
        """The section the question names, or None.

        Args:
            question: the user's text.
            exclude: token spans ``[start, end)`` of document names. Each is read
                as :data:`NAME_PLACEHOLDER` ("it"), so "does Zoloft cause ..."
                matches the phrase "does it cause" and a name's own words never
                route. Positions in the result refer to the rewritten tokens.
        """
        found = self.resolve_all(question, exclude)
        return found[0] if found else None

    def resolve_all(
        self,
        question: str,
        exclude: Iterable[tuple[int, int]] = (),
        known: Callable[[str], bool] | None = None,
    ) -> list[SectionMatch]:
        """Every section the question names, best first, without overlapping matches.

        The longest phrase takes its words; a shorter phrase inside them is never
        a candidate (so "chỉ định" is not a runner-up of "chống chỉ định"). A
        caller whose document lacks the first section may try the next one. The
        folded pass runs only when the exact pass finds nothing; the typo pass
        (``known``: the words that are real, never corrected) only when neither does.
        """
        spans = sorted(set(exclude))
        words = substitute_names(tokens(question), spans)
        found = self._all(words, folded=False)
        if not found:
            found = self._all(substitute_names(folded_tokens(question), spans), folded=True)
        if not found and known is not None:
            fixed = self.corrected(words, known)
            if fixed:
                read = tuple(fixed.items())
                spelled = tuple(fixed.get(w, w) for w in words)
                found = [
                    dataclasses.replace(m, typo=read) for m in self._all(spelled, folded=False)
                ]
        return found

    def corrected(self, words: Tokens, known: Callable[[str], bool]) -> dict[str, str]:
        """The question's misspelt routing words, each with the phrase word it is read as.

        A word of at least :data:`TYPO_MIN` - 1 letters that is no phrase word and
        not ``known``, one edit (a transposition counts one) from exactly one phrase
        word of at least :data:`TYPO_MIN` letters with the same first letter.

        Example:
            >>> from sectio.contract.profile import load_profile
            >>> r = SectionResolver(load_profile("en_drug_label"))
            >>> r.corrected(("what", "strenths", "of", "it"), known=lambda w: False)
            {'strenths': 'strengths'}
            >>> r.corrected(("what", "strenths"), known=lambda w: w == "strenths")
            {}
        """
        out: dict[str, str] = {}
        for word in words:
            if len(word) < TYPO_MIN - 1 or word in out or word in self._exact_words:
                continue
            if known(word):
                continue
            near = [
                t for t in self._typo_targets if t[0] == word[0] and edit_distance(word, t, 1) == 1
            ]
            if len(near) == 1:
                out[word] = near[0]
        return out

    def _all(self, words: Tokens, *, folded: bool) -> list[SectionMatch]:
        occurrences = []
        for phrase in self._phrases:
            needle = phrase.folded if folded else phrase.exact
            for start in find_phrase(words, needle):
                occurrences.append((phrase, start, start + len(needle)))
        # Longest first; ties: more tokens, earlier in the question, earlier in the profile.
        occurrences.sort(key=lambda o: (-o[0].weight, -(o[2] - o[1]), o[1], o[0].order))
        taken: set[int] = set()
        out: list[SectionMatch] = []
        keys: set[str] = set()
        for phrase, start, end in occurrences:
            if any(i in taken for i in range(start, end)):
                continue
            taken.update(range(start, end))
            if phrase.key not in keys:
                keys.add(phrase.key)
                out.append(SectionMatch(phrase.key, phrase.text, start, end, folded))
        return out


def joined_match(
    question: str,
    spans: Iterable[tuple[int, int]],
    matches: list[SectionMatch],
    first: SectionMatch,
    joiners: Iterable[str],
    present: Iterable[str],
) -> SectionMatch | None:
    """A second section the question asks for, joined to ``first`` by a joiner word, or None.

    "metformin indications and contraindications", "can I take it with X if I
    have kidney disease": another match (best first) of a section in ``present``
    whose words and ``first``'s have a joiner ("and", "if", ...: the profile's
    ``[intent] joiners``) between them, or that begins with one. One at most.

    Example:
        >>> from sectio.contract.profile import load_profile
        >>> r = SectionResolver(load_profile("en_drug_label"))
        >>> q = "indications and contraindications"
        >>> ms = r.resolve_all(q)
        >>> joined_match(q, (), ms, ms[0], ["and"], ["indications_and_usage"]).key
        'indications_and_usage'
    """
    stops, have = set(joiners), set(present)
    if not stops:
        return None
    text = folded_tokens(question) if first.folded else tokens(question)
    words = substitute_names(text, sorted(set(spans)))
    for m in matches:
        if m.key == first.key or m.key not in have:
            continue
        left, right = (first, m) if first.start < m.start else (m, first)
        between = words[left.end : right.start]
        if stops.intersection(between) or words[right.start] in stops:
            return m
    return None
