"""What a collection learned for routing, read for ``sectio info`` and ``sectio profile draft``.

One tenant-filtered, guard-checked scroll of the collection's points (no model
is loaded), then the same vocabulary the router builds
(:class:`~sectio.retrieve.learned.vocabulary.LearnedVocabulary`).
"""

from __future__ import annotations

import re
from typing import Any

from sectio.index.collection import Collection
from sectio.index.port import StoredPoint
from sectio.retrieve.learned.vocabulary import LearnedVocabulary
from sectio.retrieve.reads import TenantGuard, scroll_all


def collection_payloads(
    coll: Collection, tenant: str, guard: TenantGuard | None = None
) -> list[dict[str, Any]]:
    """Every stored record of ``tenant`` in ``coll`` in the book's order (the engine's own
    is random): by document, then each record's place in its document as the source
    listed it (:attr:`~sectio.index.port.StoredPoint.ordinal`); a record written before
    records kept theirs by section key with its numbers read as numbers (``s2`` before
    ``s10``), then ``part_index``."""
    points = scroll_all(coll.index, tenant, guard=guard, page=512, route="catalog")

    def place(point: StoredPoint) -> tuple[Any, ...]:
        p = point.payload
        if point.ordinal is not None:
            return (str(p.get("doc_id")), 0, point.ordinal)
        key = natural(str(p.get("section_key")))
        return (str(p.get("doc_id")), 1, key, int(p.get("part_index") or 0))

    return [p.payload for p in sorted(points, key=place)]


def natural(key: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key reading the digit runs of ``key`` as numbers.

    Example:
        >>> sorted(["s10", "s2", "s2.1", "abstract"], key=natural)
        ['abstract', 's2', 's2.1', 's10']
    """
    parts = re.findall(r"\d+|\D+", key)
    return tuple((0, int(x)) if x.isdigit() else (1, x) for x in parts)


def learned_summary(
    coll: Collection, tenant: str, guard: TenantGuard | None = None
) -> dict[str, Any]:
    """What ``tenant``'s records teach the section router (``enabled: false`` when the
    profile's ``[learning]`` is off or the docs planner answers: what the planner learns
    is :func:`sectio.plan.sections.docs_summary`); sections the profile lists left out."""
    profile = coll.profile
    if not profile.learning.enabled or profile.engine != "router":
        return {"enabled": False}
    vocab = LearnedVocabulary.from_payloads(
        collection_payloads(coll, tenant, guard),
        skip={s.key for s in profile.sections},
        content=lambda w: bool(coll.lexical.terms(w)),
    )
    return {"enabled": True, "tenant": tenant, **vocab.summary()}
