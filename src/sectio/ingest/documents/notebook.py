"""Jupyter notebooks (``.ipynb``), read as the Markdown page they render to.

A docs site built with Jupyter Book, nbsphinx or myst-nb writes some pages as
notebooks: GeoPandas' user guide and gallery, a library's tutorials. A notebook is
JSON: a list of cells, each Markdown, code or raw, a code cell with its outputs. Here:

* a Markdown cell is Markdown (MyST in it read: :mod:`~sectio.ingest.documents.myst`);
* a code cell is fenced code in the notebook's language (its kernel's:
  ``metadata.kernelspec.language``, else ``metadata.language_info.name``, else Python);
  an empty one is left out;
* outputs are left out (plots as base64 images, tables as HTML, progress bars: what
  the code computes, not what the page says), and so are raw cells (a converter's
  directives).

The cells are joined in order, a blank line between them. The file's lines count JSON,
not the page: a chunk cites the heading it sits under (``url`` = ``nb.ipynb#anchor``),
not lines. The file may be large (images in its outputs); its page is held to
``SECTIO_MAX_MARKDOWN_BYTES`` like any text page.

Example:
    >>> nb = {"cells": [{"cell_type": "markdown", "source": ["# Joins\\n", "Use sjoin."]},
    ...                 {"cell_type": "code", "source": "gpd.sjoin(a, b)", "outputs": []}],
    ...       "metadata": {"kernelspec": {"language": "python"}}}
    >>> print(notebook_to_markdown(json.dumps(nb).encode(), "joins.ipynb"))
    # Joins
    Use sjoin.
    <BLANKLINE>
    ```python
    gpd.sjoin(a, b)
    ```
"""

from __future__ import annotations

import json
from typing import Any

from sectio.errors import ContractError
from sectio.ingest.documents.myst import has_myst, read_myst


def _source(cell: dict[str, Any], key: str = "source") -> str:
    """A cell's text (nbformat writes it as one string or as a list of lines)."""
    value = cell.get(key, "")
    return "".join(str(v) for v in value) if isinstance(value, list) else str(value or "")


def _language(meta: Any) -> str:
    """The notebook's language, from its kernel (Python when it names none)."""
    if not isinstance(meta, dict):
        return "python"
    for outer, inner in (("kernelspec", "language"), ("language_info", "name")):
        found = meta.get(outer)
        if isinstance(found, dict) and isinstance(found.get(inner), str) and found[inner]:
            return str(found[inner]).lower()
    return "python"


def notebook_to_markdown(raw: bytes, name: str) -> str:
    """The notebook ``raw`` (the file ``name``) as Markdown (see the module doc).

    Raises:
        ContractError: it is not JSON, or JSON that holds no notebook (no list of cells).
    """
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ContractError(f"{name}: not a notebook: not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ContractError(f"{name}: not a notebook: no list of cells")
    cells = data.get("cells")
    if cells is None and isinstance(data.get("worksheets"), list):  # nbformat 3
        cells = [c for sheet in data["worksheets"] for c in sheet.get("cells", [])]
    if not isinstance(cells, list):
        raise ContractError(f"{name}: not a notebook: no list of cells")
    language = _language(data.get("metadata"))
    parts: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        if kind == "markdown":
            text = _source(cell).strip("\n")
            parts.append(read_myst(text) if has_myst(text) else text)
        elif kind == "code":
            code = _source(cell, "source" if "source" in cell else "input").strip("\n")
            if code.strip():
                fence = "````" if "```" in code else "```"
                parts.append(f"{fence}{language}\n{code}\n{fence}")
        elif kind == "heading":  # nbformat 3's heading cells
            level = int(cell.get("level") or 1)
            parts.append("#" * max(1, min(level, 6)) + " " + _source(cell).strip())
    return "\n\n".join(p for p in parts if p.strip())
