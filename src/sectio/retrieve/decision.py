"""``decide(evidence)``: the one evidence policy every route and every caller uses.

Order of the rules (first match wins):

1. no evidence -> ``ABSTAIN`` / ``no_evidence``
2. any item without ``source_refs`` -> ``ABSTAIN`` / ``missing_provenance``
3. any item with ``requires_visual_check`` or ``has_quarantined_content``
   -> ``VERIFY_SOURCE`` / ``visual_verification_required``
4. else ``ANSWERABLE`` / ``grounded_evidence_available``

Reasons are stable strings; callers may match on them.

Example:
    >>> decide([])
    ('ABSTAIN', 'no_evidence')
"""

from __future__ import annotations

from collections.abc import Sequence

from sectio.contract.result import Decision, Evidence

NO_EVIDENCE = "no_evidence"
MISSING_PROVENANCE = "missing_provenance"
VISUAL_CHECK = "visual_verification_required"
GROUNDED = "grounded_evidence_available"


def decide(evidence: Sequence[Evidence]) -> tuple[Decision, str]:
    """The decision and its reason for a pool of evidence (see module doc for the rules)."""
    if not evidence:
        return "ABSTAIN", NO_EVIDENCE
    if any(not item.source_refs for item in evidence):
        return "ABSTAIN", MISSING_PROVENANCE
    if any(item.requires_visual_check or item.has_quarantined_content for item in evidence):
        return "VERIFY_SOURCE", VISUAL_CHECK
    return "ANSWERABLE", GROUNDED
