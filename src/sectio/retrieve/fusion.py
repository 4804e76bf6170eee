"""How hybrid lists are widened and fused: one :class:`FusionParams`, read by every fused query.

Reciprocal rank fusion inside the engine: each list contributes
``1 / (rank / weight + rrf_k - 1)`` (rank from 1; Qdrant's weighted RRF, which
is the paper's ``1 / (rrf_k + rank - 1)`` at weight 1) to a point's fusion
value; search shows each hit's rank in each list (``Evidence.scores``). The
values come from settings (``SECTIO_RRF_K``, ``SECTIO_HYBRID_*``), chosen on
SciFact train (see the README's results table).

Two adjustments, in this order: the collection's calibration scales the dense
weight on every fused read (:meth:`FusionParams.calibrated`, once per collection
and tenant); and in ``search``, a question's lexical weight shrinks when the
dense list ranks BM25's first pick far below its own first
(:meth:`FusionParams.lexical_trust`, per query): a question is phrased in the
asker's words, not the corpus's, and a BM25 pick the model reads as off-topic
is a word match, not evidence. ``ask``'s routes keep the weights as they are
(measured: the per-question trust cost the docs planner 0.034 hit@5 on Argo CD
test and the fallback route two of twelve consumer questions; README).

Example:
    >>> FusionParams(pool_factor=5, pool_min=50).pool(20)
    100
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from sectio.index.port import ListRank
from sectio.settings import Settings

#: How steeply the dense weight falls under the reliability reference (its power).
RELIABILITY_POWER = 6


@dataclass(frozen=True)
class FusionParams:
    """How hybrid search widens and fuses its candidate lists.

    Example:
        >>> FusionParams(rrf_k=2).weights(sparse_names=("bm25", "bm25_folded"))
        [1.0, 0.6, 0.6]
    """

    rrf_k: int = 2
    pool_factor: int = 5
    pool_min: int = 50
    pool_max: int = 1000
    dense_weight: float = 1.0
    lexical_weight: float = 1.2
    #: Calibrate the dense weight per collection and tenant (:meth:`calibrated`).
    calibrate: bool = True
    #: Dense/BM25 pseudo-query MRR ratio at or above which the dense weight is kept whole.
    reliability_reference: float = 0.5
    #: The dense weight's multiplier from the calibration (1.0: not calibrated).
    dense_scale: float = 1.0
    #: Cosine gap (dense first minus BM25's first pick) over which a question's
    #: lexical weight falls from whole to ``trust_floor`` (0: never shrinks).
    trust_span: float = 0.02
    #: The least share of the lexical weight a question keeps.
    trust_floor: float = 0.1
    #: This read is a question (:meth:`for_query`, called by ``search`` only); only
    #: questions shrink BM25.
    question: bool = False

    @classmethod
    def from_settings(cls, settings: Settings) -> FusionParams:
        return cls(
            rrf_k=settings.rrf_k,
            pool_factor=settings.hybrid_pool_factor,
            pool_min=settings.hybrid_pool_min,
            pool_max=settings.hybrid_pool_max,
            dense_weight=settings.hybrid_dense_weight,
            lexical_weight=settings.hybrid_lexical_weight,
            calibrate=settings.hybrid_calibrate,
            reliability_reference=settings.hybrid_reliability_reference,
            trust_span=settings.hybrid_trust_span,
            trust_floor=settings.hybrid_trust_floor,
        )

    def for_query(self, text: str) -> FusionParams:
        """These params for one read of ``text`` (whether it is a question, :func:`is_question`).

        Example:
            >>> FusionParams().for_query("can I take it with tea?").question
            True
        """
        return replace(self, question=is_question(text))

    def calibrated(self, ratio: float) -> FusionParams:
        """These params with the dense weight scaled by a measured reliability ``ratio``.

        ``ratio`` is the collection's dense/BM25 pseudo-query MRR ratio
        (:class:`sectio.retrieve.calibration.ListReliability`). At or above
        ``reliability_reference`` the model reads the corpus as well as the
        collections the weights were tuned on and the weight stays; under it
        the dense weight shrinks with the sixth power of the shortfall (never
        under a tenth): MiniLM on Russian text (ratio 0.38) keeps a fifth of it,
        MiniLM on SciFact (0.70) and on MedQuAD (0.53) all of it. The reference
        and the power were chosen on SciFact train, RuMedDaNet train and MedQuAD
        dev (README, "Hybrid that adapts").

        Example:
            >>> FusionParams(reliability_reference=0.5).calibrated(0.25).dense_scale
            0.1
            >>> FusionParams(reliability_reference=0.5).calibrated(0.4).dense_scale
            0.2621
            >>> FusionParams(calibrate=False).calibrated(0.2).dense_scale
            1.0
        """
        if not self.calibrate or self.reliability_reference <= 0:
            return self
        scale = min(1.0, max(0.1, (ratio / self.reliability_reference) ** RELIABILITY_POWER))
        return replace(self, dense_scale=round(scale, 4))

    def lexical_trust(self, lists: Sequence[Mapping[str, ListRank]]) -> tuple[float, float | None]:
        """The share of the lexical weight this read keeps, and the cosine gap it came from.

        ``lists`` are the settled lists in prefetch order (dense first, then
        BM25). The gap is the dense list's first cosine minus its cosine of
        BM25's first pick (the BM25 lists fused with equal weights); a pick
        outside the dense candidates counts as their last. The share falls
        linearly from 1.0 at gap 0 to ``trust_floor`` at ``trust_span``. It is
        1.0 (gap None) for a statement or keyword query, without BM25, with the
        trust off, and on a collection whose calibration shrank the dense
        weight (there the model does not read the corpus well enough to judge).
        Chosen on SciFact train, consumer_meds dev and Argo CD dev (README,
        "Hybrid vs its best single list").

        Example:
            >>> dense = {"a": ListRank(1, 0.70), "b": ListRank(2, 0.69), "c": ListRank(3, 0.60)}
            >>> q = FusionParams(question=True)
            >>> q.lexical_trust([dense, {"b": ListRank(1, 9.0)}])
            (0.5, 0.01)
            >>> q.lexical_trust([dense, {"z": ListRank(1, 9.0)}])
            (0.1, 0.1)
            >>> FusionParams().lexical_trust([dense, {"z": ListRank(1, 9.0)}])
            (1.0, None)
        """
        dense, sparse = (lists[0], lists[1:]) if lists else ({}, [])
        off = not self.question or self.trust_span <= 0 or self.dense_scale < 1.0
        if off or not dense or not any(sparse):
            return 1.0, None
        pick = fuse(sparse, [1.0] * len(sparse), self.rrf_k)[0][0]
        cosines = [place.score for place in dense.values()]
        gap = round(
            max(cosines) - dense[pick].score if pick in dense else max(cosines) - min(cosines), 6
        )
        share = min(1.0, max(self.trust_floor, 1.0 - gap / self.trust_span))
        return round(share, 4), gap

    def query_weights(
        self, lists: Mapping[str, Mapping[str, ListRank]]
    ) -> tuple[list[float], float]:
        """RRF weights for ``lists`` by name (dense first, then each BM25 list) after
        :meth:`lexical_trust`, and the share of the lexical weight kept."""
        share, _ = self.lexical_trust(list(lists.values()))
        weights = self.weights(sparse_names=list(lists)[1:])
        return [weights[0]] + [w * share for w in weights[1:]], share

    def pool(self, limit: int) -> int:
        """Candidates each list takes for a final cut of ``limit`` (never fewer than ``limit``)."""
        return max(limit, min(self.pool_max, max(self.pool_min, self.pool_factor * limit)))

    def top_value(self, *, sparse_names: Sequence[str] = ()) -> float:
        """The fusion value of a point first in every list (a unit for score boosts).

        As Qdrant computes it: each list adds ``1 / (rank / w + rrf_k - 1)``,
        here at rank 1.

        Example:
            >>> round(FusionParams(rrf_k=2).top_value(sparse_names=("bm25",)), 4)
            1.0455
        """
        weights = self.weights(sparse_names=sparse_names)
        return sum(1.0 / (1.0 / w + self.rrf_k - 1) for w in weights if w > 0)

    def weights(self, *, dense: bool = True, sparse_names: Sequence[str] = ()) -> list[float]:
        """RRF weights in prefetch order: dense first, then the BM25 variants.

        Exact and accent-folded BM25 share the lexical weight, so a document
        both rank first counts as much as one plain BM25 list would.
        """
        out = [self.dense_weight * self.dense_scale] if dense else []
        if sparse_names:
            out.extend([self.lexical_weight / len(sparse_names)] * len(sparse_names))
        return out


#: Words that open an English question (a question also ends with "?").
QUESTION_OPENERS = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "will",
        "may",
        "might",
        "shall",
        "has",
        "have",
        "had",
        "am",
    ]
)


def is_question(text: str) -> bool:
    """``text`` asks: it ends with "?" or opens with an interrogative or auxiliary word.

    Example:
        >>> is_question("What is the dose of metformin"), is_question("metformin dose")
        (True, False)
    """
    words = text.strip().split()
    if not words:
        return False
    return text.rstrip().endswith("?") or words[0].lower().strip(",.:;\"'") in QUESTION_OPENERS


def settled(ranks: Mapping[str, ListRank]) -> dict[str, ListRank]:
    """``ranks`` renumbered best score first, equal scores by point id.

    An engine returns equal scores (int8 cosines, BM25 of short queries) in no
    fixed order, so the same query could rank a tie differently from call to
    call; a settled list ranks it the same way every time.

    Example:
        >>> settled({"b": ListRank(1, 0.5), "a": ListRank(2, 0.5), "c": ListRank(3, 0.9)})
        {'c': ListRank(rank=1, score=0.9), 'a': ListRank(rank=2, score=0.5), \
'b': ListRank(rank=3, score=0.5)}
    """
    order = sorted(ranks.items(), key=lambda item: (-item[1].score, item[0]))
    return {pid: ListRank(i + 1, place.score) for i, (pid, place) in enumerate(order)}


def fuse(
    lists: Sequence[Mapping[str, ListRank]], weights: Sequence[float], rrf_k: int
) -> list[tuple[str, float]]:
    """Weighted reciprocal rank fusion of ``lists``, best first: (point id, value).

    Each list adds ``1 / (rank / weight + rrf_k - 1)`` to a point's value, as
    Qdrant's weighted RRF does (a list of weight 0 adds nothing). Equal values
    are ordered by the first list's score (the dense cosine in hybrid search),
    then by point id, so the ranking is the same on every call.

    Example:
        >>> a = {"x": ListRank(1, 0.9), "y": ListRank(2, 0.8)}
        >>> b = {"y": ListRank(1, 7.0)}
        >>> [(pid, round(v, 3)) for pid, v in fuse([a, b], [1.0, 1.0], rrf_k=2)]
        [('y', 0.833), ('x', 0.5)]
    """
    values: dict[str, float] = {}
    for ranks, weight in zip(lists, weights, strict=True):
        if weight <= 0:
            continue
        for pid, place in ranks.items():
            values[pid] = values.get(pid, 0.0) + 1.0 / (place.rank / weight + rrf_k - 1)
    first = lists[0] if lists else {}

    def key(item: tuple[str, float]) -> tuple[float, float, str]:
        place = first.get(item[0])
        return (-item[1], -(place.score if place else 0.0), item[0])

    return sorted(values.items(), key=key)
