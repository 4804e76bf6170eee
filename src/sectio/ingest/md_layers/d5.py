"""D5, the relation graph: one entry per ordered pair of documents (links, includes, mentions)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

from sectio.contract.layers import Layer
from sectio.contract.record import ChunkRecord
from sectio.ingest.md_doc import DocBuild
from sectio.ingest.md_layers.common import (
    _QUESTION,
    _base,
    _record,
    _section_index,
)


def _distinctive_titles(builds: list[DocBuild]) -> dict[str, str]:
    counts = Counter(b.title.lower() for b in builds)
    out: dict[str, str] = {}
    for b in builds:
        t = b.title.lower()
        if counts[t] == 1 and len(t.split()) >= 2 and len(t) >= 10 and not _QUESTION.match(t):
            out[t] = b.doc_id
    return out


class _PhraseScanner:
    """Finds known phrases in text on word tokens (fast: indexed by first token)."""

    _TOKEN = re.compile(r"[a-z0-9]+")

    def __init__(self) -> None:
        self.phrases: dict[tuple[str, ...], list[tuple[str, str, str]]] = defaultdict(list)
        self.lengths: dict[str, set[int]] = defaultdict(set)

    def add(self, phrase: str, kind: str, target: str) -> None:
        toks = tuple(self._TOKEN.findall(phrase.lower()))
        if toks:
            self.phrases[toks].append((kind, target, phrase))
            self.lengths[toks[0]].add(len(toks))

    def scan(self, text: str) -> list[tuple[str, str, str]]:
        toks = self._TOKEN.findall(text.lower())
        found: list[tuple[str, str, str]] = []
        i = 0
        while i < len(toks):
            step = 1
            for n in sorted(self.lengths.get(toks[i], ()), reverse=True):
                hits = self.phrases.get(tuple(toks[i : i + n]))
                if hits:
                    found.extend(hits)
                    step = n
                    break
            i += step
        return found


class _Relations(dict[str, dict[str, Any]]):
    """Relations of one source document, one entry per target."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def add(self, target: str, kind: str, text: str, section_key: str, line: int) -> None:
        if target == self.source:
            return
        entry = self.setdefault(
            target,
            {"relations": [], "texts": [], "section_key": section_key, "line": line},
        )
        if kind not in entry["relations"]:
            entry["relations"].append(kind)
        if text and text not in entry["texts"] and len(entry["texts"]) < 6:
            entry["texts"].append(text)


def d5_entries(builds: list[DocBuild], tenant: str, known: dict[str, str]) -> list[ChunkRecord]:
    by_id = {b.doc_id: b for b in builds}
    scanner = _PhraseScanner()
    for title, target in _distinctive_titles(builds).items():
        scanner.add(title, "mentions_title", target)
    basenames: dict[str, str] = {}
    dup: set[str] = set()
    for b in builds:
        base = b.doc_id.rsplit("/", 1)[-1].lower()
        if base in basenames:
            dup.add(base)
        basenames[base] = b.doc_id
    for base, target in basenames.items():
        if base not in dup:
            scanner.add(base, "mentions_file", target)
    for cmd, target in known.items():
        scanner.add(cmd, "mentions_command", target)
    out: list[ChunkRecord] = []
    for b in builds:
        rel = _Relations(b.doc_id)
        add = rel.add
        for link in b.links:
            add(
                link.target,
                {"link": "links_to", "include": "includes", "file": "links_file"}[link.kind],
                link.text,
                link.section_key,
                link.line,
            )
        for chunk in b.chunks:
            low = chunk.text
            line = int(chunk.source_refs[0].model_dump().get("line") or 1)
            for kind, target, label in scanner.scan(low):
                add(target, kind, label, chunk.section_key, line)
        sections = _section_index(b)
        for n, (target, e) in enumerate(sorted(rel.items())):
            dst = by_id.get(target)
            dst_title = dst.title if dst else target.rsplit("/", 1)[-1]
            kinds = ", ".join(k.replace("_", " ") for k in e["relations"])
            lines = [f"{b.title} ({b.doc_id}) -> {dst_title} ({target}): {kinds}"]
            if e["texts"]:
                lines.append("; ".join(e["texts"]))
            data = _base(
                b,
                Layer.D5_RELATION_GRAPH.value,
                f"d5:{b.doc_id}->{target}",
                n,
                "\n".join(lines),
                tenant,
            )
            data.update(
                {
                    "section_title": "Relations",
                    "dense_from": f"d1:{b.doc_id}",
                    "target_doc_id": target if dst else None,
                    "target_path": target,
                    "relations": e["relations"],
                    "link_texts": e["texts"],
                    "source_refs": [b.source_ref(sections.get(e["section_key"]), e["line"] or 1)],
                }
            )
            out.append(_record(data, b))
    return out
