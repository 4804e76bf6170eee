"""DOCX: Word's headings, lists, tables and images, through mammoth (DOCX -> HTML).

mammoth maps the ``Heading 1``-``Heading 6`` (and ``Title``) styles to headings,
lists to lists and tables to tables (merged cells as ``colspan``/``rowspan``:
flagged by the HTML reader). An image becomes a flagged figure block (its alt
text kept); its bytes are never read. The rest is
:func:`sectio.ingest.documents.html.html_to_markdown`.

Raises :class:`~sectio.errors.ContractError` for a file that is not a DOCX.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sectio.errors import ContractError
from sectio.ingest.documents.converted import Converted
from sectio.ingest.documents.html import html_to_markdown

_IMG = re.compile(r"<img\b[^>]*>")
_STYLES = "p[style-name='Title'] => h1:fresh"


def _no_bytes(image: Any) -> dict[str, str]:
    return {"src": "", "alt": image.alt_text or ""}


def read_docx(path: Path) -> Converted:
    """``path`` (a DOCX) as Markdown; see the module docstring.

    Raises:
        ContractError: the file is not a readable DOCX.
    """
    import mammoth

    try:
        with path.open("rb") as fh:
            result = mammoth.convert_to_html(
                fh, convert_image=mammoth.images.img_element(_no_bytes), style_map=_STYLES
            )
    except Exception as exc:
        raise ContractError(f"{path}: not a readable DOCX ({type(exc).__name__}: {exc})") from exc
    html = _IMG.sub(lambda m: f"<figure>{m.group(0)}</figure>", result.value)
    converted = html_to_markdown(f"<body>{html}</body>", kind="docx")
    converted.kind = "docx"
    return converted


__all__ = ["read_docx"]
