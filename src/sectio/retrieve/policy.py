"""``EvidencePolicy``: every number the routes use, in one object.

Built from a profile's ``[policy]`` table over the seed's defaults; a key the
policy does not know is logged and ignored (a stored profile must never stop
a collection from serving).

Example:
    >>> from sectio.contract.profile import load_profile
    >>> p = EvidencePolicy.from_profile(load_profile("vi_drug_monograph"))
    >>> p.max_context_tokens, p.rerank_top_k, p.indication_candidate_limit
    (6000, 6, 8)
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from sectio.contract.profile import CorpusProfile
from sectio.rerank import DEFAULT_TIMEOUT_S

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EvidencePolicy:
    """Policy numbers of the routes (seed defaults but one; a profile's ``[policy]`` overrides).

    Attributes:
        minimum_score: dense similarity floor; dense routes only (fallback search).
        candidate_limit: fused candidates per prefetch of the fallback search (x10 pool).
        evidence_limit: chunks the fallback search (the hydrated similarity search)
            keeps; never the section route. 6 here (SciFact train through ``ask``:
            3 answered 0.912 of the claims, 6 answered 0.943); the seed's 3 is in
            ``vi_drug_monograph``.
        rerank_top_k: chunks kept after rerank/relevance order (free-form); the
            fallback search reranks ``4 x rerank_top_k`` candidates.
        max_context_tokens: token budget of packed evidence (overview, free-form, fallback).
        indication_candidate_limit: documents a reverse lookup returns.
        indication_retrieval_limit: chunk pool of a reverse lookup, either stage.
        indication_evidence_per_drug: evidence chunks per document in a lookup.
        lookup_dense_minimum_score: dense lookup hits below this are discarded.
        patient_candidate_limit: documents a facet assessment looks at.
        safety_hits_per_section: anchored hits kept per section of a facet.
        safety_sections_per_candidate: sections with hits kept per assessed document.
        section_page_size: scroll page size of the section route (it pages to the end).
        rerank_timeout_s: a reranker slower than this is abandoned (fail-open;
            ``SECTIO_RERANK_TIMEOUT_S`` unless the profile sets it).
    """

    minimum_score: float = 0.12
    candidate_limit: int = 5
    evidence_limit: int = 6
    rerank_top_k: int = 6
    max_context_tokens: int = 6000
    indication_candidate_limit: int = 8
    indication_retrieval_limit: int = 40
    indication_evidence_per_drug: int = 2
    lookup_dense_minimum_score: float = 0.45
    patient_candidate_limit: int = 2
    safety_hits_per_section: int = 1
    safety_sections_per_candidate: int = 4
    section_page_size: int = 256
    rerank_timeout_s: float = DEFAULT_TIMEOUT_S

    @classmethod
    def from_mapping(cls, values: Mapping[str, float]) -> EvidencePolicy:
        """Defaults overridden by ``values`` (ints where the field is an int)."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        kwargs: dict[str, float | int] = {}
        for key, value in values.items():
            spec = fields.get(key)
            if spec is None:
                log.warning("policy key %r is not known; ignored", key)
                continue
            kwargs[key] = int(value) if spec.type in ("int", int) else float(value)
        return cls(**kwargs)  # type: ignore[arg-type]

    @classmethod
    def from_profile(cls, profile: CorpusProfile) -> EvidencePolicy:
        """The policy of a corpus profile."""
        return cls.from_mapping(profile.policy)

    def with_overrides(self, **changes: float | int) -> EvidencePolicy:
        """A copy with some numbers changed (tests, per-call ``top_k``)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]
