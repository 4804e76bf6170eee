"""A JSON export read as documents: records of the user's own shape, each a document.

A help centre, a wiki or a CMS exports its articles as JSON: an array, JSON Lines, or
one object holding the array (``{"articles": [...], "next_page": null}``), each record
with a body by a name of its own (``body``, ``content``, ``answer``), maybe an id and a
title (:data:`TEXT_FIELDS`, :data:`ID_FIELDS`, :data:`TITLE_FIELDS`, tried in order; a
FAQ is often questions and answers alone). Such a file needs no renaming: each record
becomes a document titled by its title, its body read as HTML when it is markup
(``<p>``, ``<h2>``: a help centre's articles) and as Markdown otherwise, so its headings
are sections as in any document.

The document's id is the record's id (without one, the file's name and the record's
place: ``faq/3``); its provenance names the file and the record (``source``,
``record``), and the record's own link (``html_url``, ``url``, ``link``) when it has
one. The record's other plain fields (strings, numbers,
booleans) are the document's metadata.

Example:
    >>> export_fields(frozenset({"id", "question", "answer", "tags"}))
    ExportFields(ident='id', title='question', text='answer')
    >>> export_fields(frozenset({"question", "answer"}))
    ExportFields(ident=None, title='question', text='answer')
    >>> export_fields(frozenset({"name", "size"})) is None
    True
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from sectio.contract.bounds import InputLimits
from sectio.errors import ContractError, RecordError
from sectio.ingest.sources import iter_json_records, read_bytes, sniff

#: Field names of an export's record id, title and text, in the order they are tried.
ID_FIELDS = ("id", "uuid", "slug", "key", "url", "path")
TITLE_FIELDS = ("title", "question", "name", "heading", "subject", "headline")
TEXT_FIELDS = (
    "text", "body", "content", "page_content", "contents", "markdown", "html", "answer",
    "description", "abstract", "summary",
)  # fmt: skip
#: Field names of a record's own web address, in the order they are tried.
URL_FIELDS = ("html_url", "url", "link", "permalink", "source")
#: Objects inside a record whose fields are the record's own (LangChain's ``metadata``
#: beside ``page_content``, an API's ``attributes``); a field of the record itself wins.
NESTED_FIELDS = ("metadata", "meta", "attributes", "fields")
#: A body that opens with an HTML element is markup.
_MARKUP = re.compile(
    r"\s*<(?:!doctype|html|body|article|section|div|p|h[1-6]|ul|ol|table|span|br|pre|"
    r"blockquote|figure|img|a)\b",
    re.IGNORECASE,
)


class ExportFields(NamedTuple):
    """Which fields of an export's records hold the id and the title (maybe none), and the
    text."""

    ident: str | None
    title: str | None
    text: str


def export_fields(keys: frozenset[str]) -> ExportFields | None:
    """The id, title and text fields of a record with ``keys`` (None: no text field)."""

    def first(names: tuple[str, ...]) -> str | None:
        return next((n for n in names if n in keys), None)

    ident, text = first(ID_FIELDS), first(TEXT_FIELDS)
    if text is None:
        return None
    return ExportFields(ident, first(TITLE_FIELDS), text)


def export_records(path: Path, limits: InputLimits) -> Iterator[tuple[int, object]]:
    """Each record of an export, with its line (JSON Lines) or its place (an array or an
    object holding one), in file order.

    Raises:
        ContractError: the file cannot be read, or an object holds no list of records
            or several.
        RecordError: the JSON syntax broken, naming the line.
    """
    found = sniff(path)
    if found.container != "jsonl" or not found.pretty:
        yield from iter_json_records(path, limits)
        return
    raw = read_bytes(path, path.parent, limits.max_json_bytes)
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise RecordError(str(path), exc.lineno, "<json>", f"invalid JSON: {exc.msg}") from exc
    lists = [
        k
        for k, v in (data.items() if isinstance(data, dict) else ())
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)
    ]
    if len(lists) != 1:
        what = "no list of records" if not lists else f"several: {', '.join(lists)}"
        raise ContractError(f"{path}: a JSON object with {what}; expected one list of records")
    yield from enumerate(data[lists[0]], 1)


def export_shape(path: Path, limits: InputLimits) -> tuple[ExportFields, int] | None:
    """The fields of an export's first record and how many records it has (None: not an
    export: no text field, or unreadable)."""
    try:
        rows = list(export_records(path, limits))
    except (ContractError, RecordError):
        return None
    fields = _fields_of(rows)
    return (fields, len(rows)) if fields else None


def _fields_of(rows: list[tuple[int, object]]) -> ExportFields | None:
    """The export fields of the first of ``rows`` (None: no rows, the first is no object,
    or it has no text field): its fields holding text or a number, nested ones included."""
    first = rows[0][1] if rows else None
    if not isinstance(first, dict):
        return None
    scalars = {k for k, v in flat(first).items() if isinstance(v, str | int) and v != ""}
    return export_fields(frozenset(scalars))


def flat(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with the fields of its nested objects (:data:`NESTED_FIELDS`) beside its own
    (its own win).

    Example:
        >>> row = flat({"page_content": "Hi.", "metadata": {"source": "a.pdf", "page": 2}})
        >>> row["source"], row["page"]
        ('a.pdf', 2)
    """
    out = dict(row)
    for name in NESTED_FIELDS:
        inner = row.get(name)
        if isinstance(inner, dict):
            for k, v in inner.items():
                out.setdefault(k, v)
    return out


