"""The port of a domain pack: what a kind of corpus knows beyond its profile's data.

A pack (``sectio.domains``; the drug labels' one reads brands and combination
products) is turned on by a collection's profile (``sectio.registry``) and
plugs in at two places: after the resolver read a question it
:meth:`~DomainPack.annotate`\\ s the document facts (what the question names
that no document holds), and its :meth:`~DomainPack.rules` join the
answerability chain before ``compound_name``. A new domain is a new pack, not
edits across the pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from sectio.contract.diagnostics import DocFacts
from sectio.retrieve.text import Tokens

if TYPE_CHECKING:
    from sectio.retrieve.answerability.context import Rule
    from sectio.retrieve.brands import BrandTable


@dataclass(frozen=True)
class Reading:
    """What the resolver read of one question, as a pack sees it.

    Attributes:
        question: the question.
        words: its tokens.
        doc_id: the document resolved (None: none).
        spans: the token spans of the document names found.
        named_key: the resolved document's ingredient key (empty: none).
        held: every document's ingredient key (the tenant's).
        held_words: every word of those keys.
        brand_table: the resolver's brand table (None: the profile has none).
        usable: whether a name may be read as one (not common, not a routing word).
    """

    question: str
    words: Tokens
    doc_id: str | None
    spans: Sequence[tuple[int, int]]
    named_key: frozenset[str]
    held: frozenset[tuple[str, ...]]
    held_words: frozenset[str]
    brand_table: BrandTable | None
    usable: Callable[[Tokens], bool]


class DomainPack(Protocol):
    """A domain's knowledge: resolution facts and answerability rules."""

    name: str

    def annotate(self, reading: Reading, facts: DocFacts) -> None:
        """Set on ``facts`` what this domain reads in the question (in place)."""
        ...

    def rules(self) -> Sequence[Rule]:
        """The pack's answerability rules, run before ``compound_name`` in this order."""
        ...
