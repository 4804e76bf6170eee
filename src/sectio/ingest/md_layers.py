"""The derived index layers of a docs corpus (D1-D5), built deterministically at ingest.

Every entry is a chunk record (``chunk_kind: block``, so none enters a prose
answer) with ``layer`` set, a unique ``chunk_id``, ``doc_id``/``path`` of the
document it describes and ``source_refs`` back into the file:

* **D1 document catalog** (``d1:<doc>``): one entry per document: title, path,
  first paragraph and the outline of headings; fields ``outline``,
  ``first_paragraph``, ``links_to``, ``linked_from``, ``aliases`` (file name,
  file stem in words, front-matter aliases).
* **D2 fact index** (``d2:<doc>:<type>:<fact>``): API endpoints (``GET /api/v1/...``
  and ``/api/...`` paths), CLI commands (shell lines and code spans, cut to the
  longest command path a reference page of the corpus defines, else program +
  subcommand), configuration keys (``data:`` keys of YAML ConfigMaps/Secrets,
  dotted keys and ``ENV_VARS`` in code spans and first table columns). One
  entry per fact per document, with ``source_chunk_id`` (the D0 chunk it came from).
* **D3 entity catalog** (``d3:<doc>:<name>``): names defined by headings
  (short, not questions, not a generic heading shared by many documents),
  glossary terms (``**Term** definition`` list items) and code identifiers
  (CamelCase, dotted, dashed or snake names in code spans that a document uses
  in a heading, a first table column or at least twice), each with
  ``entity_aliases`` (spacing and CamelCase variants, lower case).
* **D4 workflow index** (``d4:<doc>#<section>#<n>``): ordered procedures:
  numbered lists of two or more steps, and runs of ``Step N`` headings; fields
  ``steps`` and ``step_count``.
* **D5 relation graph** (``d5:<src>-><dst>``): one entry per ordered pair of
  documents: explicit links, Markdown includes, and mentions (a CLI command
  whose reference page is ``dst``, ``dst``'s file name, or its distinctive
  multi-word title); fields ``target_doc_id``, ``relations``, ``link_texts``.

Dense vectors (:mod:`sectio.ingest.embedding`): a D1 entry embeds its title and
first paragraph (``dense_text``; its path and outline are BM25's); D2,
D3 and D4 entries restate (or name what is defined in) the chunk they came from
and take its vector (``dense_from``); a D5 entry takes its source document's D1
vector. BM25 reads every entry's full text, so an entry is still found by the
words only it holds (a fact, a name and its aliases, a relation).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

import yaml

from sectio.contract.layers import Layer
from sectio.contract.record import ChunkRecord, parse_record
from sectio.ingest.chunking import TokenCounter
from sectio.ingest.md_doc import DocBuild
from sectio.ingest.md_parse import Section, slugify

_METHOD_PATH = re.compile(
    r"\b(GET|POST|PUT|PATCH|DELETE|HEAD)\s+(/[A-Za-z0-9_{}<>$:./\-]*[A-Za-z0-9_}>])"
)
_API_PATH = re.compile(r"(?<![\w.])(/api/v?\d*[A-Za-z0-9_{}<>$:./\-]*[A-Za-z0-9_}>])")
_DOTTED_KEY = re.compile(r"^[a-z][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)+$")
_ENV_VAR = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[._/-][A-Za-z0-9]+)*$")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_WORD = re.compile(r"^[a-z][a-z0-9-]*$")
_FILE_EXT = re.compile(
    r"\.(md|ya?ml|json|txt|sh|go|py|js|ts|lua|html?|png|svg|jpe?g|gif|io|com|org|dev|net|tar|gz|tgz|zip|crt|pem|key)$",
    re.IGNORECASE,
)
_VERSIONISH = re.compile(r"^v?\d+(\.\d+)+")
_QUESTION = re.compile(
    r"^(how|why|what|when|where|which|who|can|could|should|is|are|do|does|will|i)\b", re.I
)
_STEP_HEADING = re.compile(r"^(step\s*\d+|\d+[.)]\s)", re.I)
_SHELL_LANGS = {"bash", "sh", "shell", "console", "zsh", "shell-session", "shellsession", "bat"}

FACT_LABELS = {
    "api_endpoint": "API endpoint",
    "cli_command": "CLI command",
    "config_key": "Configuration key",
}


def name_variants(name: str) -> list[str]:
    """Lower-case spellings of a name: as is, separators as spaces, CamelCase split.

    Example:
        >>> name_variants("OutOfSync")
        ['outofsync', 'out of sync']
        >>> name_variants("argocd_app_sync")
        ['argocd_app_sync', 'argocd app sync']
    """
    base = " ".join(name.replace("`", "").split())
    out: list[str] = []

    def add(v: str) -> None:
        v = " ".join(v.lower().split())
        if v and v not in out:
            out.append(v)

    add(base)
    add(re.sub(r"[-_./:]+", " ", base))
    split = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", base)
    add(re.sub(r"[-_./:]+", " ", split))
    return out


def _first_sentence(text: str, limit: int = 240) -> str:
    flat = " ".join(text.split())
    m = re.search(r"(?<=[.!?])\s", flat)
    out = flat[: m.start()] if m else flat
    return out if len(out) <= limit else out[: limit - 1].rstrip() + "…"


def _clip_words(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def _record(data: dict[str, Any], build: DocBuild) -> ChunkRecord:
    return parse_record(data, build.doc_id, int(data.get("source_refs", [{}])[0].get("line", 1)))


def _base(build: DocBuild, layer: str, chunk_id: str, part: int, text: str, tenant: str) -> dict:
    return {
        "chunk_id": chunk_id,
        "doc_id": build.doc_id,
        "path": build.doc_id,
        "section_key": f"_{layer.lower()}",
        "part_index": part,
        "text": text,
        "doc_title": build.title,
        "chunk_kind": "block",
        "tenant": tenant,
        "metadata": dict(build.metadata),
        "tags": list(build.tags),
        "layer": layer,
    }


def _section_index(build: DocBuild) -> dict[str, Section]:
    return {s.key: s for s in build.doc.sections}


# --- D1 ------------------------------------------------------------------------------------


def doc_aliases(build: DocBuild) -> list[str]:
    """Other names of a document: file name, stem in words, front-matter aliases."""
    base = build.doc_id.rsplit("/", 1)[-1]
    stem = base.rsplit(".", 1)[0]
    out: list[str] = []
    front = build.doc.front_matter.get("aliases") or []
    for cand in [base, stem, *name_variants(stem)[1:], *(front if isinstance(front, list) else [])]:
        c = str(cand).strip()
        if c and c.lower() != build.title.lower() and c not in out:
            out.append(c)
    return out


def d1_dense_text(title: str, first_paragraph: str) -> str:
    """What a D1 entry embeds (its ``dense_text``): the title, then the first paragraph.

    The path and the outline stay in the entry's text, which BM25 and the payload read,
    but not in its vector: each heading of the outline is a D0 section embedded on its
    own. On the Argo CD docs this halves the D1 embedding time with the planner's
    hit@1 / hit@5 unchanged (README, Results). A document with no first paragraph
    embeds its title alone.

    Example:
        >>> d1_dense_text("Sync Waves", "Order the sync of resources.")
        'Sync Waves\\nOrder the sync of resources.'
        >>> d1_dense_text("FAQ", "")
        'FAQ'
    """
    return f"{title}\n{first_paragraph}" if first_paragraph else title


def d1_entries(
    builds: list[DocBuild], tenant: str, count: TokenCounter, max_tokens: int
) -> list[ChunkRecord]:
    inbound: dict[str, list[str]] = defaultdict(list)
    for b in builds:
        for link in b.links:
            if link.kind != "file" and b.doc_id not in inbound[link.target]:
                inbound[link.target].append(b.doc_id)
    out: list[ChunkRecord] = []
    for b in builds:
        outline = [
            {"title": s.title, "level": s.level, "anchor": s.anchor, "section_key": s.key}
            for s in b.doc.sections
            if s.level > 0
        ]
        first = _clip_words(" ".join(b.doc.first_paragraph.split()), 80)
        links_to: list[str] = []
        for link in b.links:
            if link.kind != "file" and link.target not in links_to:
                links_to.append(link.target)
        heads = [str(o["title"]) for o in outline if o["title"] != b.title]
        lines = [b.title, f"Path: {b.doc_id}"]
        if first:
            lines.append(first)
        if heads:
            lines.append("Outline: " + "; ".join(heads))
        text = "\n".join(lines)
        if count(text) > max_tokens * 4:  # keep very long outlines readable
            text = _clip_words(text, max_tokens * 3)
        data = _base(b, Layer.D1_DOCUMENT_CATALOG.value, f"d1:{b.doc_id}", 0, text, tenant)
        data.update(
            {
                "section_title": "Document catalog",
                "outline": outline,
                "first_paragraph": first,
                "dense_text": d1_dense_text(b.title, first),
                "links_to": links_to,
                "linked_from": inbound.get(b.doc_id, []),
                "aliases": doc_aliases(b),
                "front_matter": b.doc.front_matter,
                "source_refs": [b.source_ref(None, 1)],
            }
        )
        out.append(_record(data, b))
    return out


# --- D2 ------------------------------------------------------------------------------------


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


# --- D3 ------------------------------------------------------------------------------------


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


# --- D4 ------------------------------------------------------------------------------------


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


# --- D5 ------------------------------------------------------------------------------------


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


def build_layers(
    builds: list[DocBuild], *, tenant: str, max_tokens: int, count: TokenCounter
) -> list[ChunkRecord]:
    """D1..D5 entries for the documents, in layer order then document order."""
    known = known_commands(builds)
    return [
        *d1_entries(builds, tenant, count, max_tokens),
        *d2_entries(builds, tenant, known),
        *d3_entries(builds, tenant),
        *d4_entries(builds, tenant),
        *d5_entries(builds, tenant, known),
    ]


__all__ = ["build_layers", "command_path", "d1_dense_text", "known_commands", "name_variants"]
