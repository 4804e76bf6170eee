"""D3, the entity catalog: names defined by headings, glossary terms and code identifiers."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from sectio.contract.layers import Layer
from sectio.contract.record import ChunkRecord
from sectio.ingest.md_doc import DocBuild
from sectio.ingest.md_layers.common import (
    _CAMEL,
    _ENV_VAR,
    _FILE_EXT,
    _IDENT,
    _QUESTION,
    _VERSIONISH,
    _base,
    _first_sentence,
    _record,
    name_variants,
)
from sectio.ingest.md_parse import Section, slugify


def _is_identifier(span: str) -> bool:
    span = span.strip()
    if len(span) < 3 or len(span) > 60 or not _IDENT.match(span):
        return False
    if _FILE_EXT.search(span) or _VERSIONISH.match(span) or span.startswith(("http", "www.")):
        return False
    return bool(re.search(r"[._-]", span) or _CAMEL.search(span) or _ENV_VAR.match(span))


def generic_headings(builds: list[DocBuild]) -> set[str]:
    """Headings shared by many documents ("Examples", "Options"): labels, not names."""
    df: Counter[str] = Counter()
    for b in builds:
        df.update({s.title.lower() for s in b.doc.sections if s.level > 0})
    threshold = max(5, len(builds) // 50)
    return {h for h, n in df.items() if n >= threshold}


_ENTITY_RANK = {"glossary": 0, "heading": 1, "code": 2}


class _Entities(dict[str, dict[str, Any]]):
    """The names one document defines; a stronger kind replaces a weaker one."""

    def add(self, name: str, kind: str, section: Section, line: int, definition: str) -> None:
        name = " ".join(name.split()).strip().strip(":")
        if not name:
            return
        key = name.lower()
        old = self.get(key)
        if old is not None and _ENTITY_RANK[old["kind"]] <= _ENTITY_RANK[kind]:
            return
        self[key] = {
            "name": name,
            "kind": kind,
            "section": section,
            "line": line,
            "definition": definition,
        }


def d3_entries(builds: list[DocBuild], tenant: str) -> list[ChunkRecord]:
    generic = generic_headings(builds)
    out: list[ChunkRecord] = []
    rank = _ENTITY_RANK
    for b in builds:
        found = _Entities()
        add = found.add
        span_counts: Counter[str] = Counter()
        for s in b.doc.sections:
            for block in s.blocks:
                span_counts.update(x.strip() for x in block.code_spans)
        for s in b.doc.sections:
            prose = next((bl.text for bl in s.blocks if bl.kind == "prose"), "")
            if s.level > 0:
                words = s.title.split()
                if (
                    len(words) <= 8
                    and "?" not in s.title
                    and not _QUESTION.match(s.title)
                    and s.title.lower() not in generic
                ):
                    add(s.title, "heading", s, s.line, _first_sentence(prose))
                for code in s.heading_code:
                    if _is_identifier(code):
                        add(code, "code", s, s.line, _first_sentence(prose))
            for block in s.blocks:
                for term, rest in block.bold_terms:
                    add(term, "glossary", s, block.line, _first_sentence(rest))
                for cell in block.table_first_column:
                    if _is_identifier(cell):
                        add(cell, "code", s, block.line, "")
                for span in block.code_spans:
                    span = span.strip()
                    if span_counts[span] >= 2 and _is_identifier(span):
                        add(span, "code", s, block.line, _first_sentence(block.text))
        for n, e in enumerate(sorted(found.values(), key=lambda e: (rank[e["kind"]], e["name"]))):
            section: Section = e["section"]
            aliases = [v for v in name_variants(e["name"]) if v != e["name"].lower()]
            if e["kind"] == "heading":
                slug = slugify(e["name"]).replace("-", " ")
                if slug not in aliases and slug != e["name"].lower():
                    aliases.append(slug)
            label = {"glossary": "Term", "heading": "Heading", "code": "Identifier"}[e["kind"]]
            where = f"{b.title} › {section.title}" if section.title else b.title
            lines = [e["name"], f"{label} in {where} ({b.doc_id})"]
            if aliases:
                lines.append("Also: " + ", ".join(aliases))
            if e["definition"]:
                lines.append(e["definition"])
            data = _base(
                b,
                Layer.D3_ENTITY_CATALOG.value,
                f"d3:{b.doc_id}:{e['name']}",
                n,
                "\n".join(lines),
                tenant,
            )
            data.update(
                {
                    "section_title": section.title or b.title,
                    "entity": e["name"],
                    "entity_kind": e["kind"],
                    "entity_aliases": aliases,
                    "definition": e["definition"],
                    "source_chunk_id": b.chunk_at(section.key, e["line"]),
                    "dense_from": b.chunk_at(section.key, e["line"]),
                    "source_section_key": section.key,
                    "source_refs": [b.source_ref(section, e["line"])],
                }
            )
            out.append(_record(data, b))
    return out
