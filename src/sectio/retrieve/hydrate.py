"""Parent hydration: a chunk with a ``parent_id`` brings its parent, in the order asked.

Small chunks are matched, their parents are read: each child carrying a
``parent_id`` is replaced, at its place in the ranking, by its parent chunk
(fetched by point id = uuid5 of the parent's chunk id). A parent several
children share appears once, at its first child's place, with that child's
score and the children's ids in ``hydrated_from``. Engines return fetched points
in their own order, so results are put back into the requested order by chunk
id. A parent that cannot be found (or belongs to another tenant) leaves the
child as it was, and is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sectio.contract.result import Evidence
from sectio.retrieve.scan import fetch_chunks
from sectio.retrieve.scope import ReadScope


@dataclass
class Hydrated:
    """Evidence after hydration, and the parent ids that could not be read."""

    evidence: list[Evidence]
    parents: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def hydrate_parents(scope: ReadScope, evidence: Sequence[Evidence]) -> Hydrated:
    """Replace children by their parents, keeping the ranking order (parents tenant-checked)."""
    wanted = [e.parent_id for e in evidence if e.parent_id]
    if not wanted:
        return Hydrated(list(evidence))
    found = fetch_chunks(scope, wanted, route="hydrate")
    out: list[Evidence] = []
    placed: dict[str, Evidence] = {}
    children: dict[str, list[str]] = {}
    missing: list[str] = []
    for item in evidence:
        pid = item.parent_id
        if not pid or pid == item.chunk_id:
            if item.chunk_id not in placed:  # a parent already placed by its child stays once
                out.append(item)
                placed[item.chunk_id] = item
            continue
        point = found.get(pid)
        if point is None:
            missing.append(pid)
            out.append(item)
            continue
        children.setdefault(pid, []).append(item.chunk_id)
        if pid not in placed:
            parent = Evidence.from_payload(point.payload, item.score, rank=item.rank)
            out.append(parent)
            placed[pid] = parent
    for pid, kids in children.items():
        setattr(placed[pid], "hydrated_from", kids)  # noqa: B010 (an extra field)
    for i, item in enumerate(out):
        item.rank = i + 1
    return Hydrated(
        out, list(dict.fromkeys(p for p in wanted if p in found)), list(dict.fromkeys(missing))
    )
