"""What the D1-D5 builders share: the patterns they read, the record each entry becomes."""

from __future__ import annotations

import re
from typing import Any

from sectio.contract.record import ChunkRecord, parse_record
from sectio.ingest.md_doc import DocBuild
from sectio.ingest.md_parse import Section

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
    """Lower-case spellings of a name: as is, separators as spaces, CamelCase split, a
    name of letters then digits split between them.

    Example:
        >>> name_variants("OutOfSync")
        ['outofsync', 'out of sync']
        >>> name_variants("argocd_app_sync")
        ['argocd_app_sync', 'argocd app sync']
        >>> name_variants("rfc9000")
        ['rfc9000', 'rfc 9000']
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
    if re.fullmatch(r"[A-Za-z]+\d+", base):  # "rfc9000" is written "RFC 9000"
        add(re.sub(r"(?<=[A-Za-z])(?=\d)", " ", base))
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
