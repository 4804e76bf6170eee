"""D2, the fact index: API endpoints, CLI commands and configuration keys (one entry each
per document)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import yaml

from sectio.contract.layers import Layer
from sectio.contract.record import ChunkRecord
from sectio.ingest.md_doc import DocBuild
from sectio.ingest.md_layers.common import (
    _API_PATH,
    _DOTTED_KEY,
    _ENV_VAR,
    _FILE_EXT,
    _METHOD_PATH,
    _SHELL_LANGS,
    _VERSIONISH,
    _WORD,
    FACT_LABELS,
    _base,
    _clip_words,
    _record,
    _section_index,
)


def known_commands(builds: Iterable[DocBuild]) -> dict[str, str]:
    """CLI command paths that a reference page defines (a heading that is the command in code).

    Returns command path -> the doc id of its reference page.
    """
    out: dict[str, str] = {}
    for b in builds:
        for s in b.doc.sections:
            if s.level > 2 or not s.heading_code:
                continue
            cmd = " ".join(s.heading_code[0].split())
            words = cmd.split(" ")
            if len(words) >= 2 and all(_WORD.match(w) for w in words) and cmd not in out:
                out[cmd] = b.doc_id
            break
    return out


def command_path(tokens: list[str], known: dict[str, str], programs: set[str]) -> str | None:
    """The command path a shell line starts with (longest known, else program + subcommand)."""
    if not tokens or not re.match(r"^[a-z][a-z0-9_.-]*$", tokens[0]):
        return None
    best = None
    for n in range(min(len(tokens), 6), 0, -1):
        cand = " ".join(tokens[:n])
        if cand in known:
            best = cand
            break
    if best:
        return best
    if tokens[0] in programs or len(tokens) < 2:
        return tokens[0] if tokens[0] in programs else None
    return f"{tokens[0]} {tokens[1]}" if _WORD.match(tokens[1]) else None


def _shell_lines(text: str, language: str, programs: set[str]) -> list[str]:
    lines = []
    shell = language.lower() in _SHELL_LANGS
    for raw in text.split("\n"):
        line = raw.strip()
        if line.startswith("```") or line.startswith("~~~"):
            continue
        prompt = line.startswith("$ ")
        if prompt:
            line = line[2:].strip()
        if not line or line.startswith("#"):
            continue
        first = line.split(" ", 1)[0]
        if prompt or first in programs or (shell and language.lower() != "console"):
            lines.append(line)
    return lines


def _config_keys_from_yaml(text: str) -> list[tuple[str, str]]:
    if not re.search(r"^\s*kind:\s*[\"']?(ConfigMap|Secret)\b", text, re.M):
        return []
    body = "\n".join(ln for ln in text.split("\n") if not ln.strip().startswith(("```", "~~~")))
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        docs = list(yaml.load_all(body, Loader=loader))
    except yaml.YAMLError:
        return []
    out: list[tuple[str, str]] = []
    for doc in docs:
        if not isinstance(doc, dict) or doc.get("kind") not in ("ConfigMap", "Secret"):
            continue
        meta = doc.get("metadata")
        name = str(meta.get("name", "")) if isinstance(meta, dict) else ""
        for field_name in ("data", "stringData"):
            data = doc.get(field_name)
            if isinstance(data, dict):
                out.extend((str(k), name) for k in data)
    return out


def _config_key(span: str) -> str | None:
    span = span.strip().strip("`")
    if ":" in span:
        span = span.split(":", 1)[0].strip()
    if " " in span or len(span) < 3 or len(span) > 80:
        return None
    if _ENV_VAR.match(span):
        return span
    if _DOTTED_KEY.match(span) and not _FILE_EXT.search(span) and not _VERSIONISH.match(span):
        return span
    return None


class _Facts(dict[tuple[str, str], dict[str, Any]]):
    """The facts of one document, each once (later sightings counted)."""

    def add(self, kind: str, fact: str, chunk: ChunkRecord, example: str, **extra: Any) -> None:
        key = (kind, fact)
        if key in self:
            self[key]["occurrences"] += 1
            return
        self[key] = {
            "fact": fact,
            "kind": kind,
            "chunk": chunk,
            "example": example,
            "occurrences": 1,
            **extra,
        }


def d2_entries(builds: list[DocBuild], tenant: str, known: dict[str, str]) -> list[ChunkRecord]:
    programs = {c.split(" ")[0] for c in known}
    out: list[ChunkRecord] = []
    for b in builds:
        sections = _section_index(b)
        facts = _Facts()
        add = facts.add
        for chunk in b.chunks:
            text = chunk.text
            lang = str(getattr(chunk, "language", "") or "")
            for m in _METHOD_PATH.finditer(text):
                add("api_endpoint", f"{m.group(1)} {m.group(2)}", chunk, m.group(0))
            for m in _API_PATH.finditer(text):
                prefix = text[max(0, m.start() - 8) : m.start()]
                if re.search(r"(GET|POST|PUT|PATCH|DELETE|HEAD)\s+$", prefix):
                    continue
                add("api_endpoint", m.group(1), chunk, m.group(1))
            if getattr(chunk, "block_type", "") == "code":
                for line in _shell_lines(text, lang, programs):
                    cmd = command_path(line.split(), known, programs)
                    if cmd and (cmd.split(" ")[0] in programs or lang.lower() in _SHELL_LANGS):
                        add("cli_command", cmd, chunk, _clip_words(line, 24))
                if lang.lower() in ("yaml", "yml", ""):
                    for key, cm in _config_keys_from_yaml(text):
                        add("config_key", key, chunk, f"{cm}: {key}" if cm else key, config=cm)
        for s in b.doc.sections:
            for block in s.blocks:
                chunk_id = b.chunk_at(s.key, block.line)
                owner = next((c for c in b.chunks if c.chunk_id == chunk_id), None)
                if owner is None:
                    continue
                for span in [*block.code_spans, *block.table_first_column]:
                    if span.split(" ", 1)[0] in programs:
                        cmd = command_path(span.split(), known, programs)
                        if cmd:
                            add("cli_command", cmd, owner, span)
                        continue
                    config = _config_key(span)
                    if config:
                        add("config_key", config, owner, span)
        for n, f in enumerate(sorted(facts.values(), key=lambda f: (f["kind"], f["fact"]))):
            chunk = f["chunk"]
            section = sections.get(chunk.section_key)
            where = f"{b.title} › {chunk.section_title}" if chunk.section_title else b.title
            lines = [f["fact"], f"{FACT_LABELS[f['kind']]} in {where} ({b.doc_id})"]
            if f["example"] and f["example"] != f["fact"]:
                lines.append(f["example"])
            data = _base(
                b,
                Layer.D2_FACT_INDEX.value,
                f"d2:{b.doc_id}:{f['kind']}:{f['fact']}",
                n,
                "\n".join(lines),
                tenant,
            )
            data.update(
                {
                    "section_title": chunk.section_title,
                    "fact_type": f["kind"],
                    "fact": f["fact"],
                    "occurrences": f["occurrences"],
                    "source_chunk_id": chunk.chunk_id,
                    "dense_from": chunk.chunk_id,
                    "source_section_key": chunk.section_key,
                    "source_refs": [
                        b.source_ref(section, chunk.source_refs[0].model_dump().get("line"))
                    ],
                }
            )
            if f["kind"] == "cli_command" and f["fact"] in known:
                data["reference_doc_id"] = known[f["fact"]]
            if f.get("config"):
                data["config"] = f["config"]
            out.append(_record(data, b))
    return out
