"""MkDocs hook: add the generated reference pages (tools/docs_reference.py) to the build.

The pages are written from the code on every build (``make docs``, ``mkdocs build``),
never stored in the repository, so they cannot fall behind it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import docs_reference
from mkdocs.structure.files import File, Files


def on_files(files: Files, config: Any) -> Files:
    """Each page of :data:`docs_reference.PAGES`, generated now, as a file of the site."""
    for rel, page in docs_reference.PAGES.items():
        existing = files.get_file_from_path(rel)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, rel, content=page()))
    return files
