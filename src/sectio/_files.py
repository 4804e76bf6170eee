"""File helpers shared by every layer: a streamed sha256 and an atomic JSON write.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.json"
    >>> write_json_atomic(p, {"a": 1})
    >>> len(file_sha256(p))
    64
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks.

    Raises:
        OSError: the file cannot be read.
    """
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as indented, key-sorted JSON: a ``.tmp`` file, then an atomic rename."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False))
    os.replace(tmp, path)
