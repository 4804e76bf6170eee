"""D4, the workflow index: ordered procedures (numbered lists, runs of ``Step N`` headings)."""

from __future__ import annotations

from collections import defaultdict

from sectio.contract.layers import Layer
from sectio.contract.record import ChunkRecord
from sectio.ingest.md_doc import DocBuild
from sectio.ingest.md_layers.common import (
    _STEP_HEADING,
    _base,
    _clip_words,
    _record,
)
from sectio.ingest.md_parse import Section


def d4_entries(builds: list[DocBuild], tenant: str) -> list[ChunkRecord]:
    out: list[ChunkRecord] = []
    for b in builds:
        procedures: list[tuple[Section, int, list[str]]] = []
        for s in b.doc.sections:
            for proc in s.procedures:
                procedures.append((s, proc.line, proc.items))
        # runs of "Step N" headings under one parent: one procedure
        runs: dict[str, list[Section]] = defaultdict(list)
        for s in b.doc.sections:
            if s.level > 0 and _STEP_HEADING.match(s.title):
                runs["/".join(s.key.split("/")[:-1])].append(s)
        for steps in runs.values():
            if len(steps) >= 2:
                procedures.append((steps[0], steps[0].line, [s.title for s in steps]))
        for n, (section, line, items) in enumerate(procedures):
            shown = [f"{i + 1}. {_clip_words(item, 30)}" for i, item in enumerate(items[:15])]
            if len(items) > 15:
                shown.append(f"… {len(items) - 15} more steps")
            title = section.title or b.title
            text = "\n".join([f"Procedure: {title} ({b.title}, {b.doc_id})", *shown])
            data = _base(
                b,
                Layer.D4_WORKFLOW_INDEX.value,
                f"d4:{b.doc_id}#{section.key}#{n}",
                n,
                text,
                tenant,
            )
            source_chunk = b.chunk_at(section.key, line)
            data.update(
                {
                    "section_title": title,
                    "steps": items,
                    "step_count": len(items),
                    "source_chunk_id": source_chunk,
                    "dense_from": source_chunk,
                    "source_section_key": section.key,
                    "source_refs": [b.source_ref(section, line)],
                }
            )
            out.append(_record(data, b))
    return out