#: The longest string field kept as metadata (a longer one is text, not a label).
MAX_METADATA_CHARS = 200


def _plain(value: object) -> bool:
    """Whether a field's value is kept as metadata: a number, a boolean or a short string."""
    if isinstance(value, str):
        return len(value) <= MAX_METADATA_CHARS
    return isinstance(value, int | float | bool)


def _doc_id(path: Path, n: int, at: int, row: dict[str, Any], ident: str | None) -> str:
    """The document id of record ``n`` (1-based; at line ``at``): its id field's value,
    else the file's stem and ``n``."""
    if ident is None:
        return f"{path.name.split('.', 1)[0]}/{n}"
    value = row.get(ident)
    if not isinstance(value, str | int) or str(value).strip() == "":
        raise RecordError(str(path), at, ident, "required field is missing")
    return str(value).strip()


class ExportDoc(NamedTuple):
    """One record as a document: its id, its title ('' without one), its Markdown, whether
    the body was HTML, its link, and its other plain fields."""

    doc_id: str
    title: str
    markdown: str
    html: bool
    url: str | None
    metadata: dict[str, Any]


def export_documents(path: Path, limits: InputLimits) -> list[ExportDoc]:
    """Every record of the export ``path`` as a document (see the module doc), in file
    order. Records that share an id are the parts of one document (a page, a chunk of
    it), joined in file order; a part titled otherwise than the first opens a section.

    Raises:
        ContractError: not an export (no text field in the first record).
        RecordError: a record that is no object, without its id or its text; names the
            record.
    """
    rows = list(export_records(path, limits))
    fields = _fields_of(rows)
    if fields is None:
        raise ContractError(f"{path}: not an export: its first record has no text field")
    docs: dict[str, ExportDoc] = {}
    for n, (at, row) in enumerate(rows, 1):
        if not isinstance(row, dict):
            raise RecordError(str(path), at, "<record>", "must be a JSON object")
        row = flat(row)
        doc_id = _doc_id(path, n, at, row, fields.ident)
        body = row.get(fields.text)
        if not isinstance(body, str) or not body.strip():
            raise RecordError(str(path), at, fields.text, "must be non-empty text")
        title = row.get(fields.title) if fields.title else None
        heading = " ".join(str(title).split()) if isinstance(title, str | int) else ""
        html = bool(_MARKUP.match(body))
        if html:
            from sectio.ingest.documents.html import html_to_markdown

            body = html_to_markdown(body).markdown
        first = docs.get(doc_id)
        if first is not None:  # another part of the same document
            opens = f"## {heading}\n\n" if heading and heading != first.title else ""
            docs[doc_id] = first._replace(
                markdown=f"{first.markdown.rstrip()}\n\n{opens}{body}", html=first.html or html
            )
            continue
        url = next((str(row[k]) for k in URL_FIELDS if isinstance(row.get(k), str)), None)
        used = {fields.ident, fields.text, fields.title} - {None}
        metadata = {k: v for k, v in row.items() if k not in used and _plain(v)}
        markdown = f"# {heading}\n\n{body}" if heading else body
        docs[doc_id] = ExportDoc(doc_id, heading, markdown, html, url, metadata)
    if not docs:
        raise ContractError(f"{path}: no records")
    return list(docs.values())


__all__ = [
    "ID_FIELDS",
    "TEXT_FIELDS",
    "TITLE_FIELDS",
    "URL_FIELDS",
    "ExportDoc",
    "ExportFields",
    "export_documents",
    "export_fields",
    "export_records",
    "export_shape",
]
