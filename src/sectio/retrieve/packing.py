"""Pack evidence into a token budget: whole chunks, in order, never cut.

Tokens are counted with the embedder's own tokenizer. Chunks are taken in the
order given; a chunk that does not fit in what is left is skipped whole (and
later, smaller ones may still fit). Clinical text is never truncated: a
truncated list reads as a complete one. Everything skipped is named in
``omitted_ids``.

Example:
    >>> from sectio.contract.result import Evidence
    >>> ev = [Evidence(chunk_id=c, doc_id="d", section_key="s", part_index=i,
    ...                text=t, score=1.0) for i, (c, t) in enumerate(
    ...                [("a", "one two"), ("b", "three four five"), ("c", "six")])]
    >>> p = pack(ev, 3, lambda t: len(t.split()))
    >>> [e.chunk_id for e in p.kept], p.omitted_ids, p.tokens
    (['a', 'c'], ['b'], 3)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sectio.contract.diagnostics import PackingReport
from sectio.contract.result import Evidence


@dataclass
class Packed:
    """What fits (in order), what was left out, tokens used and the budget."""

    kept: list[Evidence]
    omitted_ids: list[str] = field(default_factory=list)
    tokens: int = 0
    budget: int = 0

    def report(self, top_k: int | None = None) -> PackingReport:
        """What ``details.packing`` shows (``top_k``: the ranked evidence kept before packing)."""
        out = PackingReport(tokens=self.tokens, budget=self.budget, omitted=len(self.omitted_ids))
        if top_k is not None:
            out.top_k = top_k
        return out


def pack(evidence: Sequence[Evidence], budget: int, count_tokens: Callable[[str], int]) -> Packed:
    """Whole chunks of ``evidence`` in order while they fit in ``budget`` tokens."""
    kept: list[Evidence] = []
    omitted: list[str] = []
    used = 0
    for item in evidence:
        size = count_tokens(item.text)
        if used + size <= budget:
            kept.append(item)
            used += size
        else:
            omitted.append(item.chunk_id)
    return Packed(kept, omitted, used, budget)
