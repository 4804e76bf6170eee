"""Margins in the model's own units: how far over the calibrated floor "clearly over" is.

The answerability margins (a profile's ``planner_margin`` and ``guest_margin``,
the strong-evidence margins of :mod:`~sectio.retrieve.answerability.weigh`)
are cosine distances chosen with MiniLM on English collections, where the
calibrated dense floor sits at 0.22-0.30 and related text spreads over the
0.70-0.78 of the range above it. A model that packs every text into a narrow
cone (multilingual-e5 on Vietnamese law: floor 0.865, answerable questions'
best cosines 0.89-0.93) leaves no room for a 0.10 margin: floor + 0.10 is over
nearly every answerable question. So each margin is scaled by the headroom
the collection's own floor leaves, relative to :data:`REFERENCE_HEADROOM`
(MiniLM's on English prose), and never scaled up: on the English collections
measured here (headroom 0.70-0.78) every margin is the profile's.

Example:
    >>> margin_scale(0.30), margin_scale(0.22), round(margin_scale(0.865), 3)
    (1.0, 1.0, 0.193)
"""

from __future__ import annotations

#: The room above the dense floor (1 - floor) at which a margin is the profile's own:
#: the lowest of MiniLM's on the English collections measured (Argo CD 0.702; drug
#: labels 0.781, licences 0.759, Poetry 0.750, QUIC 0.749).
REFERENCE_HEADROOM = 0.70


def margin_scale(floor: float) -> float:
    """The factor a margin over ``floor`` is scaled by: the headroom ``1 - floor`` over
    :data:`REFERENCE_HEADROOM`, at most 1 (0 for a floor at or over 1)."""
    return max(0.0, min(1.0, (1.0 - floor) / REFERENCE_HEADROOM))
