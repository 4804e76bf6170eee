"""Test helpers: shared data paths and record builders.

Every test module imports what it needs from here (``tests.helpers``), never
from ``conftest`` or from another test module.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SHARED = Path(__file__).resolve().parents[3] / "shared"
if not SHARED.is_dir():  # CI clones into a sibling folder of shared/
    SHARED = Path(__file__).resolve().parents[2].parent / "shared"
DATA = SHARED / "data"


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write ``rows`` as JSON Lines and return ``path``."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def chunk(doc: str, section: str, part: int, text: str, **extra: Any) -> dict[str, Any]:
    """A valid chunk record with provenance."""
    row: dict[str, Any] = {
        "chunk_id": f"{doc}#{section}#{part}",
        "doc_id": doc,
        "section_key": section,
        "part_index": part,
        "text": text,
        "source_refs": [{"source": "test"}],
    }
    row.update(extra)
    return row
